"""The match runner's bookkeeping on a game whose winner is known in advance, and the terminal's
answer parsing message by message. Written to kill the mutants the behavioural suite let through
(docs/testing.md, "Mutation testing")."""

from __future__ import annotations

import numpy as np
import pytest

from kabenvs.agents.arena import MatchResult, play_match, wilson_interval
from kabenvs.agents.human import MAX_ANSWER, format_choices, match_choice, shorten
from tests.training.toy import ToyGame


class Picker:
    """Always picks ``k`` and accepts every pick it is asked about: in the toy game the larger
    constant pick wins every game, whatever the seat."""

    def __init__(self, k: int, name: str = "picker") -> None:
        self.k, self.name = k, name

    def act(self, decision) -> int:
        return 3 if decision.state.reacting is not None else self.k


class Short(ToyGame):
    def max_decisions(self) -> int:  # every game is cut after one decision: truncated
        return 1


def test_a_dominant_competitor_wins_every_game_in_every_seat():
    seen = []
    result = play_match(ToyGame(num_players=2), [Picker(2, "big"), Picker(0, "small")], deals=3, seed=1,
                        keep_states=True, on_game=lambda s, seating, seed: seen.append(list(seating)))
    assert result.names == ["big", "small"]
    assert result.games == 6 and result.truncated == 0 and len(result.states) == 6
    assert result.wins == [6.0, 0.0] and result.outright == [6, 0]
    assert result.total_return == [6.0, -6.0]
    assert result.win_rate(0) == 1.0 and result.win_rate(1) == 0.0
    assert result.mean_return(0) == 1.0 and result.mean_return(1) == -1.0
    assert result.interval(1) == wilson_interval(0, 6)
    assert seen == [[0, 1], [1, 0]] * 3
    assert all(s.current_player is None for s in result.states)


def test_agent_factories_get_a_fresh_agent_per_seat_and_default_names():
    made = []

    def factory(seed):
        made.append(seed)
        return Picker(1)

    deals = []
    result = play_match(ToyGame(num_players=2), [factory, Picker(1)], deals=2, seed=3,
                        on_game=lambda s, seating, seed: deals.append((seed, seating.index(0))))
    assert result.names == ["agent0", "picker"]
    # one fresh agent per game, seeded by the deal and the seat it takes
    assert made == [seed * 31 + seat for seed, seat in deals]
    assert [seat for _, seat in deals] == [0, 1, 0, 1] and deals[0][0] != deals[2][0]
    assert result.states == []  # not kept unless asked
    # equal picks: every game is a shared win, worth half to each, and no outright win
    assert result.wins == [2.0, 2.0] and result.outright == [0, 0] and result.total_return == [0.0, 0.0]


def test_a_competitor_in_two_seats_is_judged_by_its_average_seat():
    result = play_match(ToyGame(num_players=3), [Picker(2), Picker(0)], deals=2, seed=0)
    # competitor 0 holds two of the three seats in every rotation: its two seats share the win
    assert result.games == 6
    assert result.wins == pytest.approx([3.0, 0.0])
    assert result.outright == [0, 0]
    assert result.total_return == pytest.approx([6.0, -6.0])


def test_truncated_games_count_no_winner():
    result = play_match(Short(num_players=2), [Picker(2), Picker(0)], deals=2)
    assert result.games == 4 and result.truncated == 4
    assert result.wins == [0.0, 0.0] and result.outright == [0, 0] and result.total_return == [0.0, 0.0]


def test_match_table_and_empty_result():
    empty = MatchResult(names=["a"], wins=[0.0], outright=[0], total_return=[0.0])
    assert empty.win_rate(0) == 0.0 and empty.mean_return(0) == 0.0 and empty.interval(0) == (0.0, 1.0)
    res = MatchResult(names=["alpha", "beta"], games=4, wins=[3.0, 1.0], outright=[3, 1],
                      total_return=[2.0, -2.0], truncated=1)
    lo, hi = wilson_interval(3.0, 4)
    assert res.table().split("\n") == [
        "agent                     win rate            95% CI  mean return",
        f"alpha                        0.750 [{lo:.3f}, {hi:.3f}]        0.500",
        f"beta                         0.250 [{1 - hi:.3f}, {1 - lo:.3f}]       -0.500",
        "4 games, 1 truncated",
    ]


