"""One game at a terminal: any mix of humans and agents, following ``state.current_player``.

Nothing here knows a game: the screen is ``State.render(seat)``, ``decision()`` and the legal
actions' names; what happened since the seat's last decision is each move's narration
(``State.narrate``, through ``kabenvs.play.view``: only what the seat may know). Several humans
share one screen: before a different human's decision the screen is cleared and the game waits
until the screen was passed on.

A human is not asked a question with one legal answer: the move is taken and shown on the next
screen. Unless asking protects a secret: on a shared screen the other humans would see the
question skipped and learn that the seat had no other choice; when one of them could not know
that (in some world it cannot tell apart from this one the seat has several choices), the seat
is asked anyway and the screen says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kabenvs.agents.base import Agent, Decision
from kabenvs.agents.human import Console, HumanAgent, QuitGame
from kabenvs.core.errors import IllegalActionError
from kabenvs.core.game import Game, State
from kabenvs.core.secrecy import only_choice_is_secret as secret_only_choice
from kabenvs.play.view import Move, final_tables, make_move, tell

RECENT_LIMIT = 30  # moves shown under "since your last decision" before pointing at `log`
ONLY_CHOICE_ASKED = ("You have only one legal choice. You are asked anyway: the others at this screen "
                     "could otherwise tell that you had no other.")


class AgentError(RuntimeError):
    """A non-human seat's agent raised or chose an illegal action: the game cannot go on.

    ``str()`` is the whole story (for the log); ``headline`` only who failed and the kind of
    error, for a screen a human reads: an illegal move's text lists the agent's legal moves,
    which name its hidden cards."""

    def __init__(self, message: str, headline: str | None = None) -> None:
        super().__init__(message)
        self.headline = headline or message


@dataclass
class Seat:
    """Who sits in one seat, and how the game log names them."""

    kind: str  # human | model | heuristic | random | search
    agent: Agent | None = None  # None for a human: the session builds the HumanAgent
    name: str = ""
    model_path: str | None = None
    model_hash: str | None = None
    seed: int | None = None

    def record(self) -> dict[str, Any]:
        out = {"kind": self.kind, "name": self.name or self.kind, "model_path": self.model_path,
               "model_hash": self.model_hash}
        if self.seed is not None:
            out["seed"] = self.seed
        return out

    def describe(self) -> str:
        if self.kind == "model":
            return f"model {self.name} #{(self.model_hash or '')[:12]}"
        return self.name if self.name and self.name != self.kind else self.kind


@dataclass
class Outcome:
    state: State
    moves: list[Move]
    ended: str  # "finished" | "truncated" | "quit" | "eof" | "interrupted" | "limit"
    quit_by: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class PlaySession:
    def __init__(self, game: Game, state: State, seats: list[Seat], console: Console | None = None,
                 max_steps: int | None = None) -> None:
        if len(seats) != game.num_players:
            raise ValueError(f"{len(seats)} seats for a {game.num_players}-player game")
        self.game = game
        self.state = state
        self.seats = seats
        self.console = console if console is not None else Console()
        self.max_steps = max_steps if max_steps is not None else game.max_decisions()
        self.humans = [i for i, s in enumerate(seats) if s.kind == "human"]
        self.moves: list[Move] = []
        self.last_seen = {h: 0 for h in self.humans}  # index into moves of each human's last screen
        self.last_screen_seat: int | None = None
        self.asked_anyway = False  # the current question has one answer, asked to keep a secret
        self.agents: list[Agent] = []
        for i, seat in enumerate(seats):
            if seat.kind == "human":
                self.agents.append(HumanAgent(self.console, screen=self.screen, history=self.history_text))
            else:
                self.agents.append(seat.agent)

    # -- naming -------------------------------------------------------------------------------
    def who(self, seat: int, viewer: int | None = None) -> str:
        if viewer is not None and seat == viewer:
            return f"player {seat} (you)"
        return f"player {seat} ({self.seats[seat].describe()})"

    def moves_text(self, moves: list[Move], viewer: int | None) -> list[str]:
        lines = []
        for m in moves:
            auto = " (the only legal choice, taken without asking)" if m.auto else ""
            lines.append(f"  {m.step + 1:>4}. {self.who(m.player, viewer)}: {m.label_for(viewer)}{auto}")
            lines.extend(f"        {event}" for event in m.events_for(viewer))
        return lines

    def history_text(self, viewer: int) -> str:
        if not self.moves:
            return "No moves yet."
        return "Moves so far:\n" + "\n".join(self.moves_text(self.moves, viewer))

    # -- the human's screen -------------------------------------------------------------------
    def screen(self, decision: Decision) -> str:
        seat, state = decision.player, decision.state
        lines = [f"=== {self.game.env_id} · decision {len(state.history) + 1} · {self.who(seat, seat)} ==="]
        lines.append(state.render(seat))
        lines.append("")
        recent = self.moves[self.last_seen.get(seat, 0):]
        self.last_seen[seat] = len(self.moves)
        if recent:
            lines.append("Since your last decision:" if len(state.history) > len(recent) else "Moves so far:")
            if len(recent) > RECENT_LIMIT:
                lines.append(f"  ... {len(recent) - RECENT_LIMIT} earlier moves (type log)")
                recent = recent[-RECENT_LIMIT:]
            lines.extend(self.moves_text(recent, seat))
        elif not state.history:
            lines.append("First decision of the game.")
        lines.append("Seats: " + ", ".join(self.who(p, seat) for p in range(self.game.num_players)))
        lines.append(f"Player {seat}, you decide now: {state.decision()}")
        if self.asked_anyway:
            lines.append(ONLY_CHOICE_ASKED)
        lines.append("Choices:")
        return "\n".join(lines)

    def pass_screen(self, seat: int) -> None:
        """Hot seat: hide the last screen and wait until ``seat`` has the screen."""
        if len(self.humans) < 2 or self.last_screen_seat == seat:
            return
        con = self.console
        con.clear()
        answer = con.ask(f"Pass the screen to player {seat} ({self.seats[seat].describe()}), "
                         f"then press Enter. ")
        if answer is None:
            raise QuitGame("eof", seat)
        if answer.strip().lower() in ("quit", "exit"):
            raise QuitGame("quit", seat)
        self.last_screen_seat = seat

    # -- the game loop ------------------------------------------------------------------------
    def run(self) -> Outcome:
        state, con = self.state, self.console
        steps = 0
        watch = not self.humans  # only agents: show every move as it happens
        if watch:
            everyone = ", ".join(self.who(p) for p in range(self.game.num_players))
            con.write(f"=== {self.game.env_id}: {everyone}")
        try:
            while state.current_player is not None:
                if steps >= self.max_steps:
                    return self._end("limit")
                p = state.current_player
                decision = Decision(p, state)
                auto = False
                if self.seats[p].kind == "human":
                    legal = state.legal_actions()
                    self.asked_anyway = len(legal) == 1 and self.only_choice_is_secret(state)
                    if len(legal) == 1 and not self.asked_anyway:
                        action, auto = legal[0], True
                    else:
                        self.pass_screen(p)
                        self.last_screen_seat = p
                        action = self.agents[p].act(decision)
                else:
                    try:
                        action = self.agents[p].act(decision)
                        if not state.is_legal(action):
                            raise IllegalActionError(action, state.decision(), state._legal_names())
                    except QuitGame:
                        raise
                    except Exception as exc:
                        raise AgentError(f"{self.who(p)} failed: {type(exc).__name__}: {exc}",
                                         f"{self.who(p)} failed ({type(exc).__name__})") from exc
                viewers = [h for h in self.humans if h != p]
                move = make_move(state, int(action), viewers)
                before = state.clone()
                state.apply(int(action))
                move.auto = auto
                tell(move, before, state, [*self.humans, None])
                self.moves.append(move)
                steps += 1
                if watch:
                    con.write("\n".join(self.moves_text([move], None)))
        except QuitGame as stop:
            return self._end(stop.reason, stop.player)
        except KeyboardInterrupt:  # Ctrl-C: still end the game cleanly so it can be logged
            return self._end("interrupted", state.current_player)
        return self._end("truncated" if state.truncated else "finished")

    def only_choice_is_secret(self, state: State) -> bool:
        """Whether the seat to move is asked its only legal choice anyway: another human is at
        this screen and the game has hidden information (``kabenvs.core.secrecy``: the rule looks
        at nothing hidden, so being asked or not tells nobody anything)."""
        # agents see no screen: only the other humans count (kabenvs.core.secrecy)
        return secret_only_choice(state, [h for h in self.humans if h != state.current_player])

    def _end(self, ended: str, quit_by: int | None = None) -> Outcome:
        con = self.console
        if len(self.humans) >= 2 and ended in ("finished", "truncated"):
            con.clear()
        con.write(self.final_screen(ended, quit_by))
        return Outcome(self.state, self.moves, ended, quit_by)

    def final_screen(self, ended: str, quit_by: int | None) -> str:
        state = self.state
        n = self.game.num_players
        lines = [f"=== Game over: {self.game.env_id}, {len(state.history)} decisions ==="]
        if ended == "finished":
            winners = state.winners()
            if not winners:
                lines.append("Result: nobody wins.")
            elif len(winners) == 1:
                lines.append(f"Result: {self.who(winners[0])} wins.")
            else:
                lines.append("Result: shared victory of " + ", ".join(self.who(w) for w in winners) + ".")
            if self.moves:
                last = self.moves[-1]
                lines.append("How it ended:")
                auto = " (the only legal choice, taken without asking)" if last.auto else ""
                lines.append(f"  {self.who(last.player)}: {last.name}{auto}")
                lines.extend(f"  {event}" for event in last.events_for(None))
            lines.append("Scores:")
            lines.extend(final_tables(state, [self.who(p) for p in range(n)]))
        elif ended == "truncated":
            lines.append("The game hit its own limit and ended without a result.")
        elif ended == "limit":
            lines.append(f"Stopped after {self.max_steps} decisions (the game's bound) without a result.")
        elif ended == "interrupted":
            lines.append("Interrupted (Ctrl-C): game abandoned, no result.")
        elif ended == "eof":
            lines.append(f"Input ended at player {quit_by}'s decision: game abandoned, no result.")
        else:
            lines.append(f"Player {quit_by} quit: game abandoned, no result.")
        lines.append("")
        lines.append("Everything revealed:")
        lines.append(state.render(None))
        return "\n".join(lines)
