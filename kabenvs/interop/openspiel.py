"""Every kabenvs game as an OpenSpiel game: ``load_game(env_id, **options) -> pyspiel.Game``.

Each env id is registered with OpenSpiel as the Python game ``kabenvs_<env_id>`` (for example
``pyspiel.load_game("kabenvs_kabaleo_v0", {"num_players": 3})``), whose parameters are the game's
options plus ``rng_seed``. What the OpenSpiel game is, exactly:

- sequential, imperfect information, terminal rewards (``State.returns()`` at the end, 0 before);
  zero-sum at 2 players, general-sum otherwise; utilities in [-1, 1] with ``reward="win"``;
- **chance is sampled, not explicit** (``SAMPLED_STOCHASTIC``): a kabenvs state draws its chance
  (the shuffle, later draws, dice) from its own generator, so OpenSpiel never sees a chance node.
  ``new_initial_state()`` deals with a generator drawn from the game's (``rng_seed=-1``, the
  default, seeds it from the OS; any other value makes the sequence of deals reproducible). An
  explicit-chance version would need every game to expose each draw as an outcome list with
  probabilities, which the kabenvs contract does not; algorithms that need explicit chance (exact
  CFR over the full tree, exact best response) do not apply; sampling algorithms (MCCFR with
  outcome sampling, ISMCTS, NFSP, policy-gradient methods) do;
- the current player is the seat that must decide, also out of turn; the legal actions are the
  state's own legal actions, ascending; actions are the game's catalog ids with its names;
- the information-state tensor **and** the observation tensor are the kabenvs observation of the
  seat (its information state, with the summaries its game's docs page names, if any:
  ``State.recall_gap``), with named views per observation block;
- the observation string is the seat's render (``State.render(seat)``, what the seat sees on the
  table); the information-state string is that render plus one line with the seat's exact
  information state (``kabenvs.core.view_history``: a digest of everything the seat has read since
  the deal), so two histories the seat can tell apart never share a string, even where the render
  or the observation summarises: OpenSpiel's tabular algorithms and ISMCTS key their nodes by it;
- ``resample_from_infostate(player, sampler)`` is the kabenvs ``resample_hidden``: a world the seat
  cannot tell from the real one, with a fresh future, never one that followed the real hidden
  choices where another can be had (``_world``). OpenSpiel's ISMCTS bot uses it as is.
- States are not serialisable through OpenSpiel (a kabenvs save is ``state.kabenvs_state.to_json()``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kabenvs.agents.search.tree import Worlds
from kabenvs.core.errors import ConfigError, brief
from kabenvs.core.game import Game, State
from kabenvs.core.registry import env_ids, game_class
from kabenvs.core.view_history import ViewHistory
from kabenvs.extras import require

pyspiel = require("pyspiel", "openspiel")

PREFIX = "kabenvs_"
_REGISTERED: set[str] = set()


def short_name(env_id: str) -> str:
    return PREFIX + env_id


def _defaults(env_id: str) -> dict[str, Any]:
    """The game's options with their default values, plus ``rng_seed`` (OpenSpiel's parameters)."""
    cls = game_class(env_id)
    return {**cls().config.to_dict(), "rng_seed": -1}


def _game_type(env_id: str, num_players: int | None = None) -> pyspiel.GameType:
    cls = game_class(env_id)
    counts = cls.Config.PLAYER_COUNTS
    zero_sum = num_players == 2
    return pyspiel.GameType(
        short_name=short_name(env_id),
        long_name=f"kabenvs {env_id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(counts),
        min_num_players=min(counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_defaults(env_id),
    )


# how KabenvsState.serialize's text starts (kabenvs' JSON save follows)
SERIAL_TAG = "kabenvs-state-json="


class KabenvsGame(pyspiel.Game):
    """A kabenvs ``Game`` (one configuration) seen as an OpenSpiel game."""

    def __init__(self, env_id: str, params: dict[str, Any] | None = None) -> None:
        options = dict(params or {})
        seed = int(options.pop("rng_seed", -1))
        self.kabenvs_game: Game = game_class(env_id)(**options)
        game = self.kabenvs_game
        win = getattr(game.config, "reward", "win") == "win"
        n = game.num_players
        # a score reward has no tighter bound that holds for every game: these are loose
        bound = 1.0 if win else 1000.0
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_actions,
            max_chance_outcomes=0,
            num_players=n,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0 if n == 2 else None,
            max_game_length=game.max_decisions(),
        )
        super().__init__(_game_type(env_id, n), info, {**game.config.to_dict(), "rng_seed": seed})
        self.env_id = env_id
        self._rng = np.random.default_rng(None if seed < 0 else seed)

    def new_initial_state(self) -> KabenvsState:
        deal = self.kabenvs_game.new_state(np.random.default_rng(int(self._rng.integers(2**63))))
        return KabenvsState(self, deal)

    def make_py_observer(self, iig_obs_type=None, params=None) -> KabenvsObserver:
        return KabenvsObserver(self.kabenvs_game, iig_obs_type, params)

    def deserialize_state(self, text: str) -> KabenvsState:
        """A state from ``KabenvsState.serialize``'s text (kabenvs' JSON save, validated field by
        field: a bad one is a ``ConfigError`` naming the field). OpenSpiel's pickle form is
        refused: unpickling it would run whatever code the text names. The state's OpenSpiel
        ``history()`` starts empty (as a resampled world's); ``kabenvs_state.history`` has the moves."""
        if not isinstance(text, str) or not text.startswith(SERIAL_TAG):
            raise ConfigError(f"deserialize_state: not a kabenvs state ({brief(text, 40)}); give the text of "
                              f"state.serialize(), which starts with {SERIAL_TAG!r} (OpenSpiel's pickle form of "
                              "Python states is refused: reading it would run code from it)")
        return KabenvsState(self, self.kabenvs_game.state_from_json(text[len(SERIAL_TAG):]))


class KabenvsState(pyspiel.State):
    """An OpenSpiel state holding a live kabenvs ``State`` (``kabenvs_state``)."""

    def __init__(self, game: KabenvsGame, kabenvs_state: State, views: ViewHistory | None = None) -> None:
        super().__init__(game)
        self.kabenvs_state = kabenvs_state
        # what each seat has read, for the information-state string: built by replay for a seat
        # the first time it is asked for, then extended at every move
        self.views = views if views is not None else ViewHistory()
        self._worlds = None  # ((seat, moves played), the search bot's Worlds for that position)
        self.worlds_followed_truth = 0
        self.patient_draws = 0  # patient draws (core.patience) made for this state's positions

    def current_player(self) -> int:
        p = self.kabenvs_state.current_player
        return pyspiel.PlayerId.TERMINAL if p is None else int(p)

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.kabenvs_state.current_player:
            return []  # only the seat to decide has moves (OpenSpiel asks every seat)
        return sorted(self.kabenvs_state.legal_actions())

    def _apply_action(self, action: int) -> None:
        ks = self.kabenvs_state
        if not self.views.tracking:
            ks.apply(int(action))
            return
        before = ks.clone()  # narrate reads the position before the move
        ks.apply(int(action))
        self.views.extend(before, ks, int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.kabenvs_state.game.catalog.name(int(action))

    def is_terminal(self) -> bool:
        return self.kabenvs_state.current_player is None

    def returns(self) -> list[float]:
        return [float(r) for r in self.kabenvs_state.returns()]

    def rewards(self) -> list[float]:
        return self.returns() if self.is_terminal() else [0.0] * self.kabenvs_state.num_players

    def resample_from_infostate(self, player_id: int, probability_sampler=None) -> KabenvsState:
        """A world consistent with everything ``player_id`` has seen (kabenvs ``resample_hidden``),
        whose future chance is fresh. The sampler's number seeds it when it gives one."""
        try:
            seed = int(float(probability_sampler()) * 2**53)
        except Exception:  # OpenSpiel's samplers are not callable from Python in every version
            seed = int(self.get_game()._rng.integers(2**63))
        # a checked seat: int() read 1.7 as seat 1 and '2' as seat 2
        player_id = self.kabenvs_state.check_seat(player_id, "resample_from_infostate")
        world = self._world(player_id, np.random.default_rng(seed))
        # The seat read the same things in the world as here (the contract of resample_hidden,
        # which the shared kit checks by replaying worlds step by step), so its digest carries
        # over (built here first if no one asked for it yet); the other seats read other things
        # there, and theirs are built when asked for by replaying the world from its own start
        # (the deal, or the position the resampler rewrote from: Kabaal's current round), so
        # worlds drawn for one decision key the other seats' nodes alike when they agree.
        self.views.key(self.kabenvs_state, int(player_id))
        return KabenvsState(self.get_game(), world, self.views.copy(seats={int(player_id)}))

    # draws per call before a world that follows the real hidden choices is handed out
    WORLD_TRIES = 8

    def _world(self, player: int, rng: np.random.Generator) -> State:
        """``resample_hidden`` through the search bot's ``Worlds`` (one per seat, for this
        position): a world the resampler marks as following the real hidden choices (its budget
        ran out: Cábula, Alakazum!) is replaced by a copy of an earlier usual world for the same
        position, or drawn again, once patiently (``core.patience``: the resampler tries far
        longer; counted in ``patient_draws``). OpenSpiel needs a state back, so only when
        ``WORLD_TRIES`` draws in a row all fall back with no earlier world to copy is a marked one
        returned (still consistent with the seat's history; counted in ``worlds_followed_truth``)."""
        key = (player, len(self.kabenvs_state.history))
        if self._worlds is None or self._worlds[0] != key:
            self._worlds = (key, Worlds(self.kabenvs_state, player))
        source = self._worlds[1]
        patient_before = source.patient
        try:
            for _ in range(self.WORLD_TRIES):
                world = source.draw(rng)
                if world is not None:
                    return world
        finally:
            self.patient_draws += source.patient - patient_before
        world = self.kabenvs_state.resample_hidden(player, rng)
        self.worlds_followed_truth += bool(getattr(world, "_followed_truth", False))
        return world

    def serialize(self) -> str:
        """The state as one line of kabenvs' own JSON save (``State.to_json``), which
        ``KabenvsGame.deserialize_state`` reads back, validated. OpenSpiel's own form for Python
        games is a pickle of the object's attributes, which its deserialisation unpickles: text
        that runs code when read, which kabenvs never loads (``deserialize_state`` refuses it)."""
        return SERIAL_TAG + self.kabenvs_state.to_json()

    def __deepcopy__(self, memo) -> KabenvsState:  # clone(): the kabenvs state's own cheap copy
        return KabenvsState(self.get_game(), self.kabenvs_state.clone(), self.views.copy())

    def __str__(self) -> str:
        return self.kabenvs_state.render(None)


class KabenvsObserver:
    """OpenSpiel's Python observer: the seat's kabenvs observation and render.

    Only observations of one seat's private information are defined (the kabenvs observation is
    per seat); the tensor is the same for perfect-recall information states and observations:
    the kabenvs observation is the seat's information state (up to the summaries its game names).
    The perfect-recall string is exact: the render plus the seat's ``ViewHistory`` key.
    """

    def __init__(self, game: Game, iig_obs_type=None, params=None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("kabenvs observations are per seat: only private_info=SINGLE_PLAYER is supported")
        self.perfect_recall = iig_obs_type is None or iig_obs_type.perfect_recall
        self.layout = game.layout
        self.tensor = np.zeros(game.observation_size, np.float32)
        self.dict = {name: self.layout.view(self.tensor, name) for name in self.layout.blocks()}

    def set_from(self, state: KabenvsState, player: int) -> None:
        self.tensor[:] = state.kabenvs_state.observation(int(player))

    def string_from(self, state: KabenvsState, player: int) -> str:
        text = state.kabenvs_state.render(int(player))
        if not self.perfect_recall:
            return text
        return f"{text}\ninformation state {state.views.key(state.kabenvs_state, int(player))}"


def register(env_id: str) -> str:
    """Register ``env_id`` with OpenSpiel (once); returns its OpenSpiel short name."""
    if env_id not in _REGISTERED:
        game_class(env_id)  # an unknown env id is a ConfigError naming the known ones
        # The factory must be a class: a function registered as a factory makes the interpreter
        # abort at exit (OpenSpiel releases it after Python has shut down).
        def __init__(self, params=None):
            KabenvsGame.__init__(self, env_id, params)

        factory = type(f"KabenvsGame_{env_id}", (KabenvsGame,), {"__init__": __init__})
        pyspiel.register_game(_game_type(env_id), factory)
        _REGISTERED.add(env_id)
    return short_name(env_id)


def load_game(env_id: str, **options: Any) -> pyspiel.Game:
    """The OpenSpiel game of ``env_id`` with kabenvs options (``num_players=3``, ``rng_seed=7``...)."""
    name = register(env_id)
    known = _defaults(env_id)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ConfigError(f"{env_id}: unknown option(s) {unknown}; allowed: {sorted(known)}")
    return pyspiel.load_game(name, options)


def register_all() -> list[str]:
    """Register every kabenvs game; returns their OpenSpiel short names."""
    return [register(e) for e in env_ids()]


__all__ = ["KabenvsGame", "KabenvsObserver", "KabenvsState", "load_game", "register", "register_all"]
