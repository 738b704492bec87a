"""The adapter's own behaviour beyond PettingZoo's api_test."""

from __future__ import annotations

import numpy as np
import pytest

import kabenvs
from kabenvs.core.errors import ConfigError, IllegalActionError


def test_step_before_reset_is_a_clear_error():
    env = kabenvs.make("kabaleo_v0")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_none_for_a_live_agent_is_illegal_and_changes_nothing():
    env = kabenvs.make("kabaleo_v0")
    env.reset(seed=3)
    before = env.unwrapped.state.to_json()
    with pytest.raises(IllegalActionError, match="legal choices"):
        env.step(None)
    assert env.unwrapped.state.to_json() == before


def test_max_steps_truncates_everyone():
    env = kabenvs.make("kabaleo_v0", max_steps=5)
    env.reset(seed=1)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term and reward == 0.0 and info["truncated_by"] == "max_steps"
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 5
    with pytest.raises(ConfigError, match="max_steps"):
        kabenvs.make("kabaleo_v0", max_steps=0)


def test_rewards_and_final_info_reach_every_agent():
    env = kabenvs.make("kabaleo_v0", num_players=3)
    env.reset(seed=8)
    finals = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            finals[agent] = (reward, info)
            env.step(None)
            continue
        assert "targets" not in info  # revealed only at the end
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    state = env.unwrapped.state
    assert set(finals) == set(env.possible_agents)
    for i, agent in enumerate(env.possible_agents):
        reward, info = finals[agent]
        assert reward == state.returns()[i]
        assert info["winners"] == state.winners() and len(info["targets"]) == 3


def test_reset_from_a_finished_game():
    env = kabenvs.make("kabaleo_v0")
    env.reset(seed=2)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    saved = env.unwrapped.state.to_json()
    env2 = kabenvs.make("kabaleo_v0")
    env2.reset(options={"state": saved})
    assert all(env2.terminations.values())
    with pytest.raises(ConfigError, match="not a saved kabenvs state"):
        env2.reset(options={"state": "{not json"})
    with pytest.raises(ConfigError):
        kabenvs.make("kabaleo_v0", num_players=3).reset(options={"state": saved})


def test_observation_is_a_copy_not_a_view_of_the_state():
    env = kabenvs.make("kabaleo_v0")
    env.reset(seed=0)
    obs, *_ = env.last()
    snapshot = obs["observation"].copy()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    np.testing.assert_array_equal(obs["observation"], snapshot)


def test_human_render_prints(capsys):
    env = kabenvs.make("kabaleo_v0", render_mode="human")
    env.reset(seed=0)
    env.render()
    assert "Kabaleo" in capsys.readouterr().out


def test_last_and_observe_before_reset_are_clear_errors():
    env = kabenvs.make("cabula_v0")
    with pytest.raises(RuntimeError, match="reset"):
        env.last()
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")


@pytest.mark.parametrize("flag", [True, False, np.bool_(True), np.bool_(False)])
def test_booleans_are_not_actions(flag):
    """True == 1 in Python, but a bool is no action id: refused like any non-action."""
    for env_id in kabenvs.ENV_IDS:
        env = kabenvs.make(env_id)
        env.reset(seed=0)
        state = env.unwrapped.state
        before = state.to_json()
        with pytest.raises(IllegalActionError, match="legal choices"):
            env.step(flag)
        with pytest.raises(IllegalActionError):
            state.apply(flag)
        assert state.to_json() == before


def test_to_dict_is_a_copy():
    for env_id in kabenvs.ENV_IDS:
        env = kabenvs.make(env_id)
        env.reset(seed=0)
        state = env.unwrapped.state
        before = state.to_json()
        d = state.to_dict()
        d["state"]["history"].append(0)
        d["state"]["current_player"] = -1
        for value in d["state"].values():
            if isinstance(value, list) and value and isinstance(value[0], list):
                value[0].append(99)
        d["rng"]["state"]["state"] = 0
        assert state.to_json() == before, f"{env_id}: editing to_dict() changed the game"


def test_each_agent_reads_the_move_as_its_seat_saw_it():
    """Kabaal's secret pass: the passer reads the card, the others only that a card was passed."""
    env = kabenvs.make("kabaal_v0", num_players=3)
    env.reset(seed=4)
    state = env.unwrapped.state
    passer = state.current_player
    action = state.legal_actions()[0]
    full = state.action_name(action)
    env.step(action)
    assert env.infos[f"player_{passer}"]["last_action"] == full
    for agent in env.agents:
        if agent != f"player_{passer}":
            assert env.infos[agent]["last_action"] != full and "hidden" in env.infos[agent]["last_action"]


@pytest.mark.parametrize("env_id", kabenvs.ENV_IDS)
def test_action_names_agree_with_action_name_for(env_id):
    # The env names each move for every seat with State.action_names (a game may shortcut it);
    # it must say what action_name_for says to each seat, for every legal move along random games.
    import random

    from kabenvs.core.registry import game_class

    cls = game_class(env_id)
    rnd = random.Random(0)
    for players in sorted({min(cls.Config.PLAYER_COUNTS), max(cls.Config.PLAYER_COUNTS)}):
        game = cls(num_players=players)
        for g in range(2):
            state = game.new_state(g)
            for _ in range(150):
                if state.current_player is None:
                    break
                for a in state.legal_actions():
                    assert state.action_names(a) == [state.action_name_for(a, q) for q in range(players)]
                state.apply(rnd.choice(state.legal_actions()))
