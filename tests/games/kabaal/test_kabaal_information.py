"""Kabaal information: how moves read to each seat, what the observation remembers (perfect
recall), resampling consistent with a seat's whole history, and saved-state validation."""

from __future__ import annotations

from kabenvs.games.kabaal import KabaalGame


def test_another_players_pass_names_no_card():
    s = KabaalGame(num_players=3).new_state(0)
    p = s.current_player
    for a in s.legal_actions():
        assert s.action_name_for(a, p) == s.action_name(a)
        assert s.action_name_for(a, None) == s.action_name(a)
        for q in range(3):
            if q != p:
                assert s.action_name_for(a, q) == "pass a card (hidden)"
    # after the exchange, plays are public: everyone reads the card
    while s.phase == "pass":
        s.apply(s.legal_actions()[0])
    a = s.legal_actions()[0]
    assert {s.action_name_for(a, q) for q in range(3)} == {s.action_name(a)}
