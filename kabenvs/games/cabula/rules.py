"""Cábula: collect five stars before the other witches and wizards (2-6 players).

Each turn a player draws one card (a curse is shown and resolved at once), then plays one card or
an allowed set, or passes. Stars go on the table; monsters (same kind only, 1-4 of them), spells
(one or a pair of identical cards) and curses move stars and cards around. Magic wands are played
out of turn, only when a curse hits their holder. The first player to reach five displayed stars
wins (a double star counts two but never wins on the turn it is played).

The state keeps a stack of pending effects; every draw is one card at a time and a curse drawn in
the middle of a multi-card draw is resolved completely (wand windows, Necromancy's own draws)
before the rest of the draw goes on. Every out-of-turn choice is a decision of whoever decides,
with ``current_player`` pointing at them.

Rulebook points this engine had to interpret (each is also in docs/games/cabula.md and a test):

1. Deck split: the rulebook gives only totals; the per-type split is the project default of
   docs/games/cabula.md, every count a config field. One double star per player.
2. Setup: every hand is cleared of curses (replacements dealt from the deck, again and again),
   one player after the other; then the set-aside curses are shuffled back with the rest of the
   deck. The first player is drawn at random (the rulebook's "last to perform magic / youngest").
3. Win check: playing a single star, a robbery (3 monsters) or chaos (4 monsters) that brings the
   player's displayed total to five or more wins at once. Playing a double star never wins at
   once. At the start of every turn, before the draw, the player whose turn it is wins if their
   displayed total is five or more (this is the double-star check; other ways to hold five without
   winning at once do not exist).
4. Who chooses which star (star or double star) when the text does not say: Thieving Witch - the
   victim (the text); prank (2 monsters) - the victim, who "gives up" a star; robbery (3 monsters)
   - the victim, who "gives" it; chaos (4 monsters) - the player sending the monsters chooses both
   the lost and the stolen star (the rulebook's FAQ); cauldron (1) - the victim, who is "asked to
   pick up" one. A choice is only asked when the victim displays both kinds.
5. Chaos (4 monsters) takes both stars from the victim's displayed stars (transcriber's note: the
   Spanish original; the printed English says "from their hand"). The lost star is settled first;
   a victim with a single displayed card loses it and gives nothing.
6. Targets: any other player may be targeted, also one the effect cannot touch (no stars, empty
   hand): the card is spent for nothing. With two players the target is implied and not asked.
7. Spell-book pairs: "spells can be played individually or in pairs"; a pair of +3 spell books
   draws 6 (config ``spell_book_pairs``, default on; off = spell books one at a time).
8. Crystal ball: the taken card goes to the taker's hand (a star too). One ball takes a card at
   random; with two the taker sees the victim's whole hand (remembered while those cards stay
   there) and chooses.
9. Magic wands: the player a curse hits is always asked (only "take the curse" is legal without
   a wand; skipping the question would tell everyone they hold none), also when the curse would
   do nothing to them. One wand cancels; two cancel and turn it on another player (never back on the holder),
   who receives it "as if they had drawn it": they may answer with their own wands, and so on.
   A cancelled curse is not replaced by a new draw. Wands go to the discard pile.
10. Curses go to the discard pile as soon as they are drawn. Necromancy: a hand over five
    discards (its holder picks each card, one by one, face up); a hand under five draws one card at
    a time until it holds five, curses drawn meanwhile being resolved at once and not counting as
    hand cards. A curse drawn during a multi-card draw counts as one of its cards (Alicia).
11. Empty deck: "if at any point the deck runs out" the discard pile is shuffled into a new deck
    at once: the moment the deck's last card is taken (the card just drawn, a curse too, is not in
    the pile yet), or, if the pile was empty then, as soon as it holds a card again (checked before
    every decision and every draw). If both are empty the draw (and the rest of that effect's
    draws) is lost. Necromancy also stops when no card that could join a
    hand is left in the deck or the discard pile (otherwise curses could be reshuffled forever).
12. Passing is always allowed. Curses drawn at the start of the turn do not end it.
13. Limits: ``max_turns`` turns (default 500) end the game by truncation; as a safety net a game
    also truncates after ``max_decisions()`` decisions (never reached in practice).
14. Information state: own hand; every player's displayed stars and hand size; the discard pile;
    the deck size; per other hand the cards the seat is sure of (seen with two crystal balls,
    returned by a cauldron, taken from the seat), up to two groups "r of these cards are still
    there" (after a card left unseen) and the cards drawn unseen from the rebuilt deck; the rebuilt
    deck's contents less what the seat saw leave it (knowledge.py, updated on every public or
    private event); and what each other player knows of the seat's own hand, as far as the seat
    can work it out (the shadow: the same rules run on the events the seat saw that player see);
    the cards hidden from the seat counted by generation (the start, each rebuilt deck: least and
    most of each type) and which generations each other hand may hold (generations.py), which is
    what putting hands together needs. The last main decision (who, pass or which card and how many), the last attack
    (card, count, attacker, victim; a curse turned with two wands counts), the last attack each
    player made (kind, victim) and who turned a pending curse are public and in the observation. The card taken with two crystal
    balls reads as hidden to every seat but the taker and the victim.
15. Rewards: the winner +1, every other player -1; truncation 0 for all.
"""

from __future__ import annotations

import array
import dataclasses
from operator import add, gt, itemgetter, lt
from typing import ClassVar

import numpy as np

from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.game import Game, State, winners_line
from kabenvs.core.observation import ObservationLayout
from kabenvs.games.cabula import cards as C
from kabenvs.games.cabula import generations as GEN
from kabenvs.games.cabula import knowledge as KN
from kabenvs.games.cabula.encoding import encode
from kabenvs.games.cabula.resample import logged_events, resample, world_holding
from kabenvs.games.cabula.cards import (
    BALL, BOOK, CAULDRON, DOUBLE, HAND_SIZE, HAND_TYPES, IS_CURSE, MONSTERS, NECRO, NUM_TYPES,
    PARCHMENT, PLURAL, SINGULAR, STAR, WAND, WIN_STARS, WITCH,
)

_hand_counts = itemgetter(*HAND_TYPES)  # a row's non-curse counts, as one tuple (read at C speed)
DECISIONS_PER_TURN_CAP = 60  # safety-net bound per turn (note 13); real turns use a handful
STAR_REASONS = ("witch", "prank", "rob", "chaos_lose", "chaos_give", "cauldron")
# Who picks the star (note 4): "v" = victim, "a" = attacker.
STAR_CHOOSER = {"witch": "v", "prank": "v", "rob": "v", "chaos_lose": "a", "chaos_give": "a", "cauldron": "v"}
DECISION_KINDS = ("main", "target", "wand", "redirect", "star", "discard", "take")


@dataclasses.dataclass(frozen=True)
class CabulaConfig(GameConfig):
    num_players: int = 2
    max_turns: int = 500
    spell_book_pairs: bool = True
    # Deck split (project defaults, docs/games/cabula.md); double stars are one per player, not a field.
    star: int = C.DEFAULT_COUNTS["star"]
    thieving_witch: int = C.DEFAULT_COUNTS["thieving_witch"]
    necromancy: int = C.DEFAULT_COUNTS["necromancy"]
    skull: int = C.DEFAULT_COUNTS["skull"]
    dragon: int = C.DEFAULT_COUNTS["dragon"]
    cyclops: int = C.DEFAULT_COUNTS["cyclops"]
    minotaur: int = C.DEFAULT_COUNTS["minotaur"]
    kraken: int = C.DEFAULT_COUNTS["kraken"]
    crystal_ball: int = C.DEFAULT_COUNTS["crystal_ball"]
    cauldron: int = C.DEFAULT_COUNTS["cauldron"]
    parchment: int = C.DEFAULT_COUNTS["parchment"]
    spell_book: int = C.DEFAULT_COUNTS["spell_book"]
    magic_wand: int = C.DEFAULT_COUNTS["magic_wand"]

    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (2, 3, 4, 5, 6)

    def validate(self) -> None:
        super().validate()
        self.check_int("max_turns", 1, 100_000)
        self.check_bool("spell_book_pairs")
        for key in C.DEFAULT_COUNTS:
            self.check_int(key, 0, 200)
        comp = self.composition()
        hand_cards = sum(comp[c] for c in HAND_TYPES)
        if hand_cards < HAND_SIZE * self.num_players:
            self.fail(
                f"the deck holds {hand_cards} non-curse cards; dealing {HAND_SIZE} curse-free cards to "
                f"{self.num_players} players needs at least {HAND_SIZE * self.num_players}"
            )

    def composition(self) -> list[int]:
        return C.composition({k: getattr(self, k) for k in C.DEFAULT_COUNTS}, self.num_players)


def _play_name(card: int, cnt: int) -> str:
    if cnt == 1:
        return f"play {SINGULAR[card]}" if card not in (STAR, DOUBLE) else f"play a {SINGULAR[card]}"
    return f"play {cnt} {PLURAL[card]}"


