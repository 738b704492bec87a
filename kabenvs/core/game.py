"""The rules-engine contract every game implements (see DESIGN.md).

A ``Game`` is built from a validated ``Config`` and owns what follows from the config alone:
the action catalog and the observation layout. A ``State`` is the full truth of one game in
progress: mutable and fast, copied with ``clone()`` (OpenSpiel's model; Python pays for an
immutable copy on every step).

Conventions that let the base class do the boring parts for every game:

* A state's public attributes (names without a leading underscore) are JSON-native values
  (ints, floats, strings, bools, None, lists, dicts with string keys). ``to_json``/``from_json``
  and ``clone`` copy exactly those, plus the generator's state; attributes starting with ``_``
  are caches: ``_reset_caches`` drops them all (after restoring, cloning, ``touch``); ``apply``
  drops only the legality cache, so a game that keeps another cache updates it in ``_apply``.
* ``current_player`` is a plain attribute: the seat that must decide now, also out of turn,
  ``None`` once the game is over.
* Legality lives in one place, ``_legal_actions``; ``legal_mask`` and ``apply`` both read it.
"""

from __future__ import annotations

import copy
import importlib
import json
import pickle
from typing import Any, ClassVar

import numpy as np

from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.errors import BRIEF_LIMIT, ConfigError, IllegalActionError, brief
from kabenvs.core.observation import ObservationLayout


# A fixed seed sequence to build throwaway bit generators from: much cheaper than
# np.random.default_rng(), which gathers OS entropy only for it to be overwritten at once.
_TEMPLATE_SEED = np.random.SeedSequence(0)


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in exactly ``rng``'s state (for clones and restores)."""
    new = np.random.Generator(type(rng.bit_generator)(_TEMPLATE_SEED))
    new.bit_generator.state = rng.bit_generator.state
    return new


# How many legal sets' masks a game keeps (State.legal_mask): new sets keep coming in some games
# (~85 a random 2-player Alakazum! game), but the first few thousand cover most decisions
# (~66% at 2 players, ~73% at 5 after 300 Alakazum! games); a bound on the memory (a few MB).
MASK_CACHE_SIZE = 4096


def copy_plain(value: Any) -> Any:
    """A deep copy of plain data (a state's public fields): a pickle round trip, which keeps
    types and shared references exactly as ``copy.deepcopy`` does, at a fraction of its cost
    (``env.reset`` records every deal's start with it: deepcopy was three quarters of a reset)."""
    return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))


def player_name(seat: int) -> str:
    """A seat named absolutely, as every screen numbers it ("player 2"), never relative to a reader."""
    return f"player {seat}"


def winners_line(state: "State") -> str:
    """The end of a game in words ("winner: player 1", "winners: player 0 and player 2"), for
    renders and screens: never a raw list."""
    if state.truncated:
        return "no winner (the game was cut short)"
    won = [player_name(int(p)) for p in state.winners()]
    if not won:
        return "no winner"
    if len(won) == 1:
        return f"winner: {won[0]}"
    return "winners: " + ", ".join(won[:-1]) + " and " + won[-1]


def move_line(before: "State", action: int, seat: int | None) -> str:
    """The first event of a narration: who moved and the move as ``seat`` saw it."""
    return f"{player_name(before.current_player)}: {before.action_name_for(action, seat)}"


# State class -> (narrate, table_view) functions of its game package, or None where it has none.
_SEAT_VIEW_HOOKS: dict[type, tuple[Any, Any]] = {}


def _seat_view_hooks(cls: type) -> tuple[Any, Any]:
    """The game's own ``narration.narrate`` and ``table.table_view``, found next to the module that
    defines its State (``kabenvs/games/<game>/narration.py``, ``table.py``), so a game adds seat
    views in new modules without touching its rules. Looked up once per class."""
    hooks = _SEAT_VIEW_HOOKS.get(cls)
    if hooks is None:
        package = cls.__module__.rpartition(".")[0]
        found = []
        for module_name, function in (("narration", "narrate"), ("table", "table_view")):
            if not package:  # a State defined in a top-level script has no game package
                found.append(None)
                continue
            name = f"{package}.{module_name}"
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name != name and not name.startswith(f"{exc.name}."):
                    raise  # the game's module exists but imports something missing: a real bug
                module = None
            found.append(getattr(module, function, None))
        hooks = _SEAT_VIEW_HOOKS[cls] = (found[0], found[1])
    return hooks


def _plain_list(values) -> list | None:
    """A list of plain Python numbers (numpy scalars are not JSON-safe); None stays None."""
    return None if values is None else [v.item() if hasattr(v, "item") else v for v in values]


def world_start(fields: dict, rng: np.random.Generator) -> dict:
    """A resampled world's ``start``: its relabelled ``fields`` with a generator seeded from
    ``rng`` (one draw), never the real game's start generator, which, stepped back, would give the
    real deal and, run on, the real future chance (the shared kit checks this)."""
    return {"state": fields, "rng": np.random.default_rng(int(rng.integers(0, 2**63))).bit_generator.state}


