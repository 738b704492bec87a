"""The AEC env driven by an arbitrary user: legal moves, any value passed as an action, steps by
finished agents, observations of any name, saves loaded mid-game, resets mid-game, a seat's
worlds and text views looked at, in any order.

A Hypothesis state machine per run (every game and test config of the shared kit, drawn): after
every call the env must still be a consistent PettingZoo AEC env (the selected agent is the state's
player, its mask is the state's legal moves, every other mask is empty, observations fit their
spaces and stay as they were handed out), a refused call must be one short line naming what was
wrong and change nothing, and a saved game loaded into a fresh env must show every seat the same
observation and mask. ``PROPERTY_EXAMPLES`` raises the budget (tests/hardening/mutate.py).
"""

from __future__ import annotations

import json

import numpy as np
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import kabenvs
from kabenvs.core.errors import KabenvsError
from tests.core.kit import CASES

from .mutate import EXAMPLES, SETTINGS, assert_one_line

NOT_ACTIONS = (
    st.integers() | st.floats() | st.booleans() | st.text(max_size=8) | st.none()
    | st.lists(st.integers(0, 3), max_size=2) | st.just(np.int64(-1)) | st.just(np.float32(0.5))
    | st.just(np.bool_(True)) | st.just(np.array([0, 1])) | st.sampled_from([10**1000, -(10**1000), 2**63])
)
AGENT_NAMES = st.text(max_size=12) | st.integers() | st.none() | st.just(["player_0"]) | st.just("player_0 ")


def _one_line(exc: BaseException) -> None:
    # (an illegal action's message lists up to 40 legal choices: long, but one line)
    assert_one_line(exc, (KabenvsError, ValueError), 2000)