class CabulaGame(Game):
    name = "cabula"
    env_id = "cabula_v0"
    Config = CabulaConfig
    # resample_hidden draws in card order, never in the true cards' order (kit-checked)
    worlds_depend_only_on_information = True
    test_configs = [
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 5},
        {"num_players": 6},
        {"num_players": 3, "max_turns": 12, "spell_book_pairs": False},
    ]

    def __init__(self, config=None, **options) -> None:
        super().__init__(config, **options)
        cat = self.catalog
        n = self.num_players
        self.composition = self.config.composition()
        self.total_cards = sum(self.composition)
        self.pass_id = cat.id("pass")
        self.play_ids = {move: cat.id("play", *move) for move in self.play_moves()}
        self.target_ids = [None] + [cat.id("target", k) for k in range(1, n)]
        self.wand_ids = [cat.id("wand", w) for w in range(3)]
        self.star_ids = [cat.id("star", s) for s in range(2)]
        self.discard_ids = {c: cat.id("discard", c) for c in HAND_TYPES}
        self.take_ids = {c: cat.id("take", c) for c in HAND_TYPES}
        # Main-phase table: (card, count, id), checked in order against the hand.
        self.play_table = [(c, k, i) for (c, k), i in self.play_ids.items()]
        # The same moves grouped by card, in the table's order (a card's counts ascending, pairs
        # of spell books only when allowed): legality reads each card's count in hand once.
        pairs_ok = self.config.spell_book_pairs
        self.play_groups: list[tuple[int, list[tuple[int, int]]]] = []
        for c, k, i in self.play_table:
            if k > 1 and c == BOOK and not pairs_ok:
                continue
            if not self.play_groups or self.play_groups[-1][0] != c:
                self.play_groups.append((c, []))
            self.play_groups[-1][1].append((k, i))
        # id -> (kind, move) lookups for _apply, as plain lists (faster than method calls).
        self.kind_of = [cat.kind(a) for a in range(cat.size)]
        self.move_of = [cat.move(a) for a in range(cat.size)]
        self.obs_offsets = {name: self.layout.offset(name) for name in self.layout.blocks()}
        self.inv_comp_list = [1.0 / k if k else 0.0 for k in self.composition]
        # encoding.py: a generation's least, then most; an array of doubles, so that the compiled
        # encoder (encoding.pxd) reads it as a typed buffer and multiplies in C (item reads give
        # the same Python floats as the list did)
        self.inv_comp_twice = array.array("d", self.inv_comp_list * 2)
        # encoding._write_counts' values: scaled[c][k] is k * inv_comp_list[c] (fifths[c][k]:
        # k * 0.2) for every count k from -total_cards to total_cards (a negative k at its usual
        # index from the end), the very doubles the products give: a look-up instead of an
        # int-times-float product, which costs Python about as much as the store itself
        top = self.total_cards
        counts = list(range(top + 1)) + list(range(-top, 0))
        self.scaled_counts = [[k * inv for k in counts] for inv in self.inv_comp_list]
        self.fifth_counts = [[k * 0.2 for k in counts]] * NUM_TYPES
        # The spans of the observation holding a seat's knowledge rows (known_hands up to the end
        # of maybe2_count) and the shadow rows about its hand (their_known up to the end of
        # their_spent, their_fresh left at zero); encoding.py memoises each per seat.
        self.known_span = (self.obs_offsets["known_hands"], self.obs_offsets["fresh"])
        self.shadow_span = (self.obs_offsets["their_known"],
                            self.obs_offsets["their_spent"] + (n - 1) * NUM_TYPES)
        # ... and the public rows (encoding.py copies them rotated: one row per hand, this wide)
        if n >= 3:
            self.public_width = 3 * NUM_TYPES + 4
            self.public_lo = self.obs_offsets["public_hands"]

    def play_moves(self) -> list[tuple[int, int]]:
        moves = [(STAR, 1), (DOUBLE, 1)]
        moves += [(m, k) for m in MONSTERS for k in range(1, 5)]
        moves += [(s, k) for s in (BALL, CAULDRON, PARCHMENT, BOOK) for k in (1, 2)]
        return moves

    def build_catalog(self) -> ActionCatalog:
        n = self.num_players
        cat = ActionCatalog()
        cat.add("pass", name="pass", describe="main decision: play nothing this turn (always allowed)")
        cat.add(
            "play", self.play_moves(), name=_play_name,
            describe="main decision: play (card, count); monsters 1-4 of one kind, spells 1 or a pair",
        )
        cat.add(
            "target", [(k,) for k in range(1, n)],
            name=lambda k: f"target the player {k} seat{'s' if k > 1 else ''} clockwise",
            describe="choose the victim of the card just played, or of a curse turned with two wands "
                     "(seat-relative, k seats clockwise)",
        )
        cat.add(
            "wand", [(w,) for w in range(3)],
            name=lambda w: ("take the curse", "cancel the curse with 1 magic wand",
                            "cancel and turn the curse with 2 magic wands")[w],
            describe="out of turn, when a curse hits you: answer with 0, 1 or 2 magic wands (only 0 without one)",
        )
        cat.add(
            "star", [(s,) for s in range(2)], name=lambda s: ("choose a star", "choose a double star")[s],
            describe="which displayed star (single or double) is lost, given, stolen or returned",
        )
        cat.add(
            "discard", [(c,) for c in HAND_TYPES], name=lambda c: f"discard a {SINGULAR[c]}",
            describe="Necromancy with more than five cards: discard one card of this type",
        )
        cat.add(
            "take", [(c,) for c in HAND_TYPES], name=lambda c: f"take a {SINGULAR[c]}",
            describe="two crystal balls: take a card of this type from the victim's hand",
        )
        return cat

    def build_layout(self) -> ObservationLayout:
        n = self.num_players
        T = NUM_TYPES
        lay = ObservationLayout()
        lay.add("my_hand", T, "my hand: count of each card type / 5")
        lay.add("hand_size", n, "cards in each hand (seat-relative, 0 = me) / 10")
        lay.add("displayed", (n, 2), "displayed stars and double stars of each player / 5")
        lay.add("star_total", n, "displayed total (double = 2) of each player / 5")
        lay.add("known_hands", (n, T), "cards I know for sure are in each other hand / 5 (row 0 unused)")
        lay.add("maybe_hands", (n, T + 1), "per other hand, my group of cards of which some surely remain: "
                "count per type, then unknown cards, / 5 (row 0 unused)")
        lay.add("maybe_count", n, "how many cards of that group surely remain in that hand / 5")
        lay.add("maybe2_hands", (n, T), "per other hand, my second group (certain cards of which at "
                "most one left unseen while I also held a group): count per type / 5 (row 0 unused)")
        lay.add("maybe2_count", n, "how many cards of that second group surely remain in that hand / 5")
        lay.add("fresh", n, "per other hand: cards I know it drew unseen from the current rebuilt deck / 5")
        # The cards hidden from me by generation (generations.py): what putting hands together needs.
        lay.add("gen_free", (GEN.SLOTS + 1, 2, T), "the cards hidden from me (other hands and deck), least "
                "and most of each type / that type's count, per generation: row 0 the cards I saw go into "
                "another hand, then the current deck's generation, the one before, and the older ones")
        lay.add("gen_where", (n, GEN.SLOTS + 1), "per other hand (row 0 unused): 1 where it may hold cards of "
                "that row of gen_free")
        lay.add("gen_count", 1, "generations kept / " + str(GEN.SLOTS) + " (the start, then one per rebuilt "
                "deck; the oldest merge beyond that)")
        # What each other player knows of my hand, as far as I can work it out (knowledge.py, the
        # shadow): one row per other player, row k - 1 for the player k seats clockwise.
        m = n - 1
        lay.add("their_known", (m, T), "per other player (row k-1: k seats clockwise): the cards of my "
                "hand they know for sure / 5")
        lay.add("their_maybe", (m, T + 1), "per other player: their group about my hand: count per type, "
                "then unknown cards (mine they never saw, or a third player's draws it may count), / 5")
        lay.add("their_maybe_count", m, "per other player: how many cards of that group surely remain / 5")
        lay.add("their_maybe2", (m, T), "per other player: their second group about my hand, count per "
                "type / 5")
        lay.add("their_maybe2_count", m, "per other player: how many cards of it surely remain / 5")
        lay.add("their_fresh", m, "per other player: cards of my hand they know I drew from the current "
                "rebuilt deck / 5")
        lay.add("their_spent", (m, T), "per other player: cards I drew from the current rebuilt deck that "
                "they saw leave my hand knowing they came from it / 5")
        lay.add("my_rebuilt_draws", T, "the cards I drew from the current rebuilt deck / 5 (with their_spent: "
                "my part of each other player's view of the deck)")
        lay.add("rebuilt_draws", n, "seat-relative: how many cards each player drew from the current rebuilt "
                "deck, curses not counted / all cards")
        if n >= 3:
            # What everyone knows of each hand from the events all saw (knowledge.py, the public
            # rows): the part of another player's knowledge of a third hand I can follow.
            lay.add("public_hands", (n, 3 * T + 4), "per hand (seat-relative, row 0 = mine): what everyone "
                    "knows of it from those events: the cards it surely holds (14), a group (count per "
                    "type, then unknown cards: 15), how many of that group surely remain (1), a second "
                    "group (14), how many of it surely remain (1), and how many of its cards were drawn "
                    "from the current rebuilt deck (1); each / 5")
            lay.add("public_deck_cap", T, "after a reshuffle: the rebuilt deck less the cards everyone saw "
                    "leave it, per type / that type's count")
        lay.add("discard", T, "discard pile: count of each type / that type's count in the deck")
        lay.add("deck_size", 1, "cards in the deck / all cards")
        lay.add("deck_floor", T, "cards I know for sure are in the deck, per type / that type's count")
        lay.add("deck_cap", T, "after a reshuffle: most cards of each type the deck can hold / count")
        lay.add("deck_cap_known", 1, "1 once the deck was rebuilt from the discard pile")
        lay.add("turn", n, "one-hot, seat-relative: whose turn it is")
        lay.add("to_move", n, "one-hot, seat-relative: who decides now")
        lay.add("decision", len(DECISION_KINDS), "one-hot: " + ", ".join(DECISION_KINDS))
        lay.add("context_card", T, "one-hot: card being targeted (target) or the curse (wand/redirect)")
        lay.add("context_count", 4, "one-hot: how many of that card were played (1-4)")
        lay.add("star_reason", len(STAR_REASONS), "one-hot star decision: " + ", ".join(STAR_REASONS))
        lay.add("context_player", n,
                "one-hot, seat-relative: the victim whose star or card is chosen (star, take)")
        lay.add("curse_turned_by", n,
                "one-hot, seat-relative: who turned the pending curse on its victim with two wands "
                "(wand/redirect decisions; all zero for a curse drawn from the deck)")
        lay.add("last_attack_card", T, "one-hot: the card of the last attack (a set played at a victim, "
                "or a curse turned with two wands)")
        lay.add("last_attack_count", 4, "one-hot: how many cards that attack played (2 for a turned curse)")
        lay.add("last_attacker", n, "one-hot, seat-relative: who made the last attack")
        lay.add("last_victim", n, "one-hot, seat-relative: whom the last attack targeted")
        lay.add("attack_made", (n, len(C.ATTACK_KINDS)),
                "one-hot per player: the kind of the last attack they made: " + ", ".join(C.ATTACK_KINDS))
        lay.add("attack_made_on", (n, n),
                "one-hot per player: whom their last attack targeted (seat-relative)")
        lay.add("last_play_card", T + 1,
                "one-hot: the last main decision: the card played (last entry: pass)")
        lay.add("last_play_count", 4, "one-hot: how many cards it played (1-4)")
        lay.add("last_player", n, "one-hot, seat-relative: who made the last main decision")
        lay.add("pending_draws", 1, "cards still to draw in pending multi-card draws / 6")
        lay.add("necromancy", n, "seat-relative: players with a Necromancy in progress")
        lay.add("turns", 1, "turns played / max_turns")
        return lay

    def max_decisions(self) -> int:
        return self.config.max_turns * DECISIONS_PER_TURN_CAP


