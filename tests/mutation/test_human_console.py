"""The terminal seat line by line: the console's reading, echo and clearing, and the human agent's
commands, on scripted streams and a stub state. Written to kill the mutants of
``kabenvs/agents/human.py`` that only whole played games reached (docs/testing.md, "Mutation testing")."""

from __future__ import annotations

import io
import sys

import pytest

from kabenvs.agents.base import Decision
from kabenvs.agents.human import (
    HELP,
    MAX_ANSWER,
    Console,
    HumanAgent,
    QuitGame,
    _isatty,
    default_screen,
    format_choices,
)


class Stream(io.StringIO):
    """A text stream that can pretend to be a terminal and counts its flushes."""

    def __init__(self, text: str = "", tty: bool = False) -> None:
        super().__init__(text)
        self.tty, self.flushes = tty, 0

    def isatty(self) -> bool:
        return self.tty

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


class NoSizeStream:
    """A stream-like object whose readline takes no size."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = list(lines)

    def readline(self) -> str:
        return self.lines.pop(0) if self.lines else ""


class BadBytes:
    """Input that fails to decode ``fails`` times, then reads ``then``."""

    def __init__(self, fails: int, then: str = "") -> None:
        self.fails, self.then = fails, io.StringIO(then)

    def readline(self, size: int = -1) -> str:
        if self.fails:
            self.fails -= 1
            raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
        return self.then.readline(size)


def test_quit_game_keeps_its_reason_and_player():
    e = QuitGame("quit", 2)
    assert (e.reason, e.player, str(e)) == ("quit", 2, "game ended by quit")
    assert QuitGame("eof").player is None


def test_console_defaults_to_the_standard_streams(monkeypatch):
    fin, fout = Stream("x\n"), Stream()
    monkeypatch.setattr(sys, "stdin", fin)
    monkeypatch.setattr(sys, "stdout", fout)
    con = Console()
    assert con.input is fin and con.output is fout and con._bad_reads == 0
    inp, out = Stream(), Stream()
    con = Console(inp, out)
    assert con.input is inp and con.output is out


def test_write_adds_a_newline_and_flushes():
    out = Stream()
    con = Console(Stream(), out)
    con.write("hello")
    con.write()
    assert out.getvalue() == "hello\n\n" and out.flushes == 2


def test_ask_writes_the_prompt_strips_the_line_end_and_echoes_a_scripted_answer():
    out = Stream()
    con = Console(Stream("  2 \r\nb\n"), out)
    assert con.ask("? ") == "  2 "
    assert out.getvalue() == "? " + "  2 \n" and out.flushes == 1
    assert con.ask("> ") == "b"
    assert con.ask("> ") is None  # end of input: a newline closes the prompt line
    assert out.getvalue() == "?   2 \n> b\n> \n"


def test_ask_echoes_a_long_answer_shortened():
    out = Stream()
    Console(Stream("a" * 100 + "\n"), out).ask("")
    assert out.getvalue() == "a" * 60 + "... (100 characters)\n"


def test_ask_at_a_terminal_does_not_echo():
    out = Stream()
    assert Console(Stream("3\n", tty=True), out).ask("> ") == "3"
    assert out.getvalue() == "> "


def test_undecodable_input_is_asked_again_until_three_failures_in_a_row():
    out = Stream()
    con = Console(BadBytes(2, "1\n"), out)
    assert con.ask("") == "\ufffd" and con._bad_reads == 1
    assert con.ask("") == "\ufffd" and con._bad_reads == 2
    assert con.ask("") == "1" and con._bad_reads == 0  # a good line resets the count
    assert out.getvalue() == "1\n"
    out = Stream()
    con = Console(BadBytes(3, "1\n"), out)
    assert [con.ask(""), con.ask(""), con.ask("")] == ["\ufffd", "\ufffd", None]
    assert out.getvalue() == "\n"


def test_an_overlong_line_is_cut_and_its_rest_dropped():
    inp = Stream("x" * (MAX_ANSWER + 70_000) + "\n" + "next\n" + "y" * (MAX_ANSWER + 5))
    con = Console(inp, Stream())
    assert con._read_line() == "x" * (MAX_ANSWER + 1)
    assert con._read_line() == "next\n"
    assert con._read_line() == "y" * (MAX_ANSWER + 1)  # the rest ends with the input
    assert con._read_line() == ""
    inp = Stream("z" * MAX_ANSWER + "\n" + "w\n")  # exactly the limit and its newline: nothing dropped
    con = Console(inp, Stream())
    assert con._read_line() == "z" * MAX_ANSWER + "\n" and con._read_line() == "w\n"


def test_a_readline_without_a_size_is_cut_after_reading():
    con = Console(NoSizeStream(["q" * (MAX_ANSWER + 9) + "\n", "r" * MAX_ANSWER, "s\n"]), Stream())
    assert con._read_line() == "q" * (MAX_ANSWER + 1)
    assert con._read_line() == "r" * MAX_ANSWER
    assert con._read_line() == "s\n"


def test_clear_wipes_a_terminal_and_draws_a_line_elsewhere():
    out = Stream(tty=True)
    Console(Stream(), out).clear()
    assert out.getvalue() == "\033[H\033[2J\033[3J" and out.flushes == 1
    out = Stream()
    Console(Stream(), out).clear()
    assert out.getvalue() == "\n" + "=" * 72 + "\n" and out.flushes == 1


def test_isatty_of_odd_streams():
    class Closed:
        def isatty(self):
            raise ValueError("I/O operation on closed file")

    class Yes:
        def isatty(self):
            return 1

    assert _isatty(object()) is False and _isatty(Closed()) is False and _isatty(Yes()) is True


# -- the human agent on a stub state -----------------------------------------------------------

class StubState:
    def __init__(self, names=("play red", "play blue", "pass")) -> None:
        self.names = list(names)

    def legal_actions(self):
        return [10 + i for i in range(len(self.names))]

    def action_name(self, a):
        return self.names[a - 10]

    def render(self, seat):
        return f"table seen by {seat}"

    def decision(self):
        return "pick a colour"


def agent(text: str, **kw) -> tuple[HumanAgent, Stream]:
    out = Stream()
    return HumanAgent(Console(Stream(text), out), **kw), out


def test_human_agent_defaults(monkeypatch):
    fout = Stream()
    monkeypatch.setattr(sys, "stdout", fout)
    a = HumanAgent()
    assert isinstance(a.console, Console) and a.console.output is fout
    assert a.screen is default_screen and a.history is None and a.name == "human"
    con = Console(Stream(), Stream())
    screen = lambda d: "s"
    history = lambda p: "h"
    a = HumanAgent(con, screen, history)
    assert a.console is con and a.screen is screen and a.history is history


def test_default_screen_is_the_render_and_the_decision():
    assert default_screen(Decision(1, StubState())) == "table seen by 1\n\nDecision: pick a colour"


def test_act_shows_the_screen_and_choices_and_returns_the_chosen_action():
    a, out = agent("play b\n")
    assert a.act(Decision(1, StubState())) == 11
    choices = format_choices(["play red", "play blue", "pass"])
    assert out.getvalue() == ("table seen by 1\n\nDecision: pick a colour\n" + choices + "\n"
                              "player 1, your choice (1-3, ? for help): play b\nYou chose: play blue\n")


def test_act_commands_then_a_bad_answer_then_a_number():
    history = lambda p: f"moves seen by {p}"
    a, out = agent(" HELP \n?\nshow\nlog\nplay\n3\n", screen=lambda d: "SCREEN", history=history)
    assert a.act(Decision(0, StubState())) == 12
    choices = format_choices(["play red", "play blue", "pass"])
    prompt = "player 0, your choice (1-3, ? for help): "
    assert out.getvalue() == (
        f"SCREEN\n{choices}\n"
        f"{prompt} HELP \n{HELP}\n{choices}\n"
        f"{prompt}?\n{HELP}\n{choices}\n"
        f"{prompt}show\nSCREEN\n{choices}\n"
        f"{prompt}log\nmoves seen by 0\n"
        f"{prompt}play\n'play' is ambiguous, it starts 2 choices: 1) play red, 2) play blue. Type more or a number.\n"
        f"{prompt}3\nYou chose: pass\n")


def test_act_log_without_a_history():
    a, out = agent("log\n1\n", screen=lambda d: "S")
    assert a.act(Decision(0, StubState())) == 10
    assert "log\n(no move log in this game)\n" in out.getvalue()


@pytest.mark.parametrize("text, reason", [("quit\n", "quit"), (" Exit\n", "quit"), ("", "eof")])
def test_act_quit_exit_and_end_of_input(text, reason):
    a, _ = agent(text)
    with pytest.raises(QuitGame) as e:
        a.act(Decision(2, StubState()))
    assert (e.value.reason, e.value.player) == (reason, 2)


def test_ask_strips_only_the_line_end():
    assert Console(Stream("take X\r\n"), Stream()).ask("") == "take X"


def test_the_rest_of_an_overlong_line_is_read_in_bounded_pieces():
    class Sizes(Stream):
        def readline(self, size=-1):
            self.sizes.append(size)
            return super().readline(size)

    inp = Sizes("x" * 500_000 + "\n1\n")
    inp.sizes = []
    con = Console(inp, Stream())
    assert con._read_line() == "x" * (MAX_ANSWER + 1) and con._read_line() == "1\n"
    assert len(inp.sizes) > 3 and all(isinstance(s, int) and 0 < s <= 500_000 // 3 for s in inp.sizes)
