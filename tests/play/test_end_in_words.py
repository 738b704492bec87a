"""A finished game's render names its end in words: no raw list of winners, scores or colours."""

from __future__ import annotations

import random
import re

import pytest

import kabenvs
from kabenvs.core.game import winners_line

RAW = re.compile(r"\[[^\]]*\]")  # a printed Python list


@pytest.mark.parametrize("env_id,players", [("kabaleo_v0", 3), ("barakka_v0", 2), ("kabaal_v0", 3),
                                            ("cabula_v0", 3), ("alakazum_v0", 3)])
def test_the_end_of_a_random_game_reads_as_words(env_id, players):
    game = kabenvs.make(env_id, num_players=players).game
    for seed in range(3):
        state = game.new_state(seed)
        rnd = random.Random(seed)
        while state.current_player is not None:
            state.apply(rnd.choice(state.legal_actions()))
        text = state.render(None)
        last = text.splitlines()[-1]
        assert winners_line(state) in last
        assert not RAW.search(last), last


class _Ended:
    def __init__(self, winners, truncated=False):
        self._w, self.truncated = winners, truncated

    def winners(self):
        return self._w


def test_winners_line_names_players_absolutely():
    assert winners_line(_Ended([1])) == "winner: player 1"
    assert winners_line(_Ended([0, 2])) == "winners: player 0 and player 2"
    assert winners_line(_Ended([0, 1, 3])) == "winners: player 0, player 1 and player 3"
    assert winners_line(_Ended([])) == "no winner"
    assert winners_line(_Ended([1], truncated=True)) == "no winner (the game was cut short)"