def test_wilson_interval_other_confidence():
    # z = 1 (about 68%): 5 of 10 gives 0.5 -+ 0.1507 (computed by hand)
    lo, hi = wilson_interval(5, 10, z=1.0)
    assert (lo, hi) == pytest.approx((0.5 - 0.150756, 0.5 + 0.150756), abs=1e-5)


# -- answers typed at the terminal -------------------------------------------------------------

NAMES = ["play 7 of cups", "play 7 of coins", "pass", "Pass  the  turn"]


@pytest.mark.parametrize("answer, index", [
    ("1", 0), ("4", 3), ("+2", 1), (" 3 ", 2), ("0003", 2),
    ("pass", 2),  # typed in full: exact beats being the start of "pass the turn"
    ("PASS THE TURN", 3), ("pass   the", 3), ("play 7 of cu", 0), ("PLAY 7 OF COI", 1),
])
def test_answers_that_pick(answer, index):
    assert match_choice(answer, NAMES) == (index, None)


@pytest.mark.parametrize("answer, message", [
    ("", "Please enter a choice: a number from 1 to 4, or the start of a name (? for help)."),
    ("   ", "Please enter a choice: a number from 1 to 4, or the start of a name (? for help)."),
    ("0", "There is no choice 0: enter a number from 1 to 4 (? for help)."),
    ("5", "There is no choice 5: enter a number from 1 to 4 (? for help)."),
    ("-1", "There is no choice -1: enter a number from 1 to 4 (? for help)."),
    ("9" * 10, "There is no choice 9999999999: enter a number from 1 to 4 (? for help)."),
    ("x", "No choice starts with 'x': enter a number from 1 to 4 or the start of a name (? for help)."),
    ("+-1", "No choice starts with '+-1': enter a number from 1 to 4 or the start of a name (? for help)."),
    ("play", "'play' is ambiguous, it starts 2 choices: 1) play 7 of cups, 2) play 7 of coins. "
             "Type more or a number."),
    ("X1", "No choice starts with 'X1': enter a number from 1 to 4 or the start of a name (? for help)."),
    ("a" * MAX_ANSWER,  # the longest answer that is read
     f"No choice starts with {'a' * 60 + '... (1000 characters)'!r}: enter a number from 1 to 4 or the start "
     "of a name (? for help)."),
    ("a" * (MAX_ANSWER + 1),
     "That answer is too long: enter a number from 1 to 4 or the start of a name (? for help)."),
])
def test_answers_that_are_refused_say_why(answer, message):
    assert match_choice(answer, NAMES) == (None, message)


def test_a_long_number_within_the_limit_is_refused_without_int():
    index, message = match_choice("1" + "0" * 900, NAMES)
    assert index is None and message.startswith("There is no choice 1000000000")
    assert "(901 characters)" in message
    assert match_choice("000000000001", NAMES) == (0, None)  # leading zeros do not count as size


def test_an_ambiguous_start_lists_at_most_six_choices():
    names = [f"card {i}" for i in range(8)]
    _, message = match_choice("card", names)
    assert message == ("'card' is ambiguous, it starts 8 choices: 1) card 0, 2) card 1, 3) card 2, "
                       "4) card 3, 5) card 4, 6) card 5, ... (8 in all). Type more or a number.")
    six = "1) card 0, 2) card 1, 3) card 2, 4) card 3, 5) card 4, 6) card 5"
    assert match_choice("card", names[:6])[1] == f"'card' is ambiguous, it starts 6 choices: {six}. Type more or a number."
    assert match_choice("card", names[:7])[1] == (f"'card' is ambiguous, it starts 7 choices: {six}, ... (7 in all). "
                                                  "Type more or a number.")


