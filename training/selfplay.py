"""SelfPlayVecEnv: N games of one kabenvs game in one process, seen from one learner seat each.

This is the single-agent view MaskablePPO trains on, vectorised. Each slot holds a raw ``State``
(no AEC wrapper on the hot path) and a learner seat. ``step(actions)`` applies the learner's
actions, then plays every other seat's decisions, batched across the N games: pending opponent
decisions are grouped by opponent (pool key) and each policy group is answered with one forward
pass, until every game is back at a learner decision or over. A finished game reports the
learner's return as the reward and is dealt again at once, with the learner's seat and the
opponents drawn anew (SB3's auto-reset convention, ``terminal_observation`` in ``info``).

What the learner sees is exactly its own seat's view: ``state.observation(seat)`` and
``state.legal_mask()`` when ``state.current_player == seat``; out-of-turn decisions of its seat
(reactions, responses) are learner steps like any other. A solo game has no opponents.
With ``skip_forced`` a learner decision that has a single legal action is played for it: no
step, no observation, a shorter horizon for credit assignment (Alakazum! has ~30% such decisions).
Batching the opponents is what makes this several times faster than one policy call per AEC step.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from kabenvs.agents.base import Decision
from kabenvs.agents.numpy_actor import opponent_actions
from kabenvs.core.game import Game, State
from .pool import BOT_KINDS, OpponentPool


class GamesVecEnv(VecEnv):
    """What SB3 asks of a VecEnv beyond reset and step, for the self-play envs (this module's and
    ``parallel_selfplay``'s): one learner view of many games, no per-game wrappers. ``_masks``
    holds the learner's legal actions in every slot."""

    _masks: np.ndarray

    def __init__(self, game: Game, num_envs: int) -> None:
        self.render_mode = None  # read by VecEnv.__init__
        obs_space = spaces.Box(low=-np.inf, high=np.inf, shape=(game.observation_size,), dtype=np.float32)
        super().__init__(num_envs, obs_space, spaces.Discrete(game.num_actions))
        self.game = game

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every slot (what MaskablePPO samples from)."""
        return self._masks.copy()

    def worker_load(self) -> float:
        """Cores this env's own worker processes kept busy lately (none here: every game is
        played in the learner's process)."""
        return 0.0

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":  # sb3_contrib.common.maskable.utils.get_action_masks
            return [self._masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices


class SelfPlayVecEnv(GamesVecEnv):
    def __init__(
        self,
        game: Game,
        num_envs: int,
        pool: OpponentPool,
        seed: int | None = None,
        deterministic_opponents: bool = False,
        max_decisions: int | None = None,
        skip_forced: bool = False,
    ) -> None:
        super().__init__(game, num_envs)
        self.pool = pool
        self.deterministic_opponents = deterministic_opponents
        self.skip_forced = skip_forced
        self.max_decisions = max_decisions or game.max_decisions()
        self.rng = np.random.default_rng(seed)
        self.states: list[State | None] = [None] * num_envs
        self.learner: list[int] = [0] * num_envs
        self.opponents: list[list[str]] = [[] for _ in range(num_envs)]
        self.seat_policies: list[list[Any]] = [[] for _ in range(num_envs)]
        self.decisions: list[int] = [0] * num_envs  # decisions so far in each slot's game
        self.learner_steps: list[int] = [0] * num_envs
        self.episode_start: list[float] = [0.0] * num_envs
        self._heuristics: dict[int, Any] = {}
        self._actions: np.ndarray | None = None
        self._masks = np.zeros((num_envs, game.num_actions), dtype=np.int8)
        # time accounting for the throughput report (seconds)
        self.time_env = 0.0  # whole step_wait, opponents included
        self.time_opponents = 0.0  # choosing opponents' actions (forward passes, bots)
        self.episodes = 0

    # -- dealing --------------------------------------------------------------------------------
    def _deal(self, i: int) -> None:
        game = self.game
        n = game.num_players
        self.states[i] = game.new_state(np.random.default_rng(int(self.rng.integers(2**63))))
        self.learner[i] = int(self.rng.integers(n))
        self.opponents[i] = ["" if p == self.learner[i] else self.pool.sample() for p in range(n)]
        # Hold the opponents' networks for the whole game: the pool may drop a snapshot meanwhile.
        self.seat_policies[i] = [
            self.pool.policy(k) if k not in ("", *BOT_KINDS) else None for k in self.opponents[i]
        ]
        if "heuristic" in self.opponents[i] and i not in self._heuristics:
            from kabenvs.agents import heuristic_agent

            self._heuristics[i] = heuristic_agent(game.env_id, seed=int(self.rng.integers(2**31)))
        self.decisions[i] = 0
        self.learner_steps[i] = 0
        self.episode_start[i] = time.perf_counter()

    def _waiting(self, i: int) -> bool:
        """Whether slot ``i``'s game is at an opponent's decision (and may go on)."""
        st = self.states[i]
        p = st.current_player
        return p is not None and p != self.learner[i] and self.decisions[i] < self.max_decisions

    def _at_learner(self, i: int) -> bool:
        st = self.states[i]
        return st.current_player == self.learner[i] and self.decisions[i] < self.max_decisions

    def _play_opponents(self, slots: list[int]) -> None:
        """Advance the given games until each is at a learner decision or over."""
        pending = [i for i in slots if self._waiting(i)]
        while pending:
            t0 = time.perf_counter()
            groups: dict[str, list[int]] = defaultdict(list)
            for i in pending:
                groups[self.opponents[i][self.states[i].current_player]].append(i)
            chosen: list[tuple[int, int]] = []
            for key, idx in groups.items():
                if key == "random":
                    for i in idx:
                        legal = self.states[i].legal_actions()
                        chosen.append((i, legal[int(self.rng.integers(len(legal)))]))
                elif key == "heuristic":
                    for i in idx:
                        st = self.states[i]
                        chosen.append((i, int(self._heuristics[i].act(Decision(st.current_player, st)))))
                elif key == "search":
                    for i in idx:
                        st = self.states[i]
                        chosen.append((i, int(self.pool.search_agent.act(Decision(st.current_player, st)))))
                else:
                    obs = np.stack([self.states[i].observation(self.states[i].current_player) for i in idx])
                    masks = np.stack([self.states[i].legal_mask() for i in idx])
                    first = self.states[idx[0]].current_player
                    policy = self.seat_policies[idx[0]][first]  # one key, one network
                    acts = opponent_actions(policy, obs, masks, self.deterministic_opponents, self.rng)
                    chosen.extend(zip(idx, acts.tolist()))
            self.time_opponents += time.perf_counter() - t0
            for i, a in chosen:
                self.states[i].apply(a)
                self.decisions[i] += 1
            pending = [i for i, _ in chosen if self._waiting(i)]

    def _advance(self, slots: list[int]) -> None:
        """Play the opponents (and, with ``skip_forced``, the learner's forced moves) until each
        game is at a learner decision with a real choice, or over."""
        while slots:
            self._play_opponents(slots)
            if not self.skip_forced:
                return
            forced = []
            for i in slots:
                if self._at_learner(i):
                    legal = self.states[i].legal_actions()
                    if len(legal) == 1:
                        self.states[i].apply(legal[0])
                        self.decisions[i] += 1
                        forced.append(i)
            slots = forced

    def _start_games(self, slots: list[int]) -> None:
        """Deal new games in ``slots`` and play them up to the learner's first decision.

        A game that ends before the learner ever decides (possible where seats can be skipped)
        gives the learner no step, so it is simply dealt again."""
        todo = list(slots)
        while todo:
            for i in todo:
                self._deal(i)
            self._advance(todo)
            todo = [i for i in todo if not self._at_learner(i)]

    # -- VecEnv API ----------------------------------------------------------------------------------
    def reset(self):
        if self._seeds[0] is not None:
            self.rng = np.random.default_rng(self._seeds[0])
            self.pool.rng = np.random.default_rng(self._seeds[0] + 1_000_003)
            self.pool.reseed_search(self._seeds[0] + 2_000_003)
        self._reset_seeds()
        self._heuristics.clear()
        self._start_games(list(range(self.num_envs)))
        return self._observe(range(self.num_envs), np.empty((self.num_envs, self.game.observation_size), np.float32))

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        t0 = time.perf_counter()
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float32)
        dones = np.zeros(n, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        for i, a in enumerate(self._actions.tolist()):
            self.states[i].apply(a)
            self.decisions[i] += 1
            self.learner_steps[i] += 1
        self._advance(list(range(n)))
        obs = np.empty((n, self.game.observation_size), dtype=np.float32)
        finished = [i for i in range(n) if not self._at_learner(i)]
        for i in finished:
            st = self.states[i]
            seat = self.learner[i]
            capped = st.current_player is not None  # our decision cap, not the game's own end
            reward = 0.0 if capped else float(st.returns()[seat])
            rewards[i] = reward
            dones[i] = True
            infos[i] = {
                "terminal_observation": st.observation(seat),
                "TimeLimit.truncated": capped,
                "episode": {
                    "r": reward, "l": self.learner_steps[i],
                    "t": round(time.perf_counter() - self.episode_start[i], 6),
                },
                "learner_seat": seat,
                "returns": [] if capped else st.returns(),
                "opponents": [k for p, k in enumerate(self.opponents[i]) if p != seat],
            }
            self.episodes += 1
        if finished:
            self._start_games(finished)
        self._observe(range(n), obs)
        self.time_env += time.perf_counter() - t0
        return obs, rewards, dones, infos

    def _observe(self, slots, out: np.ndarray) -> np.ndarray:
        for i in slots:
            st = self.states[i]
            out[i] = st.observation(self.learner[i])
            self._masks[i] = st.legal_mask()
        return out

    def close(self) -> None:
        pass
