"""GameEnv: the one PettingZoo AEC adapter, shared by every game.

It is deliberately lean: it checks turn order and actions itself instead of stacking
PettingZoo's generic wrappers (``OrderEnforcingWrapper``, ``AssertOutOfBoundsWrapper``, ...),
whose cost alone caps an env near 10k steps/s on a small machine. It is still safe: a step by
the wrong agent, a step before ``reset`` and an illegal action all raise clear errors and change
nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from kabenvs.core.errors import ConfigError, IllegalActionError, brief
from kabenvs.core.game import Game, State, as_generator


class GameEnv(AECEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "kabenvs", "is_parallelizable": False}

    def __init__(self, game: Game, render_mode: str | None = None, max_steps: int | None = None):
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise ConfigError(f"render_mode={render_mode!r}; allowed: None, 'ansi', 'human'")
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ConfigError(f"max_steps={max_steps!r} must be a positive integer or None")
        self.game = game
        self.render_mode = render_mode
        self.max_steps = max_steps if max_steps is not None else game.max_decisions()
        self.metadata = {**self.metadata, "name": game.env_id}
        n = game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=-np.inf, high=np.inf, shape=(game.observation_size,), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(game.num_actions)
        # One space object per agent, returned by identity (PettingZoo's api_test checks that).
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._master_rng = np.random.default_rng()
        self.state: State | None = None
        self._steps = 0
        self.agents = self.possible_agents[:]  # as PettingZoo classic envs: known before reset

    # -- spaces -------------------------------------------------------------------------------
    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    # -- lifecycle ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if options is not None and not isinstance(options, dict):
            raise ConfigError(f"reset(options={brief(options)}): options must be a dict "
                              "(the one key read: 'state', a saved state) or None")
        if seed is not None:
            self._master_rng = as_generator(seed)  # a ConfigError naming a seed that is no seed >= 0
        saved = (options or {}).get("state")
        if saved is not None:
            self.state = self.game.state_from_json(saved)
        else:
            # a seed, not a Generator: the state makes its generator itself (as default_rng(seed)
            # would), and new_state need not copy one that nobody else holds
            self.state = self.game.new_state(int(self._master_rng.integers(0, 2**63)))
        self._steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if self.state.current_player is None:  # a saved finished game
            self.agent_selection = self.possible_agents[0]
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.state.current_player]

    def last(self, observe: bool = True):
        # AECEnv.last's body, without its extra call frame (this runs on every step)
        if self.state is None:
            raise RuntimeError("call reset() before last()")
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before observe() or last()")
        try:
            player = self._index[agent]
        except (KeyError, TypeError):  # TypeError: an unhashable name
            raise ConfigError(f"observe({brief(agent)}): no such agent; agents: {self.possible_agents}") from None
        if state.current_player == player and agent in self.terminations and not (
            self.terminations[agent] or self.truncations[agent]
        ):
            mask = state.legal_mask()
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": state.observation(player), "action_mask": mask}

    def step(self, action) -> None:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(None, self.state.decision(), self.state._legal_names())
        index = self._index
        player = index[agent]
        state = self.state
        action = state.check_action(action)  # raises before anything changes
        # Each seat is told the move as it saw it (a secret pass reads as hidden to the others):
        # named on the state before the move, through the one definition in the game contract.
        names = state.action_names(action)
        self._cumulative_rewards[agent] = 0.0
        state._apply_checked(action)  # checked above
        self._steps += 1
        rewards, infos = self.rewards, self.infos
        for a in self.agents:
            rewards[a] = 0.0
            infos[a] = {"last_action": names[index[a]], "last_player": player}
        if state.current_player is None:
            self._finish()
        elif self._steps >= self.max_steps:
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a]["truncated_by"] = "max_steps"
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        state = self.state
        returns = state.returns()
        final = state.final_info()
        for a in self.agents:
            i = self._index[a]
            self.rewards[a] = float(returns[i])
            self._cumulative_rewards[a] += float(returns[i])
            if state.truncated:
                self.truncations[a] = True
            else:
                self.terminations[a] = True
            self.infos[a] = {**self.infos.get(a, {}), **final}
        # the rewards were added above; _accumulate_rewards is not called again

    # -- rendering ----------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.state.render(None) if self.state is not None else "(not reset)"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    @property
    def unwrapped(self) -> "GameEnv":
        return self