def test_shorten():
    assert shorten("a" * 60) == "a" * 60
    assert shorten("a" * 61) == "a" * 60 + "... (61 characters)"
    assert shorten("b" * 20, limit=5) == "bbbbb... (20 characters)"
    assert shorten("c" * (MAX_ANSWER + 5)) == "c" * 60 + f"... (over {MAX_ANSWER} characters)"
    assert shorten("c" * MAX_ANSWER) == "c" * 60 + f"... ({MAX_ANSWER} characters)"


def test_format_choices_columns():
    assert format_choices([]) == "  (no choices)"
    assert format_choices(["a", "bb"]) == "  1) a\n  2) bb"
    names = [f"n{i}" for i in range(9)]  # more than 8: in columns, filled down first
    rows = format_choices(names, width=30).split("\n")
    assert rows == ["  1) n0     4) n3     7) n6", "  2) n1     5) n4     8) n7", "  3) n2     6) n5     9) n8"]
    assert format_choices(names, width=5).split("\n")[0] == "  1) n0"  # at least one column
    assert len(format_choices([f"x{i}" for i in range(20)], width=1000).split("\n")) == 5  # at most four
    assert len(format_choices([f"y{i}" for i in range(8)]).split("\n")) == 8  # eight or fewer: one column
    # a last column left short: 10 choices in 4 columns of 3 rows
    assert format_choices([f"z{i}" for i in range(10)]).split("\n") == [
        "  1) z0     4) z3     7) z6    10) z9", "  2) z1     5) z4     8) z7", "  3) z2     6) z5     9) z8"]


def test_wilson_interval_stays_within_zero_and_one_exactly():
    # unclamped, rounding puts these bounds just outside [0, 1] (1.0000000000000002, -2.8e-17)
    assert wilson_interval(5, 5)[1] == 1.0 and wilson_interval(19, 19)[1] == 1.0
    assert wilson_interval(0, 5)[0] == 0.0
    for n in range(1, 60):
        for w in range(n + 1):
            lo, hi = wilson_interval(w, n)
            assert 0.0 <= lo <= hi <= 1.0 and lo - 1e-12 <= w / n <= hi + 1e-12


def _seatings(players, competitors, **kw):
    seen = []
    play_match(ToyGame(num_players=players), [Picker(1) for _ in range(competitors)], deals=1,
               on_game=lambda s, seating, seed: seen.append((list(seating), seed)), **kw)
    return seen


def test_seatings_rotate_forward_for_every_shape_of_match():
    assert [s for s, _ in _seatings(3, 3)] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert [s for s, _ in _seatings(3, 2)] == [[0, 1, 0], [1, 0, 0], [0, 0, 1]]
    # more competitors than seats: each rotation seats the next ones
    assert [s for s, _ in _seatings(2, 3)] == [[0, 1], [1, 2]]


def test_deal_seeds_come_from_the_match_seed():
    expected = [int(x) for x in np.random.SeedSequence(0).generate_state(1, dtype=np.uint64)]
    assert {seed for _, seed in _seatings(2, 2)} == set(expected)
    other = [int(x) for x in np.random.SeedSequence(9).generate_state(1, dtype=np.uint64)]
    assert {seed for _, seed in _seatings(2, 2, seed=9)} == set(other)


def test_given_names_and_callable_agents():
    class CallableAgent(Picker):
        def __call__(self, seed):  # an agent that is also callable is still used as it is
            raise AssertionError("an agent with act() is no factory")

    result = play_match(ToyGame(num_players=2), [CallableAgent(2), Picker(0)], deals=1, names=["x", "y"])
    assert result.names == ["x", "y"] and result.wins == [2.0, 0.0]
