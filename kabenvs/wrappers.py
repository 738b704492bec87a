"""Single-agent views of kabenvs games for plain Gymnasium and Stable-Baselines3 code.

``SingleAgentEnv(env_id, seat=0, opponents="heuristic", **options)`` is a ``gymnasium.Env``: one
seat is yours, every other seat is played inside ``step`` by an agent named by a seat spec
(``random``, ``heuristic``, ``search[:key=value,...]`` or a model path), so a game looks like any
single-agent environment. ``action_masks()`` gives MaskablePPO the legal moves.

``self_play_vec_env(env_id, num_envs, opponents={...})`` is the batched self-play ``VecEnv`` the
project's own training uses (``training/selfplay.py``): N games in one process, the opponents'
decisions answered in one forward pass per policy. It needs the ``train`` extra.

Importing this module imports gymnasium and numpy only; torch is imported when a model plays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from kabenvs.agents.base import Agent, Decision
from kabenvs.core.errors import ConfigError, IllegalActionError, brief
from kabenvs.core.game import Game, State
from kabenvs.core.registry import make_game

SEAT_SPECS = "'random', 'heuristic', 'search[:key=value,...]', 'zoo' (the shipped agent) or a model path"


def agent_factory(spec: str, game: Game, trust_pickle: bool = False,
                  deterministic: bool = True) -> Callable[[int], Agent]:
    """A ``seed -> Agent`` factory for a seat spec (checked now: a bad spec fails here, not mid-game).

    Bots are cheap and are built afresh for every game from a seed, so a seeded ``reset`` replays
    exactly; a model is loaded once and shared (it plays its argmax unless ``deterministic=False``).
    A Stable-Baselines3 ``.zip`` is refused unless ``trust_pickle=True`` (loading one runs code)."""
    if not isinstance(spec, str) or not spec:
        raise ConfigError(f"seat spec {spec!r}: give {SEAT_SPECS}")
    kind = spec.lower()
    if kind == "random":
        from kabenvs.agents import RandomAgent

        return lambda seed: RandomAgent(seed)
    if kind == "heuristic":
        from kabenvs.agents import heuristic_agent

        try:
            heuristic_agent(game.env_id, seed=0)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"{game.env_id} has no heuristic bot ({exc})") from None
        return lambda seed: heuristic_agent(game.env_id, seed=seed)
    from kabenvs.agents.search import is_search_spec, parse_search_spec, search_agent_from_spec

    if is_search_spec(spec):
        parse_search_spec(spec)
        return lambda seed: search_agent_from_spec(spec, game, seed=seed)
    from kabenvs.zoo import is_zoo_spec, zoo_model_path

    if is_zoo_spec(spec):
        spec = zoo_model_path(game)  # no shipped agent for this game and count: one ConfigError line
    from kabenvs.agents.policy import load_agent, model_exists  # torch: only when a model plays

    if not model_exists(spec):
        raise ConfigError(f"seat spec {brief(spec)} is neither a bot nor an existing model file; give {SEAT_SPECS}")
    agent = load_agent(spec, game, seed=0, deterministic=deterministic, trust_pickle=trust_pickle)
    return lambda seed: agent


class SingleAgentEnv(gymnasium.Env):
    """One seat of a kabenvs game as a Gymnasium env; the other seats are played by agents.

    - ``seat``: your seat (an int), or ``"random"`` for a seat drawn at every ``reset``.
    - ``opponents``: one seat spec for all other seats, or a list with one spec per other seat
      (in seat order, your seat skipped).
    - ``**options``: the game's options (``num_players=3``, ``mode=...``).
    - ``illegal``: what an illegal action does: ``"lose"`` (default) ends the episode
      (``terminated``) with reward ``illegal_reward`` and ``info["illegal_action"]``; ``"raise"``
      raises ``IllegalActionError`` and changes nothing. A masked learner never sends one; the
      default lets generic code (Gymnasium's ``check_env``, an unmasked agent) step any action.

    Observations are ``state.observation(seat)`` (float32, the seat's information state); the
    reward is 0 until the game ends, then the seat's return. Every decision of your seat is a step,
    also out of turn (reactions, responses). ``info["action_mask"]`` and ``action_masks()`` hold the
    legal actions. A game cut by the decision cap (``game.max_decisions()``) is ``truncated``. A deal
    that ends before your seat ever decides (possible where seats can be skipped) is dealt again.
    ``render()`` with ``render_mode="ansi"`` returns the table as your seat sees it.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, env_id: str, seat: int | str = 0, opponents: str | Sequence[str] = "heuristic",
                 render_mode: str | None = None, illegal: str = "lose", illegal_reward: float = -1.0,
                 trust_pickle: bool = False, **options: Any) -> None:
        self.game = make_game(env_id, **options)
        n = self.game.num_players
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise ConfigError(f"seat={seat!r}: give a seat 0..{n - 1} or 'random'")
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode={render_mode!r}; allowed: None, 'ansi'")
        if illegal not in ("lose", "raise"):
            raise ConfigError(f"illegal={illegal!r}; allowed: 'lose', 'raise'")
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ConfigError(f"opponents: {len(specs)} spec(s) given for the {n - 1} other seat(s) of {env_id}")
        factories: dict[str, Callable[[int], Agent]] = {}
        for spec in specs:  # a model named twice is loaded once
            if spec not in factories:
                factories[spec] = agent_factory(spec, self.game, trust_pickle=trust_pickle)
        self._opponent_factories = [factories[s] for s in specs]
        self.opponent_specs = specs
        self.seat_choice = seat
        self.render_mode = render_mode
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(self.game.observation_size,), dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.state: State | None = None
        self.seat = seat if isinstance(seat, int) else 0
        self.agents: list[Agent | None] = []
        self._decisions = 0
        self._limit = self.game.max_decisions()

    # -- Gymnasium API -----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)  # seeds self.np_random, the one source of the episode's chance
        while True:
            self._deal()
            self._play_others()
            if self._at_seat():
                return self._obs(), self._info()

    def step(self, action):
        state = self._require_state()
        if state.current_player != self.seat:
            raise RuntimeError("the episode is over: call reset() before step()")
        try:
            action = state.check_action(action)
        except IllegalActionError:
            if self.illegal == "raise":
                raise
            self._over = True
            return self._obs(), self.illegal_reward, True, False, {
                **self._info(), "illegal_action": repr(action),
            }
        state.apply(action)
        self._decisions += 1
        self._play_others()
        if self._at_seat():
            return self._obs(), 0.0, False, False, self._info()
        if state.current_player is not None:  # our decision cap, not the game's own end
            return self._obs(), 0.0, False, True, {**self._info(), "returns": []}
        returns = state.returns()
        info = {**self._info(), "returns": list(returns)}
        # a game cut by its own limit (state.truncated) is truncated, with returns of 0
        return self._obs(), float(returns[self.seat]), not state.truncated, bool(state.truncated), info

    def action_masks(self) -> np.ndarray:
        """The legal actions of your seat now, as booleans (all False once the episode is over)."""
        state = self._require_state()
        if state.current_player != self.seat or getattr(self, "_over", False):
            return np.zeros(self.game.num_actions, dtype=bool)
        return state.legal_mask().astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self._require_state().render(self.seat)

    # -- inside -------------------------------------------------------------------------------------
    def _deal(self) -> None:
        rng = self.np_random
        n = self.game.num_players
        self.state = self.game.new_state(np.random.default_rng(int(rng.integers(2**63))))
        self.seat = int(rng.integers(n)) if self.seat_choice == "random" else int(self.seat_choice)
        others = iter(self._opponent_factories)
        self.agents = [None if p == self.seat else next(others)(int(rng.integers(2**31))) for p in range(n)]
        self._decisions = 0
        self._over = False

    def _play_others(self) -> None:
        state = self.state
        while state.current_player is not None and state.current_player != self.seat \
                and self._decisions < self._limit:
            p = state.current_player
            state.apply(self.agents[p].act(Decision(p, state)))
            self._decisions += 1

    def _at_seat(self) -> bool:
        return self.state.current_player == self.seat and self._decisions < self._limit

    def _obs(self) -> np.ndarray:
        return np.asarray(self.state.observation(self.seat), dtype=np.float32)

    def _info(self) -> dict[str, Any]:
        return {"seat": self.seat, "action_mask": self.action_masks().astype(np.int8)}

    def _require_state(self) -> State:
        if self.state is None:
            raise RuntimeError("call reset() first")
        return self.state


def self_play_vec_env(env_id: str, num_envs: int = 16, opponents: dict[str, float] | None = None,
                      seed: int | None = None, max_snapshots: int = 10, skip_forced: bool = False,
                      deterministic_opponents: bool = False, **options: Any):
    """The batched self-play ``VecEnv`` of the project's training (needs the ``train`` extra).

    ``opponents`` weighs the kinds each opponent seat is drawn from when a game is dealt:
    ``self`` (your current policy), ``snapshots`` (frozen copies you add with
    ``env.pool.add_snapshot(step)``), ``random`` and ``heuristic``; default ``{"self": 1.0}``.
    With ``self`` or ``snapshots`` call ``env.pool.set_current(model.policy)`` once the model exists
    (MaskablePPO reads the masks through ``env.action_masks()``)."""
    from training.pool import OpponentPool
    from training.selfplay import SelfPlayVecEnv

    game = make_game(env_id, **options)
    weights = dict(opponents or {"self": 1.0})
    pool = OpponentPool(env_id, weights, max_snapshots, rng=np.random.default_rng(
        None if seed is None else seed + 17), warn=False)
    return SelfPlayVecEnv(game, num_envs, pool, seed=seed, deterministic_opponents=deterministic_opponents,
                          skip_forced=skip_forced)


__all__ = ["SingleAgentEnv", "agent_factory", "self_play_vec_env"]