def zones_hold(zones: dict[str, list], want: dict[str, dict]) -> bool:
    """Whether ``hidden_zones``' answer ``zones`` holds each item ``want`` names as often as it says
    (zone -> {item: count}; ``State.world_holding``)."""
    return all(list(zones.get(z, ())).count(x) == k for z, items in want.items() for x, k in items.items())


def as_generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    """``rng`` itself, or a Generator seeded with it (None: fresh entropy). A seed that is not an
    integer >= 0 is a ``ConfigError`` naming it (numpy's own message, "expected non-negative
    integer", names neither the value nor where it came from)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is not None and (isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (int, np.integer)) or rng < 0):
        raise ConfigError(f"seed {brief(rng)} must be an integer >= 0, a numpy Generator or None")
    return np.random.default_rng(rng)


class Game:
    """One game under one configuration. Subclasses set the class attributes and builders."""

    name: ClassVar[str] = ""
    env_id: ClassVar[str] = ""
    Config: ClassVar[type[GameConfig]] = GameConfig
    State: ClassVar[type["State"]]
    # Configurations the shared test kit runs (every player count, mode and variant worth it).
    test_configs: ClassVar[list[dict[str, Any]]] = [{}]
    # Whether some seat ever lacks information another has (the kit then checks resampling).
    has_hidden_information: ClassVar[bool] = True
    # Whether resample_hidden(p, rng) draws the same world from the same generator on every state
    # p cannot tell apart (its draws never follow the order of the true cards), worlds marked
    # ``_followed_truth`` aside: a seeded search then makes the same move on all of them. The kit
    # checks it where a game claims it.
    worlds_depend_only_on_information: ClassVar[bool] = False
    # A game whose Config has ``reward: "score"`` pays each seat its final score minus the best
    # other seat's score, divided by this (State.returns): a denser training signal than win/loss.
    score_scale: float = 1.0

    def __init__(self, config: GameConfig | None = None, **options: Any) -> None:
        if config is None:
            config = self.Config.from_dict(options)
        elif options:
            raise ConfigError(f"pass either a config or options, not both (got {sorted(options)})")
        elif not isinstance(config, self.Config):
            raise ConfigError(f"{self.name} needs a {self.Config.__name__}, got {type(config).__name__}")
        self.config = config
        self.num_players: int = config.num_players
        self.catalog: ActionCatalog = self.build_catalog()
        self.layout: ObservationLayout = self.build_layout()
        # State.legal_mask's kept masks, one per legal set (the first MASK_CACHE_SIZE sets met)
        self.mask_cache: dict[tuple[int, ...], np.ndarray] = {}

    # -- builders every game provides -------------------------------------------------------
    def build_catalog(self) -> ActionCatalog:
        raise NotImplementedError

    def build_layout(self) -> ObservationLayout:
        raise NotImplementedError

    def new_state(self, rng: np.random.Generator | int | None = None) -> "State":
        """Shuffle and deal from ``rng`` (a Generator, a seed >= 0 or None).

        All later chance (dice, reshuffles) comes from the state's own generator: a copy of a
        Generator passed in, as the deal left it, so the caller's generator stays the caller's.
        Drawing from it afterwards (to pick moves, or to deal the next game) cannot change this
        game's chance, and the history replays from the recorded start (``replay_start``, which
        ``resample_hidden``, game logs and the kit's checks rely on). A seed or None gives a
        generator of the state's own, as ``np.random.default_rng(seed)`` would; a Generator made
        for this one deal gives the same game as before the copy was taken.

        Every game's State provides the classmethod ``deal(game, rng)``; this calls it, then
        records the deal as the state's ``start`` (what ``replay_start`` rebuilds)."""
        gen = as_generator(rng)
        state = self.State.deal(self, gen)
        if gen is rng:  # the caller's generator: the game's own chance continues on a copy
            state.rng = copy_generator(gen)
        state.mark_start()
        return state

    def max_decisions(self) -> int:
        """An upper bound on decisions in one game (the kit checks games end within it)."""
        raise NotImplementedError

    # -- derived --------------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return self.catalog.size

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def state_from_json(self, text: str | dict) -> "State":
        return State.from_json(text, game=self)

    def field_names(self) -> frozenset[str]:
        """The public fields of this game's states (what a save must hold exactly)."""
        names = getattr(self, "_field_names", None)
        if names is None:
            names = self._field_names = frozenset(self.new_state(0)._data())
        return names

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config})"


