"""The Alakazum! card list: loaded from a CSV file (one row per physical card) and validated.

The printed card values are not public; ``cards.csv`` next to this module holds the project's
reconstruction (see docs/games/alakazum.md). A user who owns the game can copy that file, put the
printed values in and pass its path as the ``cards`` option. Every problem in such a file raises a
``ConfigError`` naming the file, the row, the column, the value and what is allowed.

Columns: ``code`` (unique), ``deck`` (initial / forest / final), ``kind`` (character / hand / trap /
final), ``name``, ``culture`` (VAL CAT GAL EUS AND MULTI for characters; a culture for a culture
object; two cultures ``A+B`` for a food), ``combat`` / ``culture_points`` / ``resistance``
(characters: three ``/``-separated values for levels A/B/C, ``d`` = roll the die in each combat),
``trait`` (empty, VM, VM2, TH, SO), ``effect`` (hand cards and traps), ``value`` (potion/hat/object
value; for final enemies their culture points, or ``2:9;5:7`` = 9 with 2 players and 7 with 5
players, absent with other player counts), ``take_back`` (market cards a hand card takes back).
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass, field
from pathlib import Path

from kabenvs.core.errors import ConfigError, brief

DEFAULT_CARDS = Path(__file__).with_name("cards.csv")

CULTURES = ("VAL", "CAT", "GAL", "EUS", "AND")
MULTI = 5  # culture index of multicolour characters
DIE = -1  # a combat value rolled with the die in each combat
LEVELS = "ABC"
TRAITS = ("", "VM", "VM2", "TH", "SO")
HAND_EFFECTS = (
    "combat_potion", "die_potion", "double_potion", "steal_potion", "hat", "food", "broom",
    "culture_object", "amulet", "voodoo",
)
TRAP_EFFECTS = ("black_friday", "halloween", "santa_claus")
COLUMNS = (
    "code", "deck", "kind", "name", "culture", "combat", "culture_points", "resistance", "trait",
    "effect", "value", "take_back",
)
# Magic scroll: the seven spells and their cost in magic energy (printed on the scroll, found).
SPELLS = ("Unlucky Witch", "Training", "Clairvoyance", "Forest Magic", "Levitation", "Revive", "Deja Vu")
SPELL_COST = (0, 1, 2, 3, 3, 4, 4)
WITCH, TRAINING, CLAIRVOYANCE, FOREST_MAGIC, LEVITATION, REVIVE, DEJA_VU = range(7)


@dataclass(frozen=True)
class Card:
    id: int
    code: str
    deck: str
    kind: str
    name: str
    culture: int = -1  # characters and culture objects; MULTI for multicolour characters
    cultures: tuple[int, ...] = ()  # the two cultures of a food card
    combat: tuple[int, int, int] = (0, 0, 0)  # DIE = roll
    points: tuple[int, int, int] = (0, 0, 0)
    resistance: tuple[int, int, int] = (0, 0, 0)
    trait: str = ""
    effect: str = ""
    value: int = 0
    take_back: int = 0
    final_values: dict = field(default_factory=dict)  # player count -> points (empty: any count)
    final_default: int = 0


@dataclass
class CardSet:
    """Every card plus the derived tables the engine reads on its hot path."""

    cards: list[Card]
    source: str

    def __post_init__(self) -> None:
        cards = self.cards
        self.characters = [c.id for c in cards if c.kind == "character"]
        self.char_index = {cid: i for i, cid in enumerate(self.characters)}
        self.finals = [c.id for c in cards if c.kind == "final"]
        # Hand-card types: identical copies share a type (effect, value, cultures).
        self.hand_types: list[int] = []  # type -> a representative card id
        type_of: dict[tuple, int] = {}
        self.htype = [-1] * len(cards)
        for c in cards:
            if c.kind != "hand":
                continue
            key = (c.effect, c.value, c.culture, c.cultures)
            if key not in type_of:
                type_of[key] = len(self.hand_types)
                self.hand_types.append(c.id)
            t = type_of[key]
            rep = cards[self.hand_types[t]]
            if (rep.take_back, rep.name) != (c.take_back, c.name):
                raise ConfigError(
                    f"{self.source}: cards {rep.code} and {c.code} have the same effect and value but "
                    f"different names or take-back numbers; identical copies must match"
                )
            self.htype[c.id] = t
        self.trap_kinds = list(TRAP_EFFECTS)
        self.num_chars = len(self.characters)
        self.num_htypes = len(self.hand_types)
        # A "class" names a forest card as a player sees it: each character, each trap kind, each
        # hand-card type (used by Forest Magic, whose choices are among the cards it shows).
        self.cls = [-1] * len(cards)
        for c in cards:
            if c.kind == "character":
                self.cls[c.id] = self.char_index[c.id]
            elif c.kind == "trap":
                self.cls[c.id] = self.num_chars + TRAP_EFFECTS.index(c.effect)
            elif c.kind == "hand":
                self.cls[c.id] = self.num_chars + len(TRAP_EFFECTS) + self.htype[c.id]
        self.num_classes = self.num_chars + len(TRAP_EFFECTS) + self.num_htypes
        self.is_char = [c.kind == "character" for c in cards]
        self.is_hand = [c.kind == "hand" for c in cards]
        self.effect = [c.effect for c in cards]
        self.value = [c.value for c in cards]
        self.take_back = [c.take_back for c in cards]
        self.ht_effect = [cards[r].effect for r in self.hand_types]
        self.ht_value = [cards[r].value for r in self.hand_types]
        self.ht_name = [cards[r].name for r in self.hand_types]
        self.ht_cultures = [cards[r].cultures for r in self.hand_types]
        self.ht_culture = [cards[r].culture for r in self.hand_types]
        self.energy = [
            (2 if c.trait == "VM2" else 1 if c.trait == "VM" else 0) for c in cards
        ]
        self.thrifty = [c.trait == "TH" for c in cards]
        # For the observation's team and finals blocks (encoding.encode), read once per card there
        # instead of five lookups: (index among characters, culture, culture points per level / 10,
        # very-magical energy) of each character (None for other cards); position of each final.
        self.team_entry = [
            (self.char_index[c.id], c.culture, tuple(p / 10 for p in c.points), self.energy[c.id])
            if c.kind == "character" else None
            for c in cards
        ]
        self.final_index = {f: i for i, f in enumerate(self.finals)}
        self.sociable = [c.trait == "SO" for c in cards]

    def class_name(self, k: int) -> str:
        if k < self.num_chars:
            return self.cards[self.characters[k]].name
        k -= self.num_chars
        if k < len(TRAP_EFFECTS):
            return next((c.name for c in self.cards if c.effect == TRAP_EFFECTS[k]), TRAP_EFFECTS[k])
        return self.ht_name[k - len(TRAP_EFFECTS)]

    def finals_for(self, num_players: int) -> list[tuple[int, int]]:
        """(card id, culture points) of the final enemies in play with ``num_players``."""
        out = []
        for cid in self.finals:
            c = self.cards[cid]
            if c.final_values:
                if num_players in c.final_values:
                    out.append((cid, c.final_values[num_players]))
            else:
                out.append((cid, c.final_default))
        return out


def _fail(source: str, row: int, column: str, value: str, allowed: str) -> None:
    raise ConfigError(f"{source}, row {row}: {column}={brief(value)} is not valid; {allowed}")


def _int(source, row, column, text, low=0, high=99) -> int:
    try:
        v = int(text)
    except ValueError:
        _fail(source, row, column, text, f"expected an integer between {low} and {high}")
    if not low <= v <= high:
        _fail(source, row, column, text, f"expected an integer between {low} and {high}")
    return v


def _levels(source, row, column, text, allow_die=False) -> tuple[int, int, int]:
    parts = text.split("/")
    hint = "expected three '/'-separated values for levels A/B/C, e.g. 1/1/2" + (
        " ('d' = die roll)" if allow_die else ""
    )
    if len(parts) != 3:
        _fail(source, row, column, text, hint)
    out = []
    for part in parts:
        part = part.strip()
        if allow_die and part.lower() == "d":
            out.append(DIE)
        else:
            try:
                v = int(part)
            except ValueError:
                _fail(source, row, column, text, hint)
            if not 0 <= v <= 20:
                _fail(source, row, column, text, hint + "; values 0-20")
            out.append(v)
    return tuple(out)  # type: ignore[return-value]


def _culture(source, row, column, text, allow_multi=False) -> int:
    allowed = CULTURES + (("MULTI",) if allow_multi else ())
    if text not in allowed:
        _fail(source, row, column, text, f"choose one of {list(allowed)}")
    return allowed.index(text)


def parse_rows(rows: list[dict[str, str]], source: str) -> CardSet:
    cards: list[Card] = []
    codes: set[str] = set()
    char_names: set[str] = set()
    for i, raw in enumerate(rows):
        row = i + 2  # the header is row 1
        r = {k: (raw.get(k) or "").strip() for k in COLUMNS}
        code = r["code"]
        if not code:
            _fail(source, row, "code", code, "every card needs a unique code")
        if code in codes:
            _fail(source, row, "code", code, "codes must be unique")
        codes.add(code)
        deck, kind, name = r["deck"], r["kind"], r["name"]
        if deck not in ("initial", "forest", "final"):
            _fail(source, row, "deck", deck, "choose one of ['initial', 'forest', 'final']")
        if kind not in ("character", "hand", "trap", "final"):
            _fail(source, row, "kind", kind, "choose one of ['character', 'hand', 'trap', 'final']")
        if not name:
            _fail(source, row, "name", name, "every card needs a name")
        if (kind == "final") != (deck == "final"):
            _fail(source, row, "deck", deck, "final enemies (kind=final) and only they go in deck=final")
        if kind == "trap" and deck != "forest":
            _fail(source, row, "deck", deck, "traps belong in the forest deck")
        cid = len(cards)
        if kind == "character":
            if name in char_names:
                _fail(source, row, "name", name, "character names must be unique")
            char_names.add(name)
            if r["trait"] not in TRAITS:
                _fail(source, row, "trait", r["trait"], f"choose one of {list(TRAITS)}")
            cards.append(Card(
                cid, code, deck, kind, name,
                culture=_culture(source, row, "culture", r["culture"], allow_multi=True),
                combat=_levels(source, row, "combat", r["combat"], allow_die=True),
                points=_levels(source, row, "culture_points", r["culture_points"]),
                resistance=_levels(source, row, "resistance", r["resistance"]),
                trait=r["trait"],
            ))
        elif kind == "hand":
            eff = r["effect"]
            if eff not in HAND_EFFECTS:
                _fail(source, row, "effect", eff, f"hand cards: choose one of {list(HAND_EFFECTS)}")
            value, culture, cultures = 0, -1, ()
            if eff in ("combat_potion", "die_potion", "double_potion", "hat", "culture_object", "amulet"):
                value = _int(source, row, "value", r["value"], 1, 9)
            if eff == "culture_object":
                culture = _culture(source, row, "culture", r["culture"])
            if eff == "food":
                parts = r["culture"].split("+")
                if len(parts) != 2 or parts[0] == parts[1]:
                    _fail(source, row, "culture", r["culture"], "a food names two different cultures, e.g. VAL+CAT")
                cultures = tuple(sorted(_culture(source, row, "culture", p) for p in parts))
            take_back = 0 if eff == "voodoo" else _int(source, row, "take_back", r["take_back"], 0, 9)
            cards.append(Card(cid, code, deck, kind, name, culture=culture, cultures=cultures,
                              effect=eff, value=value, take_back=take_back))
        elif kind == "trap":
            if r["effect"] not in TRAP_EFFECTS:
                _fail(source, row, "effect", r["effect"], f"traps: choose one of {list(TRAP_EFFECTS)}")
            cards.append(Card(cid, code, deck, kind, name, effect=r["effect"]))
        else:
            text = r["value"]
            values: dict[int, int] = {}
            default = 0
            if ":" in text:
                for part in text.split(";"):
                    players, _, pts = part.partition(":")
                    n = _int(source, row, "value", players.strip(), 2, 5)
                    values[n] = _int(source, row, "value", pts.strip(), 1, 99)
            else:
                default = _int(source, row, "value", text, 1, 99)
            cards.append(Card(cid, code, deck, kind, name, final_values=values, final_default=default))
    cs = CardSet(cards, source)
    _check_composition(cs)
    return cs


def _check_composition(cs: CardSet) -> None:
    src = cs.source
    init_chars = [c for c in cs.cards if c.deck == "initial" and c.kind == "character"]
    init_hand = [c for c in cs.cards if c.deck == "initial" and c.kind == "hand"]
    if not init_chars or not init_hand:
        raise ConfigError(f"{src}: the initial deck needs characters (the display) and hand cards (the market)")
    if any(c.deck == "initial" and c.kind == "trap" for c in cs.cards):
        raise ConfigError(f"{src}: traps cannot be initial cards")
    if len(init_chars) < 5:
        raise ConfigError(f"{src}: {len(init_chars)} initial characters; 5 players need at least 5")
    forest_hand = sum(1 for c in cs.cards if c.deck == "forest" and c.kind == "hand")
    if forest_hand < 3 * 5:
        raise ConfigError(f"{src}: {forest_hand} hand cards in the forest deck; the deal needs at least 15")
    for n in (2, 3, 4, 5):
        if not cs.finals_for(n):
            raise ConfigError(f"{src}: no final enemy in play with {n} players")
    if any(e == "voodoo" for e in cs.ht_effect) and cs.take_back[cs.hand_types[cs.ht_effect.index("voodoo")]]:
        raise ConfigError(f"{src}: a voodoo doll never goes to the market; its take_back must be empty")


PATH_LIMIT = 200  # characters of a path a message shows: real paths fit, a pasted 5000 do not


def _shown(path: str) -> str:
    """The path as messages name it: whole, or quoted and cut when absurdly long."""
    return path if len(path) <= PATH_LIMIT else brief(path, PATH_LIMIT)


@functools.lru_cache(maxsize=8)
def load_cards(path: str = "") -> CardSet:
    """The card set at ``path`` ('' = the bundled default), validated; cached per path.

    Every problem, reading the file included, is a ``ConfigError``: the callers (a game's config,
    a saved state, a training config, a replayed log) report those in one line."""
    p = Path(path) if path else DEFAULT_CARDS
    source = _shown(str(p))
    try:
        found = p.is_file()
        # Decoded whole before parsing, so a bad byte is reported once with its file offset.
        # A spreadsheet's "CSV UTF-8" starts with a byte order mark: it is not part of "code".
        text = p.read_bytes().decode("utf-8").removeprefix("\ufeff") if found else ""
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{source}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
            "save the card list as UTF-8 CSV"
        ) from None
    except OSError as exc:  # a name too long, no permission, a file that vanished: never a traceback
        raise ConfigError(f"{source}: cannot read the card list ({exc.strerror or exc})") from None
    if not found:
        raise ConfigError(
            f"cards={brief(path, PATH_LIMIT)}: no such file; "
            f"give the path of a CSV card list like {DEFAULT_CARDS}"
        )
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames or []
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise ConfigError(f"{source}: missing column(s) {missing}; the header must be {','.join(COLUMNS)}")
        rows = list(reader)
    except csv.Error as exc:  # csv's own words name its internals ("field limit"); say what to fix
        problem = (f"a field is longer than {csv.field_size_limit()} characters" if "field limit" in str(exc)
                   else f"not valid CSV ({brief(str(exc))})")
        raise ConfigError(f"{source}, line {reader.line_num}: {problem}") from None
    return parse_rows(rows, source)