def _public_field(k: int):
    """``State.added_fields``' value of public field ``k`` in a saved position that lacks it: empty
    rows, and after a rebuild a public view of the deck as it is (the cards drawn from it later
    are the unseen draws; what went before is not known)."""
    def value(game: "CabulaGame", fields: dict):
        v = KN.public_fields(game.num_players)[k]
        deck = fields.get("deck")
        if k == 4 and v and fields.get("deck_cap_known") is True and isinstance(deck, list):
            for c in deck:
                if type(c) is int and 0 <= c < NUM_TYPES:
                    v[c] += 1
        return v
    return value


def _generations_field(game: "CabulaGame", fields: dict) -> tuple[list, list]:
    """``gen_free`` and ``gen_where`` as at a deal of the saved position: what no one saw, one
    generation. Malformed fields give an empty value, which ``check_fields`` then names."""
    try:
        return GEN.start(game.composition, fields["hands"], fields["discard"], fields["display"])
    except Exception:  # noqa: BLE001 - the field checks that follow say what is wrong
        return [], []


class CabulaState(State):
    # The public rows came after the first saves (knowledge.py): older saves rebuild them.
    added_fields = {name: _public_field(k) for k, name in enumerate(
        ("public_known", "public_groups", "public_groups2", "public_fresh", "public_cap"))}
    # So did the generations (generations.py); a save without a start keeps the deal's values,
    # a true but coarser count after a rebuild (each field's function reads the same fields).
    added_fields["gen_free"] = lambda game, fields: _generations_field(game, fields)[0]
    added_fields["gen_where"] = lambda game, fields: _generations_field(game, fields)[1]
    game: CabulaGame

    # -- setup --------------------------------------------------------------------------------
    @classmethod
    def deal(cls, game: CabulaGame, rng: np.random.Generator) -> "CabulaState":
        s = cls(game, rng)
        n = game.num_players
        deck = [c for c, k in enumerate(game.composition) for _ in range(k)]
        # (.tolist(): the same permutation, indexed with ints instead of numpy scalars)
        deck = [deck[i] for i in rng.permutation(len(deck)).tolist()]
        s.hands = [[0] * NUM_TYPES for _ in range(n)]
        set_aside = []
        for p in range(n):
            for _ in range(HAND_SIZE):
                s.hands[p][deck.pop()] += 1
        # Note 2: discard dealt curses and replace them until no hand holds one.
        for p in range(n):
            hand = s.hands[p]
            while any(hand[c] for c in C.CURSES):
                for c in C.CURSES:
                    while hand[c]:
                        hand[c] -= 1
                        set_aside.append(c)
                        hand[deck.pop()] += 1
        deck += set_aside
        s.deck = [deck[i] for i in rng.permutation(len(deck)).tolist()]  # top of the deck = end of the list
        s.discard = [0] * NUM_TYPES
        s.display = [[0, 0] for _ in range(n)]
        # known[v * n + p]: the cards v is sure p's hand holds (None: nothing; kept sparse because
        # it is mostly empty and JSON round trips of the state are frequent)
        s.known = [None] * (n * n)
        # groups[v * n + p]: v's one disjunctive group about p's hand; fresh[v * n + p]: p's cards v
        # knows came from the current rebuilt deck (knowledge.py)
        s.groups = [None] * (n * n)
        # groups2[v * n + p]: v's second group about p's hand, (K, |K| - 1) kept at an unseen loss
        # from a hand with both certain cards and a group (knowledge.py)
        s.groups2 = [None] * (n * n)
        s.fresh = [0] * (n * n)
        # shadow_*[v * n + p]: p's reconstruction of v's row about p's hand (what v knows of p's
        # hand, as far as p can work it out), kept by the same rules from the events p saw v see
        # (knowledge.py). rebuilt_drawn[q]: the non-curse cards q drew from the current rebuilt deck
        # (q knows them; the others, how many); shadow_spent[v * n + p]: those of p's that the shadow
        # of v's row found were fresh when they left (None: none). p's draws less them are p's part
        # of deck_cap[v]; the other players' draws are the rest, of types p never saw.
        s.shadow_known = [None] * (n * n)
        s.shadow_groups = [None] * (n * n)
        s.shadow_groups2 = [None] * (n * n)
        s.shadow_fresh = [0] * (n * n)
        s.shadow_spent = [None] * (n * n)
        s.rebuilt_drawn = [[0] * NUM_TYPES for _ in range(n)]
        # public_*[p]: what every player knows of p's hand from the events everyone sees (cards
        # leaving it in plain view, stars a cauldron returned to it, cards leaving it unseen, its
        # draws from a rebuilt deck), by the same rules (knowledge.py) as a viewer who saw nothing
        # else; public_cap: the rebuilt deck's cards less those everyone saw leave it. It is the part
        # of what another player j knows of a third hand k that I can follow (docs item 5), so it
        # is kept, and observed, only with three players or more (empty lists with two).
        s.public_known, s.public_groups, s.public_groups2, s.public_fresh, s.public_cap = KN.public_fields(n)
        # gen_free[v], gen_where[v * n + p]: the cards hidden from v by generation (the start, each
        # rebuilt deck), and which of them p's hand may hold (generations.py; docs item 8)
        s.gen_free, s.gen_where = GEN.start(game.composition, s.hands, s.discard, s.display)
        floor = [0] * NUM_TYPES
        for c in C.CURSES:  # hands never hold curses, so every curse is known to be in the deck
            floor[c] = game.composition[c]
        s.deck_floor = [floor[:] for _ in range(n)]
        s.deck_cap = [[0] * NUM_TYPES for _ in range(n)]
        s.deck_cap_known = False
        s.stack = []
        s.turn = int(rng.integers(n))
        s.turn_count = 0
        s.winner = None
        s.last_attack = None  # [card, count, attacker, victim] of the last attack (public)
        s.attacks = [None] * n  # per player: [attack kind, victim] of the last attack they made
        # [player, card (-1: pass), count] of the last main decision (public). Without it a play
        # whose card went straight back into a rebuilt deck could look like a pass afterwards.
        s.last_play = None
        # Outcomes for the next chance events, used before the generator (see _next_chance):
        # empty in a dealt game; a resampled world's start holds its past (resample.py).
        s.chance = []
        s._start_turn(s.turn)
        s._advance()
        return s

    def touch(self) -> None:
        """As ``State.touch``; and since a hand edit moves cards the generation counts cannot
        follow, they start again from the edited position as at a deal (every card a seat cannot
        see, one generation): true whatever was edited, and what the edited start's replay keeps."""
        self.gen_free, self.gen_where = GEN.start(self.game.composition, self.hands, self.discard, self.display)
        super().touch()

    # -- caches and chance ---------------------------------------------------------------------------
    def _reset_caches(self) -> None:
        super()._reset_caches()
        # When a list, every card movement is appended to it (resample.py reads the true game's
        # movements this way); None in play, so the hot path pays one attribute test.
        self._log: list | None = None
        # resample.py: the real game's logged card movements, replayed once per position (a
        # search resamples one position many times); dropped with the other caches on restore,
        # clone and touch, and keyed by the history's length against later moves.
        self._resample_events = None
        # encoding.py: per seat, the span of its observation that holds its rows of known,
        # groups and groups2 (_known_memo), and the one that holds the shadow rows about its hand
        # (_shadow_memo: shadow_known, shadow_groups, shadow_groups2, shadow_spent), or False
        # when all zero. Every rules write that changes such a row drops the seats' memos it
        # touches: _rows_changed, or the same pops inline where the seats are known
        # (_forget_public, _move_hidden_card, a look, _return_to_hand).
        self._known_memo: dict = {}
        self._shadow_memo: dict = {}
        # encoding.py: the public rows encoded once for every seat, one row per hand in absolute
        # order (a seat's observation holds them rotated), or None (built on first use); the hands
        # whose rows changed since (the rules add them); public_cap encoded (None: changed).
        self._public_enc: np.ndarray | None = None
        self._public_flat: np.ndarray | None = None  # the same array, one dimension
        self._public_dirty: set = set()
        self._public_cap_enc: np.ndarray | None = None
        # Whether some seat's deck_floor may hold a non-curse card (None: not known yet, worked
        # out on demand). Until the first rebuild no floor does (a floor starts with the curses
        # only; _reshuffle and refloor are what put other cards in it, and set this), so each
        # non-curse draw can skip the other seats' floors.
        self._floor_hand_cards: bool | None = None
        # Per player, the cards in its rebuilt_drawn row (encoding.py's rebuilt_draws block),
        # kept by _draw and _reshuffle, the writers of rebuilt_drawn (None: worked out on demand).
        self._rebuilt_totals: list[int] | None = None
        # Per player, the cards in its hand (encoding.py's hand_size block), kept by every write
        # to hands after the deal (None: worked out on demand).
        self._hand_sizes: list[int] | None = None

    def _rows_changed(self, i: int | None = None, shadow: bool = False) -> None:
        """Row ``i`` of the real table (``shadow``: of the shadow table, or ``shadow_spent``)
        changed: its viewer's (the shadow: its hand owner's) memoised rows go (encoding.py).
        Without ``i``, every seat's go (the rare events that change many rows)."""
        if i is None:
            self._known_memo.clear()
            self._shadow_memo.clear()
            self._public_enc = None
        elif shadow:
            self._shadow_memo.pop(i % self.num_players, None)
        else:
            self._known_memo.pop(i // self.num_players, None)

    def _next_chance(self, kind: type):
        """The scripted outcome of the next chance event if the script holds one of ``kind``
        (list: a rebuilt deck; int: the card a single crystal ball takes), else None."""
        chance = self.chance
        if chance and type(chance[0]) is kind:
            return chance.pop(0)
        return None

    # -- small helpers ------------------------------------------------------------------------------
    def total(self, p: int) -> int:
        d = self.display[p]
        return d[0] + 2 * d[1]

    def hand_size(self, p: int) -> int:
        return sum(self.hands[p])

    def _win(self, p: int) -> None:
        self.winner = p
        self.stack.clear()
        self.current_player = None

    def _discard_from_hand(self, p: int, c: int, k: int = 1) -> None:
        """A public play or discard: everyone sees ``k`` cards of type ``c`` leave ``p``'s hand."""
        self._forget_public(p, c, k)
        self.hands[p][c] -= k
        if self._hand_sizes is not None:
            self._hand_sizes[p] -= k
        self.discard[c] += k
        if self._log is not None:
            self._log.append(("out", p, c, k))

    def known_cards(self, v: int, p: int) -> list[int]:
        """The cards ``v`` is sure ``p``'s hand holds, per type (a copy)."""
        kn = self.known[v * self.num_players + p]
        return kn[:] if kn is not None else [0] * NUM_TYPES

    def maybe_group(self, v: int, p: int) -> list[int] | None:
        """``v``'s group about ``p``'s hand: counts per type, unknown cards, survivors (a copy)."""
        g = self.groups[v * self.num_players + p]
        return g[:] if g is not None else None

    def second_group(self, v: int, p: int) -> list[int] | None:
        """``v``'s second group about ``p``'s hand (no unknown cards), same row format (a copy)."""
        g = self.groups2[v * self.num_players + p]
        return g[:] if g is not None else None

    def _tables(self) -> tuple[KN.Table, KN.Table]:
        """The real knowledge table and its shadow (knowledge.py): the same rules update both."""
        return ((self.known, self.groups, self.groups2, self.fresh),
                (self.shadow_known, self.shadow_groups, self.shadow_groups2, self.shadow_fresh))

    def _fresh_left(self, i: int, c: int, shadow: bool) -> None:
        """Row ``i``'s viewer saw a card ``c`` leave the hand that can only have been a fresh one:
        it leaves the viewer's ``deck_cap`` (in the shadow: the owner's part of it)."""
        if shadow:
            spent = self.shadow_spent[i]
            if spent is None:
                spent = self.shadow_spent[i] = [0] * NUM_TYPES
            spent[c] += 1
            self._rows_changed(i, True)
        else:
            v = i // self.num_players
            self.deck_cap[v][c] -= 1
            KN.refloor(self, v)
            self._floor_hand_cards = True

    def _forget_public(self, p: int, c: int, k: int) -> None:
        """Everyone sees ``k`` cards ``c`` leave ``p``'s hand (called before they leave)."""
        known, groups, groups2, fresh = self.known, self.groups, self.groups2, self.fresh
        sk, sg, sg2, sf = self.shadow_known, self.shadow_groups, self.shadow_groups2, self.shadow_fresh
        n = self.num_players
        sizes = self._hand_sizes  # the hand's size before the cards leave (every table below reads it)
        size = sizes[p] if sizes is not None else sum(self.hands[p])
        GEN.seen_leave(self, p, c, k, size - k)
        t_real = t_shadow = None
        for i in range(p, n * n, n):  # every viewer's row about p, and p's shadow of it
            # rows: a certain card or a group (what the observation memos hold); then fresh cards
            rows = known[i] is not None or groups[i] is not None or groups2[i] is not None
            shadow_rows = sk[i] is not None or sg[i] is not None or sg2[i] is not None
            real = rows or fresh[i]
            shadow = shadow_rows or sf[i]
            if not (real or shadow):
                continue  # the hot path: nothing known
            if t_real is None:
                t_real, t_shadow = (known, groups, groups2, fresh), (sk, sg, sg2, sf)
            # Rows about to change drop the memoised observation rows (encoding.py) of their viewer
            # (real) or of p (shadow); a fresh count alone is not in them (a fresh card found
            # spent changes shadow_spent: ``_fresh_left`` drops p's then).
            if rows and KN.leave_changes_rows(t_real, i, c, size, k):
                self._known_memo.pop(i // n, None)
            if shadow_rows and KN.leave_changes_rows(t_shadow, i, c, size, k):
                self._shadow_memo.pop(p, None)
            for j in range(k):
                if real and KN.seen_leave(t_real, i, c, size - j):
                    self._fresh_left(i, c, False)
                if shadow and KN.seen_leave(t_shadow, i, c, size - j):
                    self._fresh_left(i, c, True)
        pf = self.public_fresh
        if pf:  # three players or more: the public row about p, the same rule
            t_pub = self._public_table()
            rows = t_pub[0][p] is not None or t_pub[1][p] is not None or t_pub[2][p] is not None
            f = pf[p]
            if rows or f:
                if rows and KN.leave_changes_rows(t_pub, p, c, size, k):
                    self._public_dirty.add(p)
                for j in range(k):
                    if KN.seen_leave(t_pub, p, c, size - j):
                        self.public_cap[c] -= 1  # everyone knows it came from the rebuilt deck
                        self._public_cap_enc = None
                if pf[p] != f:
                    self._public_dirty.add(p)  # its fresh count (in the same encoded row)

    def _public_table(self) -> KN.Table:
        """The public rows (knowledge.py's table format, row ``p`` = hand ``p``)."""
        return (self.public_known, self.public_groups, self.public_groups2, self.public_fresh)

    def _move_hidden_card(self, victim: int, taker: int, c: int, chosen: bool) -> None:
        """A crystal ball moved one card ``c`` from ``victim``'s hand to ``taker``'s (``chosen``:
        picked after two balls; else drawn at random with one)."""
        if self._log is not None:
            self._log.append(("move", victim, taker, c, chosen))
        n = self.num_players
        size = sum(self.hands[victim])
        tables = self._tables()
        # Rows that change (encoding.py's memos): the victim's shadows of every row about its hand
        # and its row about the taker, the taker's shadow of that row, and the rows about the
        # victim of every viewer that has one (an unseen loss leaves an empty row as it was).
        self._shadow_memo.pop(victim, None)
        self._shadow_memo.pop(taker, None)
        memo = self._known_memo
        memo.pop(victim, None)
        known, groups, groups2 = self.known, self.groups, self.groups2
        for v in range(n):
            i = v * n + victim
            if known[i] is not None or groups[i] is not None or groups2[i] is not None:
                memo.pop(v, None)
        for v in range(n):
            i = v * n + victim
            if v == taker:
                for t, shadow in zip(tables, (False, True)):
                    if KN.seen_leave(t, i, c, size):
                        self._fresh_left(i, c, shadow)
            elif v != victim:  # the victim knows who saw the card and who did not
                for t in tables:
                    KN.unseen_leave(t, i, size)
        for t in tables:  # the victim saw which card left their hand (and the taker knows it)
            KN.plain_gain(t, victim * n + taker, c)
        if self.public_fresh:  # to everyone else a card left the victim's hand unseen
            t_pub = self._public_table()
            if (t_pub[0][victim] is not None or t_pub[1][victim] is not None or t_pub[2][victim] is not None
                    or t_pub[3][victim]):
                self._public_dirty.add(victim)
            KN.unseen_leave(t_pub, victim, size)
        GEN.moved(self, victim, taker, c, size - 1)
        self.hands[victim][c] -= 1
        self.hands[taker][c] += 1
        if self._hand_sizes is not None:
            self._hand_sizes[victim] -= 1
            self._hand_sizes[taker] += 1

    def _draw(self, p: int) -> int | None:
        """Draw the top card for ``p`` (reshuffling if needed); None when deck and discard are empty."""
        deck = self.deck
        if not deck:
            if not any(self.discard):
                return None
            self._reshuffle()
        c = deck.pop()
        if self._log is not None:
            self._log.append(("draw", p, c))
        GEN.drew(self, p, c)
        if self.deck_cap_known and not IS_CURSE[c]:
            n = self.num_players
            KN.unseen_draw(self.fresh, n, p)
            KN.unseen_draw(self.shadow_fresh, n, p)  # p knows every other seat counts it fresh
            pf = self.public_fresh
            if pf:
                f = pf[p] = pf[p] + 1
                enc = self._public_enc
                if enc is not None:  # its entry in the encoded rows (encoding.py), set in place
                    enc[p, -1] = f * 0.2
            self.rebuilt_drawn[p][c] += 1
            if self._rebuilt_totals is not None:
                self._rebuilt_totals[p] += 1
        floors = self.deck_floor
        caps = self.deck_cap if self.deck_cap_known else None
        if IS_CURSE[c]:  # shown to everyone
            for v in range(self.num_players):
                floors[v][c] -= 1
                if caps is not None:
                    caps[v][c] -= 1
            if caps is not None and self.public_cap:
                self.public_cap[c] -= 1
                self._public_cap_enc = None
        elif self._floors_hold_hand_cards():
            # Each floor is lowered, and whether one still holds a non-curse card is kept: most
            # rebuilt decks soon leave every floor with curses only (u grows with each unseen
            # draw), and later draws then skip this loop (71% of these draws at 6 players).
            held = False
            for v in range(self.num_players):
                f = floors[v]
                if v == p:
                    if f[c]:
                        f[c] -= 1
                    if caps is not None:
                        caps[v][c] -= 1
                elif any(_hand_counts(f)):  # some non-curse card left the deck: each type may have been it
                    for t in HAND_TYPES:
                        if f[t]:
                            f[t] -= 1
                if not held:
                    held = any(_hand_counts(f))
            self._floor_hand_cards = held
        elif caps is not None:  # (no floor holds a non-curse card: nothing to lower there)
            caps[p][c] -= 1
        if not deck and any(self.discard):  # note 11: the deck ran out; rebuilt at once
            self._reshuffle()
        return c

    def _floors_hold_hand_cards(self) -> bool:
        """Whether some seat's ``deck_floor`` may hold a non-curse card (the cache above)."""
        held = self._floor_hand_cards
        if held is None:
            held = self._floor_hand_cards = any(f[t] for f in self.deck_floor for t in HAND_TYPES)
        return held

    def _reshuffle(self) -> None:
        pile = [c for c, k in enumerate(self.discard) for _ in range(k)]
        scripted = self._next_chance(list)
        if scripted is not None and sorted(scripted) == pile:
            self.deck[:] = scripted
        else:  # a script that does not fit (a tampered save) is ignored: the replay check sees it
            self.deck[:] = [pile[i] for i in self.rng.permutation(len(pile)).tolist()]
        if self._log is not None:
            self._log.append(("shuffle", self.deck[:]))
        GEN.rebuilt(self, self.discard[:])
        n = self.num_players
        self._rows_changed()  # groups made of fresh cards, shadow_spent emptied
        if self.deck_cap_known:
            real, shadow = self._tables()
            caps = self.deck_cap
            KN.deck_ran_out(real, lambda i, f: caps[i // n] + [0])
            KN.deck_ran_out(shadow, self._shadow_cap_of)
            if self.public_fresh:
                KN.deck_ran_out(self._public_table(), lambda i, f: self.public_cap + [0])
        for v in range(n):
            self.deck_floor[v] = self.discard[:]
            self.deck_cap[v] = self.discard[:]
        self._floor_hand_cards = True
        self.shadow_spent = [None] * (n * n)
        if self.public_fresh:
            self.public_cap = self.discard[:]
            self._public_cap_enc = None
        self.rebuilt_drawn = [[0] * NUM_TYPES for _ in range(n)]
        self._rebuilt_totals = [0] * n
        self.deck_cap_known = True
        self.discard = [0] * NUM_TYPES

    def shadow_cap(self, i: int) -> list[int]:
        """Row ``i`` = ``v * n + p``: ``p``'s part of ``deck_cap[v]``, per type: the cards ``p`` drew
        from the current rebuilt deck less those the shadow of ``v``'s row found were fresh when
        they left (a copy)."""
        drawn = self.rebuilt_drawn[i % self.num_players]
        spent = self.shadow_spent[i]
        return drawn[:] if spent is None else [d - k for d, k in zip(drawn, spent)]

    def _shadow_cap_of(self, i: int, f: int) -> list[int]:
        """What row ``i``'s hand owner ``p`` can know of viewer ``v``'s ``deck_cap`` when the rebuilt
        deck runs out (the cards ``v`` did not see drawn from it), as a group row less its count:
        per type, ``p``'s own part (``shadow_cap``); then, as unknown cards, the third players'
        draws, whose types ``p`` never saw, at most ``f`` of them (of ``f`` survivors no more can be
        theirs). With two players there are none: the shadow is exact (docs, item 5)."""
        v, p = divmod(i, self.num_players)
        third = sum(sum(row) for q, row in enumerate(self.rebuilt_drawn) if q != v and q != p)
        return self.shadow_cap(i) + [min(f, third)]

    def _pool_has_hand_card(self) -> bool:
        disc = self.discard
        return any(disc[c] for c in HAND_TYPES) or any(not IS_CURSE[c] for c in self.deck)

    # -- the turn and the effect stack -------------------------------------------------------------
    def _start_turn(self, p: int) -> None:
        self.turn = p
        if self.turn_count >= self.game.config.max_turns:
            self.truncated = True
            self.current_player = None
            self.stack.clear()
            return
        self.turn_count += 1
        if self.total(p) >= WIN_STARS:  # note 3: the delayed double-star win
            self._win(p)
            return
        self.stack = [{"k": "end"}, {"k": "main", "p": p}, {"k": "draw", "p": p, "n": 1}]

    def _over(self) -> bool:
        return self.winner is not None or self.truncated

    def _advance(self) -> None:
        """Run automatic effects until someone must decide (or the game ends).

        Note 11: the deck is rebuilt "at any point" it runs out. ``_draw`` rebuilds it the moment
        its last card is taken; if the discard pile was empty then, it is rebuilt as soon as the
        pile holds a card again, which this check makes so before anyone decides."""
        self._run_effects()
        if not self.deck and self.current_player is not None and any(self.discard):
            self._reshuffle()

    def _run_effects(self) -> None:
        n = self.num_players
        while True:
            if self.winner is not None or self.truncated:  # _over(), inlined (once an iteration)
                self.current_player = None
                return
            stack = self.stack
            if not stack:
                self._start_turn((self.turn + 1) % n)
                continue
            f = stack[-1]
            k = f["k"]
            if k == "draw":
                if f["n"] <= 0:
                    stack.pop()
                    continue
                p = f["p"]
                c = self._draw(p)
                if c is None:  # note 11: nothing left to draw anywhere
                    stack.pop()
                    continue
                f["n"] -= 1
                if IS_CURSE[c]:
                    self.discard[c] += 1
                    stack.append({"k": "curse", "p": p, "c": c, "stage": "respond", "by": None})
                else:
                    self.hands[p][c] += 1
                    if self._hand_sizes is not None:
                        self._hand_sizes[p] += 1
            elif k == "end":
                stack.pop()
            elif k == "main":
                self.current_player = f["p"]
                return
            elif k == "target":
                if n == 2:
                    stack.pop()
                    self._attack(f["card"], f["cnt"], f["p"], 1 - f["p"])
                    self._targeted_effect(f["p"], f["card"], f["cnt"], 1 - f["p"])
                    continue
                self.current_player = f["p"]
                return
            elif k == "curse":
                p = f["p"]
                # Always asked, wand or not (note 9): skipping the question would tell everyone
                # that the victim holds no wand.
                if f["stage"] == "redirect" and n == 2:
                    self._turn_curse(f, p, 1 - p)
                    continue
                self.current_player = p
                return
            elif k == "star":
                d = self.display[f["v"]]
                if d[0] and d[1]:
                    self.current_player = f["p"]
                    return
                stack.pop()
                if d[0] or d[1]:
                    self._star_chosen(f, 0 if d[0] else 1)
            elif k == "necro":
                p = f["p"]
                hand = self.hands[p]
                size = sum(hand)
                if size > HAND_SIZE:  # asked even with one type held: no tell about the hand
                    self.current_player = p
                    return
                elif size == HAND_SIZE or not self._pool_has_hand_card():
                    stack.pop()
                else:
                    c = self._draw(p)
                    if c is None:
                        stack.pop()
                    elif IS_CURSE[c]:
                        self.discard[c] += 1
                        stack.append({"k": "curse", "p": p, "c": c, "stage": "respond", "by": None})
                    else:
                        hand[c] += 1
                        if self._hand_sizes is not None:
                            self._hand_sizes[p] += 1
            elif k == "take":
                if not any(self.hands[f["v"]]):
                    stack.pop()
                    continue
                self.current_player = f["p"]
                return
            else:  # pragma: no cover - a corrupted stack
                raise RuntimeError(f"unknown pending effect {f!r}")

    def _turn_curse(self, f: dict, by: int, t: int) -> None:
        """Two wands: the curse of frame ``f`` now hits ``t``, who may answer in turn. Who turned
        it on whom is public (note 14): kept in the frame and as the last attack."""
        f["p"] = t
        f["by"] = by
        f["stage"] = "respond"
        self._attack(f["c"], 2, by, t)

    def _attack(self, card: int, cnt: int, a: int, v: int) -> None:
        """Public record (note 14): the last attack, and the last one each player made."""
        self.last_attack = [card, cnt, a, v]
        self.attacks[a] = [C.attack_kind(card, cnt), v]

    def _curse_hits(self, p: int, c: int) -> None:
        """The curse ``c`` takes effect on ``p`` (no wand was used)."""
        if c == WITCH:
            self.stack.append({"k": "star", "why": "witch", "p": p, "v": p, "a": p})
        elif c == NECRO:
            self.stack.append({"k": "necro", "p": p})
        else:  # SKULL: every displayed star goes to the discard pile
            d = self.display[p]
            self.discard[STAR] += d[0]
            self.discard[DOUBLE] += d[1]
            d[0] = d[1] = 0

    def _play(self, p: int, card: int, cnt: int) -> None:
        hand = self.hands[p]
        if card == STAR or card == DOUBLE:
            self._forget_public(p, card, 1)
            hand[card] -= 1
            if self._hand_sizes is not None:
                self._hand_sizes[p] -= 1
            if self._log is not None:
                self._log.append(("out", p, card, 1))
            self.display[p][0 if card == STAR else 1] += 1
            if card == STAR and self.total(p) >= WIN_STARS:
                self._win(p)
            return
        self._discard_from_hand(p, card, cnt)
        if card in C.DRAW_SPELLS:
            self.stack.append({"k": "draw", "p": p, "n": C.DRAW_SPELLS[card] * cnt})
        elif card in MONSTERS and cnt == 1:
            self.stack.append({"k": "draw", "p": p, "n": 1})
        else:
            self.stack.append({"k": "target", "p": p, "card": card, "cnt": cnt})

    def _targeted_effect(self, a: int, card: int, cnt: int, v: int) -> None:
        stack = self.stack
        if card == BALL:
            hand = self.hands[v]
            if cnt == 2:
                # the attacker looks at the whole hand (and its owner knows what it saw)
                for t in self._tables():
                    KN.look(t, a * self.num_players + v, hand)
                GEN.looked(self, a, v, hand)
                self._known_memo.pop(a, None)  # a's row about v
                self._shadow_memo.pop(v, None)  # v's shadow of it
                if self._log is not None:
                    self._log.append(("look", a, v))
                stack.append({"k": "take", "p": a, "v": v})
                return
            size = sum(hand)
            if size:
                c = self._next_chance(int)
                if c is None or not 0 <= c < NUM_TYPES or not hand[c]:
                    r = int(self.rng.integers(size))
                    for c in HAND_TYPES:
                        r -= hand[c]
                        if r < 0:
                            break
                self._move_hidden_card(v, a, c, False)
        elif card == CAULDRON:
            if cnt == 1:
                stack.append({"k": "star", "why": "cauldron", "p": v, "v": v, "a": a})
            else:
                d = self.display[v]
                self._return_to_hand(v, STAR, d[0])
                self._return_to_hand(v, DOUBLE, d[1])
                d[0] = d[1] = 0
        elif cnt == 2:
            stack.append({"k": "star", "why": "prank", "p": v, "v": v, "a": a})
        elif cnt == 3:
            stack.append({"k": "star", "why": "rob", "p": v, "v": v, "a": a})
        else:  # chaos: the lost star is settled first (note 5), the attacker picks both
            stack.append({"k": "star", "why": "chaos_give", "p": a, "v": v, "a": a})
            stack.append({"k": "star", "why": "chaos_lose", "p": a, "v": v, "a": a})

    def _return_to_hand(self, v: int, card: int, k: int) -> None:
        if not k:
            return
        self.hands[v][card] += k
        if self._hand_sizes is not None:
            self._hand_sizes[v] += k
        if self._log is not None:
            self._log.append(("in", v, card, k))
        n = self.num_players
        # every other viewer's row about v changes (their memos go), and v's shadows of them
        self._known_memo = {v: self._known_memo[v]} if v in self._known_memo else {}
        self._shadow_memo.pop(v, None)
        for t in self._tables():
            for w in range(n):
                if w != v:
                    KN.plain_gain(t, w * n + v, card, k)  # returned in plain view
        GEN.gained(self, v, card, k)
        if self.public_fresh:
            KN.plain_gain(self._public_table(), v, card, k)
            self._public_dirty.add(v)

    def _star_chosen(self, f: dict, s: int) -> None:
        v, a, why = f["v"], f["a"], f["why"]
        card = STAR if s == 0 else DOUBLE
        self.display[v][s] -= 1
        if why in ("witch", "prank", "chaos_lose"):
            self.discard[card] += 1
        elif why == "cauldron":
            self._return_to_hand(v, card, 1)
        else:  # rob, chaos_give: placed in front of the attacker (note 3: five wins at once)
            self.display[a][s] += 1
            if self.total(a) >= WIN_STARS:
                self._win(a)

    # -- the contract ------------------------------------------------------------------------------
    def _legal_actions(self) -> list[int]:
        g = self.game
        f = self.stack[-1]
        k = f["k"]
        p = self.current_player
        if k == "main":
            hand = self.hands[p]
            out = [g.pass_id]
            for c, moves in g.play_groups:  # the play table's order, one card at a time
                held = hand[c]
                if held:
                    for cnt, i in moves:
                        if cnt > held:
                            break
                        out.append(i)
            return out
        if k == "target":
            return g.target_ids[1:]
        if k == "curse":
            if f["stage"] == "redirect":
                return g.target_ids[1:]
            return g.wand_ids[: min(2, self.hands[p][WAND]) + 1]
        if k == "star":
            return g.star_ids[:]
        if k == "necro":
            hand = self.hands[p]
            return [g.discard_ids[c] for c in HAND_TYPES if hand[c]]
        if k == "take":
            hand = self.hands[f["v"]]
            return [g.take_ids[c] for c in HAND_TYPES if hand[c]]
        raise RuntimeError(f"no decision for pending effect {f!r}")  # pragma: no cover

    def _apply(self, action: int) -> None:
        g = self.game
        kind = g.kind_of[action]
        move = g.move_of[action]
        p = self.current_player
        stack = self.stack
        f = stack[-1]
        if kind == "pass":
            stack.pop()
            self.last_play = [p, -1, 1]
        elif kind == "play":
            stack.pop()
            self.last_play = [p, move[0], move[1]]
            self._play(p, move[0], move[1])
        elif kind == "target":
            t = (p + move[0]) % self.num_players
            if f["k"] == "curse":  # two wands: the curse now hits t, who may answer in turn
                self._turn_curse(f, p, t)
            else:
                stack.pop()
                self._attack(f["card"], f["cnt"], p, t)
                self._targeted_effect(p, f["card"], f["cnt"], t)
        elif kind == "wand":
            w = move[0]
            if w == 0:
                stack.pop()
                self._curse_hits(p, f["c"])
            else:
                self._discard_from_hand(p, WAND, w)
                if w == 1:
                    stack.pop()
                else:
                    f["stage"] = "redirect"
        elif kind == "star":
            stack.pop()
            self._star_chosen(f, move[0])
        elif kind == "discard":
            self._discard_from_hand(p, move[0])
        else:  # take
            stack.pop()
            self._move_hidden_card(f["v"], p, move[0], True)
        if self.winner is None:
            self._advance()
        else:
            self.current_player = None
        if self.current_player is not None and len(self.history) >= g.max_decisions():
            self.truncated = True  # note 13: safety net
            self.current_player = None
            self.stack.clear()

    def action_names(self, action: int) -> list[str]:
        # action_name_for for every seat, without a call per seat: only a take can read differently
        g = self.game
        if g.kind_of[action] != "take":
            return [g.catalog.name(action)] * self.num_players
        return [self.action_name_for(action, seat) for seat in range(self.num_players)]

    def action_name_for(self, action: int, seat: int | None) -> str:
        # Only one move is ever hidden: the card a taker picks after two crystal balls. The taker
        # and the victim see it; every other seat only sees that a card changed hands.
        if seat is None or seat == self.current_player or self.game.kind_of[action] != "take":
            return self.game.catalog.name(action)
        if seat == self.stack[-1]["v"]:
            return self.game.catalog.name(action)
        return "take a card (hidden)"

    def winners(self) -> list[int]:
        return [] if self.winner is None else [self.winner]

    def scores(self) -> list[float]:
        return [float(self.total(p)) for p in range(self.num_players)]

    def final_info(self) -> dict:
        return {
            "winners": self.winners(),
            "scores": self.scores(),
            "turns": self.turn_count,
            "truncated": self.truncated,
        }

    # -- information -----------------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return encode(self, player)

    def _resample_hidden(self, player: int, rng) -> "CabulaState":
        return resample(self, player, rng)

    def _world_holding(self, player: int, want: dict, rng, tries: int) -> "CabulaState | None":
        return world_holding(self, player, want, rng, tries)

    # knowledge fields by who reads a row (row v * n + p): v's own rows about p's hand; p's
    # shadows of v's rows about p's hand; per-viewer deck knowledge
    _VIEWER_ROWS = ("known", "groups", "groups2", "fresh")
    _SHADOW_ROWS = ("shadow_known", "shadow_groups", "shadow_groups2", "shadow_fresh", "shadow_spent")
    _VIEWER_FIELDS = ("deck_floor", "deck_cap")

    THIRD_HAND = "what another player knows of a third hand"
    MY_KNOWLEDGE_FOLLOWED = "what another player can follow of what I know of its hand"
    BEYOND_MY_SHADOW = "what another player knows of my hand beyond what I can follow of it"
    UNSEEN_TAKE = "which card a take between two other players moved"
    REBUILT_RECORD = "which cards another player drew from a rebuilt deck"
    DECK_KNOWLEDGE = "what another player knows of the deck"
    GENERATIONS = "what another player works out by putting hands together"
    # where the cards hidden from a seat lie (hidden_zones): the recall probe's odds-only check
    # sets these aside (kabenvs/core/recall.py, same_possible_worlds; docs item 6)
    PLACEMENT_FIELDS = ("hands", "deck")
    # the rows of another player's knowledge of my hand where its shadow may be coarser (docs
    # item 5: only the groups; certain cards and fresh counts the shadow follows exactly)
    _GROUP_ROWS = ("groups", "groups2")

    def recall_gap(self, other: "CabulaState", seat: int) -> str | None:
        """The summaries of this kind the docs name (items 5 to 7). With three or more players, what
        another player ``j`` knows of a third hand ``k`` beyond what everyone knows of it (the
        public rows, which I observe) is not in my observation: it rests on events between ``j``
        and ``k`` I see only in part (issue #13). Nor is how much of my own knowledge of a hand
        ``k`` that player can follow (``k``'s shadow of my row about ``k``: only ``k`` reads it,
        and it rests on what ``k`` saw). They explain a merge only when the two states are the
        same game in every field, the public rows included, but rows of that kind: ``j``'s rows
        about ``k``, ``k``'s shadows of rows about ``k`` (``shadow_*[j * n + k]``, read by ``k``
        alone), ``j``'s deck knowledge. Third, what another player knows of *my* hand beyond my
        shadow of it: after a rebuilt deck its groups may count the types of cards a third
        player drew, which I never saw (docs item 5: the shadow keeps unknown cards there);
        explained only where those group rows alone differ, my shadows being equal. Fourth
        (item 6), two other players' hands that differ by exactly what the takes between them
        moved (``_hands_differ_by_unseen_takes``): which card a crystal ball took there I never
        see, so only the odds of where cards are differ. With any number of players: another
        player's shadow of what I know of its hand (above), and (item 7) which cards another
        player drew from a rebuilt deck (its ``rebuilt_drawn`` row: the types only it reads, the
        count I read too); with two, its deck knowledge. Joined by "; " when several differ."""
        n = self.num_players
        names = set()
        for key, (value, theirs) in self.differing_fields(other).items():
            if key in ("gen_free", "gen_where"):
                # another player's count of the cards hidden from it rests on its own hand and
                # sightings (generations.py): only its observation reads it
                width = 1 if key == "gen_free" else n
                if any(a != b and i // width == seat for i, (a, b) in enumerate(zip(value, theirs))):
                    return None  # my own
                names.add(self.GENERATIONS)
            elif key in self._VIEWER_ROWS:
                for i, (a, b) in enumerate(zip(value, theirs)):
                    if a != b:
                        j, k = divmod(i, n)
                        if j == seat or (k == seat and key not in self._GROUP_ROWS) or n < 3:
                            return None  # my own row, or what my shadow follows exactly
                        # (a row about my hand whose shadow is equal: shadows are compared too;
                        # with two players the shadow is the row itself)
                        names.add(self.BEYOND_MY_SHADOW if k == seat else self.THIRD_HAND)
            elif key in self._SHADOW_ROWS:
                for i, (a, b) in enumerate(zip(value, theirs)):
                    if a != b:
                        j, k = divmod(i, n)
                        if k == seat:
                            return None  # my shadow: my observation reads it
                        names.add(self.MY_KNOWLEDGE_FOLLOWED if j == seat else self.THIRD_HAND)
            elif key in self._VIEWER_FIELDS:
                if value[seat] != theirs[seat]:
                    return None
                # another player's deck knowledge (only its observation reads it): part of what
                # it knows of a third hand's fresh cards, or with two players of the deck alone
                names.add(self.THIRD_HAND if n >= 3 else self.DECK_KNOWLEDGE)
            elif key == "rebuilt_drawn":
                # another player's own record of its draws from the rebuilt deck: only its own
                # observation and shadows read the types; mine reads its row's total (docs item 7)
                if value[seat] != theirs[seat] or any(sum(a) != sum(b) for a, b in zip(value, theirs)):
                    return None
                names.add(self.REBUILT_RECORD)
            elif key == "hands":
                if n < 3 or not self._hands_differ_by_unseen_takes(other, seat):
                    return None
                names.add(self.UNSEEN_TAKE)
            else:
                return None
        return "; ".join(sorted(names)) or None

    def _hands_differ_by_unseen_takes(self, other: "CabulaState", seat: int) -> bool:
        """Docs item 6: exactly two other players' hands differ, and by exactly what the takes
        between those two (crystal balls, which ``seat`` never sees the card of) moved differently
        in the two games over their whole history. Then the two hidden worlds differ only in
        which card those takes moved: my knowledge rows, equal in both (``recall_gap`` refuses
        any difference in them) and exact about which cards can be where, admit both, so only
        the odds of the two differ."""
        n = self.num_players
        moved = [p for p in range(n) if self.hands[p] != other.hands[p]]
        if len(moved) != 2 or seat in moved or self.start is None or other.start is None:
            return False
        j, k = moved
        flow = [self._taken_from_to(k, j), other._taken_from_to(k, j)]
        diff = [a - b for a, b in zip(flow[0], flow[1])]
        return (any(diff)
                and all(a - b == d for a, b, d in zip(self.hands[j], other.hands[j], diff))
                and all(b - a == d for a, b, d in zip(self.hands[k], other.hands[k], diff)))

    def _taken_from_to(self, victim: int, taker: int) -> list[int]:
        """Cards taken from ``victim`` by ``taker`` less those taken back the other way, since
        the game's start (a count per type; replays the game once, cached for resampling)."""
        net = [0] * NUM_TYPES
        for _, events in logged_events(self)[2]:
            for ev in events:
                if ev[0] == "move" and {ev[1], ev[2]} == {victim, taker}:
                    net[ev[3]] += 1 if ev[1] == victim else -1
        return net

    def _hidden_zones(self, player: int) -> dict[str, list]:
        """Cards ``player`` cannot place: each other hand less the cards it knows are there, and
        the deck less the cards it knows are in it (its order is hidden from everyone)."""
        zones = {}
        for p in range(self.num_players):
            if p != player:
                kn = self.known_cards(player, p)
                held = self.hands[p]
                zones[f"hand of player {p}"] = [c for c in range(NUM_TYPES) for _ in range(held[c] - kn[c])]
        deck = [0] * NUM_TYPES
        for c in self.deck:
            deck[c] += 1
        floor = self.deck_floor[player]
        zones["deck"] = [c for c in range(NUM_TYPES) for _ in range(deck[c] - floor[c])]
        return zones

    def decision(self) -> str:
        if self.current_player is None:
            if self.truncated:
                return "game over (truncated)"
            return "game over"
        f = self.stack[-1]
        k = f["k"]
        p = self.current_player
        if k == "main":
            return f"player {p}: play a card or a set, or pass"
        if k == "target":
            return f"player {p}: choose the victim of {_play_name(f['card'], f['cnt'])[5:]}"
        if k == "curse":
            curse = SINGULAR[f["c"]]
            if f["stage"] == "redirect":
                return f"player {p}: choose who receives the {curse} turned with two wands"
            return f"player {p}: hit by {curse}: answer with 0, 1 or 2 magic wands"
        if k == "star":
            return f"player {p}: choose the star (single or double) of player {f['v']} for {f['why']}"
        if k == "necro":
            return f"player {p}: Necromancy, discard down to five cards (one card)"
        return f"player {p}: choose a card to take from player {f['v']}'s hand"

    def _render(self, player: int | None) -> str:
        n = self.num_players
        if self.current_player is None:
            status = "game over"
        else:
            status = self.decision()
        lines = [f"Cábula, {n} players, turn {self.turn_count} (player {self.turn}) - {status}"]
        for p in range(n):
            d = self.display[p]
            if player is None or player == p:
                held = ", ".join(f"{k} {SINGULAR[c]}" for c, k in enumerate(self.hands[p]) if k)
            else:
                seen = ", ".join(f"{k} {SINGULAR[c]}" for c, k in enumerate(self.known_cards(player, p)) if k)
                grp = self.maybe_group(player, p)
                if grp is not None:
                    cards = [f"{k} {SINGULAR[c]}" for c, k in enumerate(grp[:NUM_TYPES]) if k]
                    cards += [f"{grp[KN.WILD]} unknown"] if grp[KN.WILD] else []
                    seen += ("; " if seen else "") + f"{grp[KN.R]} of {{{', '.join(cards)}}}"
                grp = self.second_group(player, p)
                if grp is not None:
                    cards = [f"{k} {SINGULAR[c]}" for c, k in enumerate(grp[:NUM_TYPES]) if k]
                    seen += ("; " if seen else "") + f"{grp[KN.R]} of {{{', '.join(cards)}}}"
                counted = ", ".join(f"{k} {SINGULAR[c]}" for c, k in enumerate(GEN.implied(self, player, p)) if k)
                if counted:
                    seen += ("; " if seen else "") + f"by counting at least {counted}"
                held = f"{self.hand_size(p)} cards" + (f" (known: {seen})" if seen else "")
            lines.append(
                f"  player {p}: stars {d[0]} + double {d[1]} = {self.total(p)}; hand: {held or 'empty'}"
            )
        lines.append(f"  deck {len(self.deck)} cards; discard: "
                     + (", ".join(f"{k} {SINGULAR[c]}" for c, k in enumerate(self.discard) if k) or "empty"))
        if self.current_player is None:
            lines.append(f"  {winners_line(self)}")
        return "\n".join(lines)

    def check_fields(self) -> list[str]:
        """Types and ranges of every field of a (possibly tampered) save, each problem naming the
        field; ``invariants`` then checks what must hold between them (conservation)."""
        n = self.num_players
        problems: list[str] = []
        bad = problems.append

        def counts(name: str, v, length: int = NUM_TYPES) -> bool:
            if not (isinstance(v, list) and len(v) == length and all(type(k) is int and k >= 0 for k in v)):
                bad(f"{name}: must be a list of {length} whole counts >= 0, got {str(v)[:80]}")
                return False
            return True

        def per_player(name: str, v, length: int = NUM_TYPES) -> None:
            if not isinstance(v, list) or len(v) != n:
                bad(f"{name}: must hold one entry per player ({n}), got {str(v)[:80]}")
                return
            for p, row in enumerate(v):
                counts(f"{name}[{p}]", row, length)

        per_player("hands", self.hands)
        if isinstance(self.hands, list) and len(self.hands) == n:
            for p, hand in enumerate(self.hands):
                if isinstance(hand, list) and len(hand) == NUM_TYPES and any(hand[c] for c in C.CURSES):
                    bad(f"hands[{p}]: a hand never holds a curse")
        deck = self.deck
        if not (isinstance(deck, list) and all(type(c) is int and 0 <= c < NUM_TYPES for c in deck)):
            bad(f"deck: must be a list of card types 0..{NUM_TYPES - 1}")
        counts("discard", self.discard)
        per_player("display", self.display, 2)
        for name, rows, length in (
            ("known", self.known, NUM_TYPES), ("groups", self.groups, KN.GROUP_LEN),
            ("groups2", self.groups2, KN.GROUP_LEN), ("shadow_known", self.shadow_known, NUM_TYPES),
            ("shadow_groups", self.shadow_groups, KN.GROUP_LEN),
            ("shadow_groups2", self.shadow_groups2, KN.GROUP_LEN), ("shadow_spent", self.shadow_spent, NUM_TYPES),
        ):
            if not isinstance(rows, list) or len(rows) != n * n:
                bad(f"{name}: must hold {n * n} entries (one per pair of players), got {str(rows)[:80]}")
            else:
                for i, row in enumerate(rows):
                    if row is not None:
                        counts(f"{name}[{i}]", row, length)
        per_player("rebuilt_drawn", self.rebuilt_drawn)
        free, where = self.gen_free, self.gen_where
        if not (isinstance(free, list) and len(free) == n and all(isinstance(x, list) for x in free)
                and len({len(x) for x in free}) == 1 and 2 <= len(free[0]) <= GEN.SLOTS + 1):
            bad(f"gen_free: must hold per player the same number (2-{GEN.SLOTS + 1}) of slots, got "
                f"{str(free)[:80]}")
        else:
            for v, slots in enumerate(free):
                for k, slot in enumerate(slots):
                    counts(f"gen_free[{v}][{k}]", slot, 2 * NUM_TYPES)
            top = 1 << len(free[0])
            if not (isinstance(where, list) and len(where) == n * n
                    and all(type(m) is int and 0 <= m < top for m in where)):
                bad(f"gen_where: must hold {n * n} masks 0..{top - 1} (one per pair of players), got "
                    f"{str(where)[:80]}")
        rows = n if n >= 3 else 0  # the public rows: kept with three players or more
        for name, table, length in (("public_known", self.public_known, NUM_TYPES),
                                    ("public_groups", self.public_groups, KN.GROUP_LEN),
                                    ("public_groups2", self.public_groups2, KN.GROUP_LEN)):
            if not isinstance(table, list) or len(table) != rows:
                bad(f"{name}: must hold {rows} entries (one per player from three players on), got "
                    f"{str(table)[:80]}")
            else:
                for p, row in enumerate(table):
                    if row is not None:
                        counts(f"{name}[{p}]", row, length)
        pf = self.public_fresh
        if not (isinstance(pf, list) and len(pf) == rows and all(type(k) is int and k >= 0 for k in pf)):
            bad(f"public_fresh: must hold {rows} whole counts >= 0, got {str(pf)[:80]}")
        if rows:
            counts("public_cap", self.public_cap)
        elif self.public_cap != []:
            bad(f"public_cap: must be an empty list with two players, got {str(self.public_cap)[:80]}")
        for name, fr, length in (("fresh", self.fresh, n * n), ("shadow_fresh", self.shadow_fresh, n * n)):
            if not (isinstance(fr, list) and len(fr) == length and all(type(k) is int and k >= 0 for k in fr)):
                bad(f"{name}: must hold {length} whole counts >= 0, got {str(fr)[:80]}")
        at = self.attacks
        if not isinstance(at, list) or len(at) != n or not all(
            x is None or (isinstance(x, list) and len(x) == 2 and type(x[0]) is int
                          and 0 <= x[0] < len(C.ATTACK_KINDS) and self._seat(x[1]))
            for x in at
        ):
            bad(f"attacks: must hold per player null or [attack kind 0-{len(C.ATTACK_KINDS) - 1}, "
                f"victim seat], got {str(at)[:80]}")
        per_player("deck_floor", self.deck_floor)
        per_player("deck_cap", self.deck_cap)
        if not isinstance(self.deck_cap_known, bool):
            bad(f"deck_cap_known: {self.deck_cap_known!r} must be true or false")
        if not self._seat(self.turn):
            bad(f"turn: {self.turn!r} is not a seat of a {n}-player game")
        tc = self.turn_count
        if type(tc) is not int or not 0 <= tc <= self.game.config.max_turns:
            bad(f"turn_count: {tc!r} must be a whole number 0..{self.game.config.max_turns} (max_turns)")
        if self.winner is not None and not self._seat(self.winner):
            bad(f"winner: {self.winner!r} is not a seat (or null)")
        elif self.winner is not None and self.current_player is not None:
            bad("winner: set while a player is still to move")
        la = self.last_attack
        if la is not None and not (
            isinstance(la, list) and len(la) == 4 and type(la[0]) is int and 0 <= la[0] < NUM_TYPES
            and type(la[1]) is int and 1 <= la[1] <= 4 and self._seat(la[2]) and self._seat(la[3])
        ):
            bad(f"last_attack: must be null or [card type, count 1-4, attacker seat, victim seat], "
                f"got {la!r}")
        lp = self.last_play
        if lp is not None and not (
            isinstance(lp, list) and len(lp) == 3 and self._seat(lp[0]) and type(lp[1]) is int
            and -1 <= lp[1] < NUM_TYPES and type(lp[2]) is int and 1 <= lp[2] <= 4
        ):
            bad(f"last_play: must be null or [seat, card type or -1 for a pass, count 1-4], got {lp!r}")
        if not isinstance(self.chance, list) or not all(
            (type(x) is int and 0 <= x < NUM_TYPES)
            or (isinstance(x, list) and all(type(c) is int and 0 <= c < NUM_TYPES for c in x))
            for x in self.chance
        ):
            bad("chance: must be a list of card types or lists of card types (scripted chance outcomes)")
        problems += self._check_stack()
        return problems

    def _seat(self, x) -> bool:
        return type(x) is int and 0 <= x < self.num_players

    def _check_stack(self) -> list[str]:
        stack = self.stack
        if not isinstance(stack, list) or not all(isinstance(f, dict) for f in stack):
            return ["stack: must be a list of pending effects (mappings)"]
        seat = self._seat
        checks = {  # key -> test of its value, per kind of pending effect
            "end": {},
            "main": {"p": seat},
            "draw": {"p": seat, "n": lambda x: type(x) is int and 0 <= x <= 6},
            "target": {"p": seat, "card": lambda x: type(x) is int and x in C.MONSTERS + C.TARGETED_SPELLS,
                       "cnt": lambda x: type(x) is int and 1 <= x <= 4},
            "curse": {"p": seat, "c": lambda x: type(x) is int and x in C.CURSES,
                      "stage": lambda x: x in ("respond", "redirect"), "by": lambda x: x is None or seat(x)},
            "star": {"p": seat, "v": seat, "a": seat, "why": lambda x: x in STAR_REASONS},
            "necro": {"p": seat},
            "take": {"p": seat, "v": seat},
        }
        for i, f in enumerate(stack):
            kind = f.get("k")
            if kind not in checks:
                return [f"stack[{i}]: unknown pending effect {str(f)[:80]}"]
            want = checks[kind]
            if set(f) != {"k", *want} or not all(test(f[key]) for key, test in want.items()):
                return [f"stack[{i}]: a {kind!r} effect needs exactly {sorted(want)} with valid values, "
                        f"got {str(f)[:80]}"]
        cp = self.current_player
        if cp is not None:
            if not stack or stack[-1]["k"] in ("end", "draw"):
                return ["stack: a player is to move but no decision is pending"]
            if stack[-1]["p"] != cp:
                owner = stack[-1]["p"]
                return [f"stack: the pending decision is player {owner}'s, not current_player {cp}'s"]
        return []

    def invariants(self) -> list[str]:
        # map/zip over whole rows (C speed): the shared kit calls this after every step
        g = self.game
        problems = []
        deck = [0] * NUM_TYPES
        for c in self.deck:
            deck[c] += 1
        total = list(map(add, deck, self.discard))
        for hand in self.hands:
            total = list(map(add, total, hand))
            if min(hand) < 0 or any(hand[c] for c in C.CURSES):
                problems.append(f"hands: negative or holding a curse: {hand}")
        for d in self.display:
            total[STAR] += d[0]
            total[DOUBLE] += d[1]
            if min(d) < 0:
                problems.append(f"display: negative {d}")
        if total != g.composition:
            c = next(c for c in range(NUM_TYPES) if total[c] != g.composition[c])
            problems.append(f"hands, deck, discard, display: cards not conserved: {PLURAL[c]} counted "
                            f"{total[c]} times across them, the game has {g.composition[c]}")
        n = self.num_players
        if len(self.known) != n * n:
            problems.append(f"known: table of size {len(self.known)}, not {n * n}")
        for i, kn in enumerate(self.known):
            if kn is None:
                continue
            v, p = divmod(i, n)
            if v == p:
                problems.append(f"known[{i}]: player {v} 'knows' cards in their own hand")
            elif not any(kn) or any(map(gt, kn, self.hands[p])):
                problems.append(f"known[{i}]: player {v} 'knows' cards player {p} does not hold "
                                "(or an empty row)")
        real = (any(g is not None for g in self.groups) or any(self.fresh)
                or any(g is not None for g in self.groups2))
        if real:
            problems += KN.problems(self)
        # the shadow is checked against the real rows too (with two players: equal to them); on
        # empty tables this finds nothing, and invariants run on loads and in tests only
        problems += KN.shadow_problems(self)
        problems += KN.public_problems(self)
        problems += GEN.problems(self)
        for v in range(n):
            if any(map(gt, self.deck_floor[v], deck)):
                problems.append(f"deck_floor[{v}]: exceeds the deck")
            if self.deck_cap_known and any(map(lt, self.deck_cap[v], deck)):
                problems.append(f"deck_cap[{v}]: below the deck")
        if self.current_player is None and not self._over():
            problems.append("no one to move but the game is not over")
        if self.current_player is not None and not self.stack:
            problems.append("a decision without a pending effect")
        return problems

    def clone(self) -> "CabulaState":
        new = self._clone_base()
        new.hands = [h[:] for h in self.hands]
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.display = [d[:] for d in self.display]
        new.known = [k if k is None else k[:] for k in self.known]
        new.groups = [g if g is None else g[:] for g in self.groups]
        new.groups2 = [g if g is None else g[:] for g in self.groups2]
        new.fresh = self.fresh[:]
        new.shadow_known = [k if k is None else k[:] for k in self.shadow_known]
        new.shadow_groups = [g if g is None else g[:] for g in self.shadow_groups]
        new.shadow_groups2 = [g if g is None else g[:] for g in self.shadow_groups2]
        new.shadow_fresh = self.shadow_fresh[:]
        new.shadow_spent = [c if c is None else c[:] for c in self.shadow_spent]
        new.rebuilt_drawn = [d[:] for d in self.rebuilt_drawn]
        new.public_known = [k if k is None else k[:] for k in self.public_known]
        new.public_groups = [g if g is None else g[:] for g in self.public_groups]
        new.public_groups2 = [g if g is None else g[:] for g in self.public_groups2]
        new.public_fresh = self.public_fresh[:]
        new.public_cap = self.public_cap[:]
        new.gen_free = [[slot[:] for slot in slots] for slots in self.gen_free]
        new.gen_where = self.gen_where[:]
        new.attacks = self.attacks[:]  # entries are replaced, never mutated
        new.deck_floor = [f[:] for f in self.deck_floor]
        new.deck_cap = [f[:] for f in self.deck_cap]
        new.deck_cap_known = self.deck_cap_known
        new.stack = [dict(f) for f in self.stack]
        new.turn = self.turn
        new.turn_count = self.turn_count
        new.winner = self.winner
        new.last_attack = self.last_attack
        new.last_play = self.last_play
        new.chance = self.chance[:]  # entries are never mutated, only popped
        new._reset_caches()
        return new


CabulaGame.State = CabulaState