class State:
    """Base of every game's state. See the module docstring for the conventions."""

    game: Game
    rng: np.random.Generator
    # Fields a later version of a game added to its states: name -> ``value(game, fields)``, the
    # value it takes in a saved position (``fields``) that lacks it, knowing nothing of its past
    # (what it is at a deal, where nothing has happened yet). A save made before a field was added
    # lacks it; loading rebuilds it by replaying the saved history from the saved start
    # (``_upgrade``), so older saves keep loading. Each game lists its own.
    added_fields: ClassVar[dict[str, Any]] = {}

    def __init__(self, game: Game, rng: np.random.Generator | int | None = None) -> None:
        self.game = game
        self.rng = as_generator(rng)
        self.current_player: int | None = None
        self.truncated = False  # a game's own limit (turn/round cap) ended it without a result
        self.history: list[int] = []  # every action applied, in order (replays, logs)
        # The position this game was replayed from: the deal (or a hand-rigged position, see
        # ``touch``), as {"state": fields, "rng": generator state}. Never mutated, so clones share
        # it. ``resample_hidden`` rewrites it together with the history, so that a resampled world
        # replays from its own start to itself (the shared kit checks this).
        self.start: dict | None = None
        self._reset_caches()

    # -- caches -------------------------------------------------------------------------------
    def _reset_caches(self) -> None:
        self._forget_legal()
        # Set by a resampler on a world where its search for one that varies the other seats'
        # hidden choices ran out of budget and it followed the real game's choices instead:
        # such a world tells a search bot the truth, so the search draws another in its place
        # (kabenvs.agents.search.tree.Worlds). A clone or a replay starts without the mark.
        self._followed_truth = False

    def _forget_legal(self) -> None:
        """Drop the legality caches (after a move, or an edit by hand)."""
        self._legal: list[int] | None = None
        self._legal_set: frozenset[int] | None = None
        self._mask: np.ndarray | None = None  # legal_mask's array, never handed out (copies are)

    def touch(self) -> None:
        """Call after editing a state by hand (rigged tests): cached legality is recomputed and
        the edited position becomes the game's ``start`` (the past before it is not replayable)."""
        self._reset_caches()
        self.mark_start()

    def mark_start(self) -> None:
        """Record the current position as the one the history replays from."""
        fields = {k: v for k, v in self._data().items() if k != "start"}
        self.start = {"state": copy_plain(fields), "rng": self.rng.bit_generator.state}

    def replay_start(self) -> "State":
        """A fresh state at this game's ``start``; applying ``history[len(start's history):]`` to
        it replays the game to this position (for a resampled world: to that world)."""
        if self.start is None:
            raise ValueError("this state has no recorded start (restored from an older save)")
        new = self.__class__.__new__(self.__class__)
        new.__dict__.update(copy_plain(self.start["state"]))
        new.game = self.game
        new.rng = np.random.Generator(np.random.PCG64(_TEMPLATE_SEED))
        new.rng.bit_generator.state = self.start["rng"]
        new.start = self.start
        new._reset_caches()
        return new

    def replay_actions(self) -> list[int]:
        """The actions taken since ``start`` (what ``replay_start`` needs applied)."""
        return self.history[len(self.start["state"]["history"]):] if self.start else list(self.history)

    # -- what subclasses implement --------------------------------------------------------------
    def _legal_actions(self) -> list[int]:
        raise NotImplementedError

    def _apply(self, action: int) -> None:
        raise NotImplementedError

    def observation(self, player: int) -> np.ndarray:
        raise NotImplementedError

    def winners(self) -> list[int]:
        raise NotImplementedError

    def render(self, player: int | None = None) -> str:
        """The table as text, as ``player`` sees it (None: everything). ``player`` must be None or
        a seat of this game: a seat out of range once drew the all-seeing view in some games
        (Barakka, Kabaal), another seat's in others (-1: the last). A game implements
        ``_render(player)``, called with a checked seat or None."""
        return self._render(None if player is None else self.check_seat(player, "render"))

    def _render(self, player: int | None) -> str:
        raise NotImplementedError

    def resample_hidden(self, player: int, rng: np.random.Generator | int | None = None) -> "State":
        """A world ``player`` cannot tell from this state over its whole history: what it never
        saw re-dealt, the other seats' hidden choices drawn again, replayed from the world's own
        start (the shared kit checks every past observation and every move's legality there).

        Check ``world.followed_truth`` before using a world as a sample: a resampler that searches
        for the other seats' hidden choices within a budget (Cábula, Alakazum!) keeps the real
        ones when the budget runs out. Such a world is consistent but tells which card really
        went; ``kabenvs.core.patience.patient()`` makes that rare at a cost in time, and the
        search bot's ``Worlds`` (``kabenvs.agents.search.tree``) draws usable worlds for you.

        ``player`` must be a seat of this game (``ConfigError`` otherwise: a seat out of range
        once gave an IndexError in some games and, in others, a world drawn for another seat,
        -1 read as the last one); ``rng`` a Generator, a seed >= 0 or None, never the state's own
        ``rng`` (refused: drawing from it would change the real game's chance). A game implements
        ``_resample_hidden(player, rng)``, called with a checked seat and a Generator."""
        if rng is self.rng:  # its draws would move this game's own chance: the history would no longer replay
            raise ConfigError("resample_hidden: rng is this state's own generator (the game's future dice and "
                              "shuffles); pass a generator of your own, a seed >= 0 or None")
        return self._resample_hidden(self.check_seat(player, "resample_hidden"), as_generator(rng))

    def _resample_hidden(self, player: int, rng: np.random.Generator) -> "State":
        raise NotImplementedError

    def world_holding(self, player: int, want: dict[str, dict], rng: np.random.Generator | int | None,
                      tries: int) -> "State | None":
        """A world ``player`` cannot tell from this state, as ``resample_hidden`` draws them, whose
        ``hidden_zones`` hold the named items as ``want`` says (zone name -> {item: count}, for the
        zones and items named; everything else as it falls), or None when ``tries`` attempts found
        none (which proves nothing). The perfect-recall probe asks it whether another branch's
        placement is possible after this branch's history (``kabenvs/core/recall.py``) and checks
        the answer itself. Default: ``tries`` draws of ``resample_hidden`` until one fits; a game
        whose fitting worlds are too rare to draw builds one to fit (``_world_holding``)."""
        if rng is self.rng:
            raise ConfigError("world_holding: rng is this state's own generator; pass a generator of your own, "
                              "a seed >= 0 or None")
        seat = self.check_seat(player, "world_holding")
        zones = self.hidden_zones(seat)
        if zones is None:
            raise ConfigError("world_holding: this game has no hidden zones to hold items in")
        if not isinstance(want, dict) or not all(isinstance(z, str) and z in zones for z in want):
            raise ConfigError(f"world_holding: want must map zone names to {{item: count}}; got {brief(want)}, "
                              f"and the zones of seat {seat} are {', '.join(map(repr, zones))}")
        for z, items in want.items():
            if not isinstance(items, dict) or not all(
                    isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) and k >= 0
                    for k in items.values()):
                raise ConfigError(f"world_holding: want[{z!r}] must map items to counts >= 0; got {brief(items)}")
        if not isinstance(tries, (int, np.integer)) or isinstance(tries, bool) or tries < 1:
            raise ConfigError(f"world_holding: tries must be an integer >= 1; got {brief(tries)}")
        return self._world_holding(seat, want, as_generator(rng), int(tries))

    def _world_holding(self, player: int, want: dict[str, dict], rng: np.random.Generator,
                       tries: int) -> "State | None":
        for _ in range(tries):
            world = self._resample_hidden(player, rng)
            if zones_hold(world.hidden_zones(player) or {}, want):
                return world
        return None

    def check_seat(self, seat: Any, what: str) -> int:
        """``seat`` as an int when it is a seat of this game; ``ConfigError`` naming ``what`` was
        asked and the seats there are otherwise (a bool, a float or a negative index is none)."""
        n = self.num_players
        if isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_)) and 0 <= seat < n:
            return int(seat)
        raise ConfigError(f"{what}: {brief(seat)} is not a seat of this {n}-player game; seats are 0 to {n - 1}")

    @property
    def followed_truth(self) -> bool:
        """Whether this world, returned by ``resample_hidden``, keeps the real game's hidden
        choices because the resampler's budget ran out: consistent with the seat's history, but
        not a fair sample (it would tell a search which card really went). False on every other
        state; a clone or a replay of a world starts without the mark."""
        return self._followed_truth

    def decision(self) -> str:
        """What is being asked now, in words (used in error messages and by the human UI)."""
        if self.current_player is None:
            return "game over"
        return f"player {self.current_player} to move"

    def position_key(self) -> str:
        """The position, as far as any later rule or any seat's view can read it, whatever led to
        it: two states with the same key are the same position to everyone. The perfect-recall
        probe (``kabenvs/core/recall.py``) uses it to tell a merge of pure history from a merge of
        positions that differ. Default: the all-seeing render. A game whose render shows an order
        or a record that no rule reads later (a pile out of the game) overrides it to leave that
        out, and says so on its docs page."""
        return self.render(None)

    # The saved fields that say where the items of ``hidden_zones`` lie (a game's hands, its
    # deck): the perfect-recall probe's check of "the same possible worlds, other odds" sets them
    # aside to look at the rest of a difference (kabenvs/core/recall.py, ``same_possible_worlds``).
    # Empty: the game has no such check.
    PLACEMENT_FIELDS: ClassVar[tuple[str, ...]] = ()

    def recall_gap(self, other: "State", seat: int) -> str | None:
        """Why ``seat``'s observation may show this state and ``other`` alike although the seat
        once told their histories apart and another seat still tells them apart (a merge the
        perfect-recall probe, ``kabenvs/core/recall.py``, reports): a summary the game makes on
        purpose and names on its docs page, in a few words; None (the default) where the game
        claims none, so that the shared kit fails on such a merge."""
        return None

    def differing_fields(self, other: "State") -> dict[str, tuple[Any, Any]]:
        """The saved fields whose values differ between this state and ``other`` (name -> the two
        values), the history and the recorded start left out: what a ``recall_gap`` inspects."""
        mine, theirs = self._data(), other._data()
        return {k: (v, theirs[k]) for k, v in mine.items() if k not in ("history", "start") and v != theirs[k]}

    def hidden_zones(self, player: int) -> dict[str, list] | None:
        """Where the items hidden from ``player`` lie now: zone name -> items (card ids, tiles),
        for every zone whose contents ``player`` cannot see (another hand, the undealt cards, a
        deck). The shared kit checks that resampling exchanges items between them. None for a
        game without such zones. A game implements ``_hidden_zones(player)`` (a checked seat)."""
        return self._hidden_zones(self.check_seat(player, "hidden_zones"))

    def _hidden_zones(self, player: int) -> dict[str, list] | None:
        return None

    def scores(self) -> list[float] | None:
        """Final or running scores where the game has them."""
        return None

    def invariants(self) -> list[str]:
        """Violated invariants (pieces conserved, no impossible position); empty when all hold.

        The shared test kit calls this after every step of thousands of random games."""
        return []

    def final_info(self) -> dict[str, Any]:
        """Plain-JSON facts about a finished game for ``info`` (winners, scores, reveals)."""
        return {"winners": self.winners(), "scores": self.scores()}

    # -- the contract, implemented once ---------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.game.num_players

    def is_terminal(self) -> bool:
        return self.current_player is None

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = [] if self.current_player is None else self._legal_actions()
        return self._legal

    def legal_mask(self) -> np.ndarray:
        mask = self._mask
        if mask is None:
            legal = self._legal
            if legal is None:
                legal = self.legal_actions()
            # Most decisions repeat a few legal sets (a pass and a card or two, a team's
            # characters, a draw): the game keeps one mask per set it met, and a decision copies
            # it instead of zeroing a vector and writing its ids. Kept masks are never handed out
            # nor changed (check_action reads the one in _mask; callers get copies).
            key = tuple(legal)
            cache = self.game.mask_cache
            mask = cache.get(key)
            if mask is None:
                mask = np.zeros(self.game.catalog.size, dtype=np.int8)
                if len(legal) <= 8:  # a few scalar stores beat turning the list into an index array
                    for a in legal:
                        mask[a] = 1
                else:
                    mask[legal] = 1
                if len(cache) < MASK_CACHE_SIZE:
                    cache[key] = mask
            self._mask = mask
        return mask.copy()  # a fresh array: the caller may keep or edit it

    def is_legal(self, action: int) -> bool:
        mask = self._mask  # built from legal_actions (the env asked for it with the observation)
        if mask is not None:
            return 0 <= action < len(mask) and bool(mask[action])
        legal = self.legal_actions()
        if len(legal) <= 16:  # most decisions: a short scan beats building a set
            return action in legal
        if self._legal_set is None:
            self._legal_set = frozenset(legal)
        return action in self._legal_set

    def check_action(self, action) -> int:
        """The int id of ``action`` if it is legal now; else ``IllegalActionError``."""
        if type(action) is int:  # the common case (a bool is no int here: its type is bool)
            a = action
            mask = self._mask  # the env asked for the mask with the observation: one read
            if mask is not None and 0 <= a < len(mask) and mask[a]:
                return a
        else:
            try:
                if isinstance(action, (bool, np.bool_)):  # True == 1, but it is no action id
                    raise TypeError
                a = int(action)
                if a != action:
                    raise ValueError
            except (TypeError, ValueError, OverflowError):
                raise IllegalActionError(action, self.decision(), self._legal_names()) from None
        if not self.is_legal(a):
            label = self.action_name(a) if 0 <= a < self.game.catalog.size else "no such action id"
            raise IllegalActionError(action, self.decision(), self._legal_names(), label)
        return a

    def apply(self, action) -> None:
        """Apply one decision; an illegal one raises ``IllegalActionError`` and changes nothing."""
        self._apply_checked(self.check_action(action))

    def _apply_checked(self, a: int) -> None:
        """``apply`` after ``check_action`` passed (the env checks once, before naming the move)."""
        self.history.append(a)
        self._apply(a)
        # Only legality is forgotten here; a game's other caches (a cached public board for
        # observations, say) are kept up to date by its _apply, which knows what changed.
        # (_forget_legal inlined: this runs on every step)
        self._legal = self._legal_set = self._mask = None

    def _legal_names(self) -> list[str]:
        return [f"{a}: {self.action_name(a)}" for a in self.legal_actions()]

    def action_name(self, action: int) -> str:
        """The full name of a move (the all-seeing view: logs' final view, replays with ``all``)."""
        return self.game.catalog.name(action)

    def action_name_for(self, action: int, seat: int | None) -> str:
        """``action``, about to be taken in this state, named as ``seat`` sees it.

        The one definition of a seat's view of a move: the env's infos, terminal play, game logs
        and replays all read it. ``seat`` None is the all-seeing view. A game whose moves can be
        hidden from some seats (a secret pass, a card taken face down) overrides this so that the
        hidden part reads as such (``pass a card (hidden)``); the shared kit checks that moves
        leaving a seat's observation identical read identically to that seat."""
        return self.action_name(action)

    def action_names(self, action: int) -> list[str]:
        """``action``, about to be taken, named as each seat sees it, in seat order (what the env
        puts in every agent's info): ``action_name_for`` for every seat. A game can override it
        with a shortcut (most moves read alike to everyone); it must agree with
        ``action_name_for``."""
        if type(self).action_name_for is State.action_name_for:  # no hidden moves in this game
            return [self.action_name(action)] * self.num_players
        return [self.action_name_for(action, seat) for seat in range(self.num_players)]

    # -- seat views for front ends (terminal play, the browser) ----------------------------------
    def narrate(self, before: "State", action: int, seat: int | None) -> list[str]:
        """What ``action`` caused, as ``seat`` saw it: readable events, called on the state AFTER
        ``action`` was applied to ``before`` (a clone taken just before the move).

        The first event is the move itself (``move_line``: "player 2: play red 7", from
        ``before.action_name_for(action, seat)``); then whatever followed by rule without a
        decision (forced moves, draws the seat saw or "player 1 draws a card", dice, rituals,
        scoring, the end of a round or of the game and who won, a tie-break that decided).
        Players are named absolutely (``player_name``). Never more than ``seat`` may know;
        ``seat`` None is the all-seeing view. The shared kit checks that moves leaving a seat's
        observation identical narrate identically to it.

        A game narrates in ``kabenvs/games/<game>/narration.py`` with a function
        ``narrate(before, after, action, seat) -> list[str]`` (the whole list, move line first),
        comparing the two states' fields; without one, the move line alone is the narration."""
        if seat is not None:
            seat = self.check_seat(seat, "narrate")
        narrator = _seat_view_hooks(type(self))[0]
        if narrator is not None:
            return narrator(before, self, action, seat)
        return [move_line(before, action, seat)]

    def table_view(self, seat: int | None) -> dict[str, Any]:
        """The table as ``seat`` sees it now, as JSON-safe data for drawing (``seat`` None: all).

        Always has "game" (env id), "num_players", "seat", "current_player", "decision" (text:
        ``decision()`` for the deciding seat and for None, else only whose turn it is),
        "terminal", "winners" (a list once the game is over, else None), "scores" (the final
        scores once over, else None: a game shows running public scores in its own keys) and
        "text" (``render(seat)``). A game adds its own keys in
        ``kabenvs/games/<game>/table.py`` with ``table_view(state, seat) -> dict``, documented in
        docs/play.md ("Table views"); among them may be "targets": {action id (as a string): a key
        naming the thing drawn on the table that the move plays ("card:hand:17", "spot:4",
        "player:2", "bid:3"), or a list of keys for a move played by clicking several things in
        turn (["stock:green", "spot:3"])}, so that a front end can make that thing clickable. Never more than
        ``seat`` may know (the shared kit compares it across resampled worlds)."""
        if seat is not None:
            seat = self.check_seat(seat, "table_view")
        over = self.current_player is None
        view: dict[str, Any] = {
            "game": self.game.env_id,
            "num_players": self.num_players,
            "seat": seat,
            "current_player": self.current_player,
            # decision() may name the decider's secret (Barakka: the card in hand): the others
            # read only whose turn it is, unless the game's table view says more
            "decision": (self.decision() if seat is None or seat == self.current_player
                         else State.decision(self)),
            "terminal": over,
            "winners": (_plain_list(self.winners()) if not self.truncated else []) if over else None,
            "scores": _plain_list(self.scores()) if over else None,
            "text": self.render(seat),
        }
        drawer = _seat_view_hooks(type(self))[1]
        if drawer is not None:
            view.update(drawer(self, seat))
        return view

    def returns(self) -> list[float]:
        """Per-seat rewards: winners +1, others -1; 0 for all if everyone wins or on truncation.
        With the game option ``reward="score"``: (my score - the best other score) / score_scale."""
        n = self.num_players
        if self.current_player is not None or self.truncated:
            return [0.0] * n
        if getattr(self.game.config, "reward", "win") == "score":
            sc = self.scores()
            return [(sc[p] - max(sc[q] for q in range(n) if q != p)) / self.game.score_scale for p in range(n)]
        won = set(self.winners())
        if len(won) == n or not won:
            return [0.0] * n
        return [1.0 if p in won else -1.0 for p in range(n)]

    # -- copying and saving ---------------------------------------------------------------------
    def _data(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k[0] != "_" and k not in ("game", "rng")}

    def _dict_view(self) -> dict[str, Any]:
        return {
            "env_id": self.game.env_id,
            "config": self.game.config.to_dict(),
            "rng": self.rng.bit_generator.state,
            "state": self._data(),
        }

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain data: a copy, so editing it never changes the game."""
        return copy.deepcopy(self._dict_view())

    def to_json(self) -> str:
        return json.dumps(self._dict_view(), sort_keys=True, separators=(",", ":"))

    @staticmethod
    def from_json(text: str | bytes | dict, game: Game | None = None) -> "State":
        """Restore any game's state; the env id inside picks the game unless ``game`` is given.

        A save is untrusted input: it is validated completely before it is returned (see
        ``validate``), and anything wrong raises ``ConfigError`` naming the field."""
        try:
            data = json.loads(text) if isinstance(text, (str, bytes)) else text
        except (ValueError, RecursionError) as exc:
            raise ConfigError(f"not a saved kabenvs state: not JSON ({str(exc)[:120]})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"not a saved kabenvs state: a JSON object is needed, got {type(data).__name__}")
        wanted = {"env_id", "config", "rng", "state"}
        if set(data) != wanted:
            missing, extra = sorted(wanted - set(data)), sorted(set(data) - wanted)
            raise ConfigError(
                f"not a saved kabenvs state: {'missing ' + ', '.join(missing) if missing else ''}"
                f"{'; ' if missing and extra else ''}{'unknown ' + ', '.join(extra) if extra else ''}"
                f" (a save has exactly: {', '.join(sorted(wanted))})"
            )
        env_id, config, rng_state, fields = data["env_id"], data["config"], data["rng"], data["state"]
        if not isinstance(config, dict):
            raise ConfigError(f"saved state: config must be a mapping of options, got {type(config).__name__}")
        if not isinstance(fields, dict):
            raise ConfigError(f"saved state: state must be a mapping of fields, got {type(fields).__name__}")
        if game is None:
            from kabenvs.core.registry import game_class

            if not isinstance(env_id, str):
                raise ConfigError(f"saved state: env_id must be a string, got {brief(env_id)}")
            cls = game_class(env_id)
            try:
                game = cls(**config)
            except ConfigError:
                raise
            except (TypeError, ValueError) as exc:  # non-string keys, a wrong type deep in a config
                raise ConfigError(f"saved state: config is not a valid {env_id} config ({str(exc)[:120]})") from None
        elif env_id != game.env_id:
            raise ConfigError(f"saved state is for {brief(env_id)}, not {game.env_id!r}")
        elif config != game.config.to_dict():
            raise ConfigError(
                f"saved state is for {env_id} with config {brief(config, 600)}, but this game has {game.config.to_dict()}"
            )
        try:
            return State._load(game, fields, rng_state)
        except RecursionError:  # nesting json.loads accepts but copying it does not
            raise ConfigError("saved state: the fields are nested too deeply to be a game state") from None

    @staticmethod
    def _upgrade(game: Game, fields: dict) -> dict:
        """A save from before some of ``added_fields`` existed: each missing one takes its value at
        the saved start (where nothing has happened yet) and the saved history is replayed from there
        to give its value now. A save without a start (or whose replay fails: the checks after this
        say why) gets the start value, which keeps the state sound, if less informed."""
        added = game.State.added_fields
        missing = [k for k in added if k not in fields]
        if not missing:
            return fields
        fields = dict(fields)
        for k in missing:
            fields[k] = added[k](game, fields)
        start = fields.get("start")
        if not (isinstance(start, dict) and set(start) == {"state", "rng"} and isinstance(start["state"], dict)):
            return fields
        at_start = dict(start["state"])
        for k in added:
            if k not in at_start:
                at_start[k] = added[k](game, at_start)
        fields["start"] = {"state": at_start, "rng": start["rng"]}
        try:
            replay = game.State._restore(game, {**at_start, "start": None}, start["rng"], "start")
            history = fields.get("history")
            done = len(replay.history)
            if not isinstance(history, list) or history[:done] != replay.history:
                return fields
            for action in history[done:]:
                replay.apply(action)
        except Exception:  # noqa: BLE001 - the checks that follow name what is wrong with the save
            return fields
        for k in missing:
            fields[k] = copy.deepcopy(getattr(replay, k))
        return fields

    @staticmethod
    def _load(game: Game, fields: dict, rng_state: Any) -> "State":
        fields = State._upgrade(game, fields)
        state = game.State._restore(game, fields, rng_state, "state")
        start = fields.get("start")
        if start is not None:
            if not isinstance(start, dict) or set(start) != {"state", "rng"} or not isinstance(start["state"], dict):
                raise ConfigError("saved state: start must be null or {'state': fields, 'rng': generator state}")
            origin = game.State._restore(game, {**start["state"], "start": None}, start["rng"], "start")
            state._check_replays_from(origin)
        return state

    @classmethod
    def _restore(cls, game: Game, fields: dict, rng_state: Any, where: str) -> "State":
        """A state of ``game`` from saved fields, validated (``where`` prefixes the messages)."""
        expected = game.field_names()
        names = set(fields)
        missing = sorted(expected - names - {"start"})
        extra = sorted(names - expected)
        if missing:
            raise ConfigError(f"saved {where}: field {missing[0]!r} is missing (a {game.name} state has: "
                              f"{', '.join(sorted(expected))})")
        if extra:
            raise ConfigError(f"saved {where}: {extra[0]!r} is not a field of a {game.name} state "
                              f"(it has: {', '.join(sorted(expected))})")
        state = cls.__new__(cls)
        state.__dict__.update(copy.deepcopy(fields))
        state.__dict__.setdefault("start", None)
        state.game = game
        state.rng = np.random.Generator(np.random.PCG64(_TEMPLATE_SEED))
        try:
            state.rng.bit_generator.state = rng_state
        except (TypeError, ValueError, KeyError, OverflowError) as exc:
            raise ConfigError(f"saved {where}: rng is not a PCG64 generator state ({str(exc)[:120]})") from None
        state._reset_caches()
        problems = state.validate()
        if problems:
            first = problems[0] if len(problems[0]) <= 5 * BRIEF_LIMIT else problems[0][:5 * BRIEF_LIMIT] + "..."
            raise ConfigError(f"saved {where} is invalid: {first}"
                              + (f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""))
        return state

    def _check_replays_from(self, origin: "State") -> None:
        """A saved game's history must replay from its saved start to exactly its saved fields."""
        done = len(origin.history)
        if self.history[:done] != origin.history:
            raise ConfigError("saved state: history does not begin with the start's history")
        replay = origin
        for step, action in enumerate(self.history[done:], start=done):
            try:
                replay.apply(action)
            except IllegalActionError:
                raise ConfigError(f"saved state: history[{step}]={action} is not legal when replayed from "
                                  f"the saved start") from None
            except Exception as exc:  # a start whose fields a game's checks let through but cannot play
                raise ConfigError(f"saved state: history[{step}]={action} cannot be replayed from the saved "
                                  f"start ({type(exc).__name__}: {str(exc)[:120]})") from None
        mine = {k: v for k, v in self._data().items() if k != "start"}
        theirs = {k: v for k, v in replay._data().items() if k != "start"}
        if json.dumps(mine, sort_keys=True) != json.dumps(theirs, sort_keys=True):
            differ = sorted(k for k in mine if json.dumps(mine[k], sort_keys=True) != json.dumps(theirs.get(k), sort_keys=True))
            raise ConfigError(f"saved state: field {differ[0]!r} differs from what the history gives when "
                              f"replayed from the saved start (a tampered or inconsistent save)")

    def validate(self) -> list[str]:
        """Problems of a restored state, each naming the field ("current_player: -1 is not a
        seat of a 2-player game"); empty when the state is sound. Base fields here, then the
        game's ``check_fields`` (types and ranges), its ``invariants`` (conservation) and the
        decision: a seat to move must have a legal move."""
        n, size = self.num_players, self.game.catalog.size
        problems = []
        cp = self.current_player
        if cp is not None and (isinstance(cp, bool) or not isinstance(cp, int) or not 0 <= cp < n):
            problems.append(f"current_player: {brief(cp)} is not a seat of a {n}-player game (0..{n - 1} or null)")
        if not isinstance(self.truncated, bool):
            problems.append(f"truncated: {brief(self.truncated)} must be true or false")
        elif self.truncated and cp is not None:
            problems.append("truncated: true while a player is still to move (a truncated game is over)")
        h = self.history
        if not isinstance(h, list) or not all(type(a) is int and 0 <= a < size for a in h):
            problems.append(f"history: must be a list of action ids 0..{size - 1}")
        if problems:
            return problems
        try:
            problems = self.check_fields()
            if problems:
                return problems
            problems = self.invariants()
            if problems:
                return problems
            if cp is not None and not self.legal_actions():
                return [f"current_player: player {cp} is to move but has no legal move ({self.decision()})"]
            if cp is None and not self.truncated:
                self.winners()
        except Exception as exc:  # a check a game forgot: still refused in one line, never later
            return [f"the fields are inconsistent ({type(exc).__name__}: {str(exc)[:120]})"]
        return []

    def check_fields(self) -> list[str]:
        """Types and ranges of this game's own fields, each problem naming the field. Games
        override it; ``invariants`` then checks what must hold between fields."""
        return []

    def clone(self) -> "State":
        """Generic copy (deep-copies the public fields); games override it with a fast one that
        starts from ``_clone_base`` and copies their own fields."""
        new = self._clone_base()
        for key, value in self._data().items():
            if key not in new.__dict__:
                new.__dict__[key] = copy.deepcopy(value)
        new._reset_caches()
        return new

    def __deepcopy__(self, memo) -> "State":
        """``copy.deepcopy`` is ``clone()``: the game shared, the fields copied, the caches (some
        memoise observation parts in memoryviews, which cannot be copied) left to be rebuilt.
        OpenSpiel's ``clone()`` of a wrapped state deep-copies it."""
        return self.clone()

    def __getstate__(self) -> dict:
        """Pickling keeps what a clone keeps (no caches; see ``__deepcopy__``)."""
        return self.clone().__dict__

    def _clone_base(self, share_rng: bool = False) -> "State":
        """A new state of the same class with the base fields copied (game, generator,
        current_player, truncated, history). ``share_rng`` is for games that draw no chance after
        the deal; the caller copies its own fields and then calls ``_reset_caches``."""
        new = self.__class__.__new__(self.__class__)
        new.game = self.game
        new.rng = self.rng if share_rng else copy_generator(self.rng)
        new.current_player = self.current_player
        new.truncated = self.truncated
        new.history = self.history[:]
        new.start = self.start
        return new

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game.env_id} player={self.current_player}>"
