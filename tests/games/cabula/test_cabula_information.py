"""Cábula's information state: what each seat reads of a move, and what it remembers."""

from __future__ import annotations

import numpy as np

from tests.games.cabula.cabula_helpers import ID, act, rig


def names_for(state, name):
    """``name`` (a legal move now) as each seat reads it, then the state after it."""
    legal = {state.action_name(a): a for a in state.legal_actions()}
    a = legal[name]
    seen = [state.action_name_for(a, q) for q in range(state.num_players)]
    return seen, state.action_name_for(a, None)


def test_a_card_taken_with_two_crystal_balls_reads_hidden_to_the_uninvolved():
    s = rig(3, hands=[{"crystal_ball": 2}, {"star": 1, "magic_wand": 1}, {}])
    act(s, "play 2 crystal balls")
    act(s, "target the player 1 seat clockwise")
    seen, full = names_for(s, "take a magic wand")
    assert full == "take a magic wand"
    assert seen == ["take a magic wand", "take a magic wand", "take a card (hidden)"]
    # the uninvolved seat cannot tell the two choices apart, and reads them the same
    after = []
    for name in ("take a magic wand", "take a star"):
        w = s.clone()
        act(w, name)
        after.append(w.observation(2))
    np.testing.assert_array_equal(*after)


def test_an_attack_that_does_nothing_is_still_remembered_with_its_victim():
    """A prank on a player without stars changes nothing on the table, but everyone saw whom it
    targeted: the two histories give different observations to every seat."""
    base = rig(3, hands=[{"cyclops": 2}, {}, {}])
    act(base, "play 2 cyclopes")
    obs = []
    for target in ("target the player 1 seat clockwise", "target the player 2 seats clockwise"):
        w = base.clone()
        act(w, target)
        obs.append([w.observation(q) for q in range(3)])
        parts = w.game.layout.split(w.observation(0))
        assert parts["last_attack_card"][ID["cyclops"]] == 1 and parts["last_attack_count"][1] == 1
        assert parts["last_attacker"][0] == 1
    for q in range(3):
        assert not np.array_equal(obs[0][q], obs[1][q])


def test_a_turned_curse_says_who_turned_it():
    s = rig(3, hands=[{"magic_wand": 2}, {}, {"magic_wand": 1}], display=[(1, 0), (1, 0), (1, 0)],
            top=["skull"], draw_first=True)
    parts = s.game.layout.split(s.observation(0))
    assert not parts["curse_turned_by"].any()  # drawn from the deck: nobody turned it
    act(s, "cancel and turn the curse with 2 magic wands")
    act(s, "target the player 2 seats clockwise")
    assert s.current_player == 2
    for q in range(3):
        parts = s.game.layout.split(s.observation(q))
        rel = (0 - q) % 3
        assert parts["curse_turned_by"][rel] == 1 and parts["curse_turned_by"].sum() == 1
        assert parts["last_attacker"][rel] == 1 and parts["last_victim"][(2 - q) % 3] == 1
        assert parts["last_attack_card"][ID["skull"]] == 1