def _names_a_legal_move(action, mask) -> bool:
    """The env takes a legal id as any number equal to it (``3``, ``np.int64(3)``, ``3.0``), never a
    bool (``True == 1``, but no action id)."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, float, np.integer, np.floating)):
        return False
    if isinstance(action, (float, np.floating)) and not float(action).is_integer():
        return False  # (an int of any size is compared as it is: float() of a huge one overflows)
    return 0 <= action < len(mask) and bool(mask[int(action)])


class EnvMachine(RuleBasedStateMachine):
    @initialize(case=st.sampled_from(CASES), seed=st.integers(0, 2**32 - 1))
    def start(self, case, seed):
        self.case = case
        eid, cfg = case
        self.env = kabenvs.make(eid, **cfg)
        self.env.reset(seed=seed)
        self.handed: list[tuple[np.ndarray, np.ndarray]] = []  # (array handed out, its copy)

    # -- what a user does ------------------------------------------------------------------------
    def _live(self) -> bool:
        env = self.env
        return bool(env.agents) and not (env.terminations[env.agent_selection]
                                         or env.truncations[env.agent_selection])

    @precondition(lambda self: self._live())
    @rule(pick=st.integers(0, 10**6))
    def legal_step(self, pick):
        obs, *_ = self.env.last()
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal), "the selected, live agent has no legal move in its mask"
        self._keep(obs)
        self.env.step(int(legal[pick % len(legal)]))

    @precondition(lambda self: self._live())
    @rule(moves=st.sampled_from([3, 30, 150, 600, 100_000]), seed=st.integers(0, 2**16))
    def play_on(self, moves, seed):
        """Many random legal moves at once: the other rules then also meet late-game positions
        (the end of a game included), which single steps within the step budget never reach."""
        rng = np.random.default_rng(seed)
        env = self.env
        for _ in range(moves):
            if not self._live():
                break
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))

    @precondition(lambda self: self._live())
    @rule(action=NOT_ACTIONS)
    def any_value_as_action(self, action):
        env = self.env
        mask = env.observe(env.agent_selection)["action_mask"]
        if _names_a_legal_move(action, mask):
            return  # legal_step's business
        before = self._snapshot()
        try:
            env.step(action)
        except Exception as exc:  # noqa: BLE001 - the kind is checked
            _one_line(exc)
        else:
            raise AssertionError(f"step({action!r}) was accepted; legal: {np.flatnonzero(mask).tolist()}")
        assert self._snapshot() == before, f"a refused step({action!r}) changed the env"

    @precondition(lambda self: bool(self.env.agents) and not self._live())
    @rule()
    def finished_agent_steps_none(self):
        self.env.step(None)

    @rule(agent=AGENT_NAMES)
    def observe_any_name(self, agent):
        env = self.env
        try:
            obs = env.observe(agent)
        except Exception as exc:  # noqa: BLE001 - the kind is checked
            _one_line(exc)
            assert not (isinstance(agent, str) and agent in env.possible_agents), f"observe({agent!r}) refused"
        else:
            assert agent in env.possible_agents, f"observe({agent!r}) answered"
            self._keep(obs)

    @precondition(lambda self: self.env.state.current_player is not None)
    @rule()
    def save_and_load_into_a_fresh_env(self):
        env = self.env
        eid, cfg = self.case
        text = json.dumps(env.state.to_json())
        fresh = kabenvs.make(eid, **cfg)
        fresh.reset(options={"state": json.loads(text)})
        assert fresh.agent_selection == env.agent_selection
        for agent in env.possible_agents:
            a, b = env.observe(agent), fresh.observe(agent)
            assert np.array_equal(a["observation"], b["observation"]), f"{agent}'s observation after a load"
            assert np.array_equal(a["action_mask"], b["action_mask"]), f"{agent}'s mask after a load"
        self.env = fresh  # play on in the loaded game

    @precondition(lambda self: self.env.state.current_player is not None)
    @rule(seat=st.integers(0, 5), seed=st.integers(0, 2**16))
    def look_without_touching(self, seat, seed):
        """Reading the game (a seat's worlds, its text view, the move names) changes nothing."""
        env = self.env
        state = env.state
        seat %= state.num_players
        before = self._snapshot()
        seen = [env.observe(a)["observation"].copy() for a in env.possible_agents]
        if state.hidden_zones(seat) is not None:
            state.resample_hidden(seat, seed)
        state.render(seat)
        state.render(None)
        state.action_names(int(state.legal_actions()[seed % len(state.legal_actions())]))
        assert self._snapshot() == before, "reading the game changed it"
        for agent, obs in zip(env.possible_agents, seen):
            assert np.array_equal(env.observe(agent)["observation"], obs), f"{agent}'s observation changed"

    @rule(seed=st.integers(0, 2**32 - 1))
    def reset_mid_game(self, seed):
        self.env.reset(seed=seed)

    # -- what must hold after every call -----------------------------------------------------------
    @invariant()
    def consistent(self):
        env = self.env
        state = env.state
        if not env.agents:
            return
        selected = env.agent_selection
        assert selected in env.agents
        space = env.observation_space(selected)["observation"]
        for agent in env.agents:
            obs = env.observe(agent)
            assert obs["observation"].shape == space.shape and obs["observation"].dtype == np.float32
            assert np.isfinite(obs["observation"]).all()
            live = agent == selected and not (env.terminations[agent] or env.truncations[agent])
            if live:
                assert state.current_player == env.possible_agents.index(agent)
                assert sorted(np.flatnonzero(obs["action_mask"]).tolist()) == sorted(state.legal_actions())
            else:
                assert not obs["action_mask"].any(), f"{agent} may not move but has a mask"

    @invariant()
    def handed_out_arrays_unchanged(self):
        for array, copy in self.handed:
            assert np.array_equal(array, copy), "an array handed out earlier changed later"

    def _keep(self, obs) -> None:
        if len(self.handed) < 12:
            for array in obs.values():
                self.handed.append((array, array.copy()))

    def _snapshot(self):
        env = self.env
        return (json.dumps(env.state.to_json(), sort_keys=True), env.agent_selection, list(env.agents),
                dict(env._cumulative_rewards), dict(env.terminations), dict(env.truncations))


EnvMachine.TestCase.settings = SETTINGS.__class__(SETTINGS, max_examples=max(EXAMPLES // 2, 20),
                                                  stateful_step_count=40)
test_env_driven_by_an_arbitrary_user = EnvMachine.TestCase
