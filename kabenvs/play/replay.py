"""``play.py --replay LOG``: step through a logged game from one seat's view or all of them.

The replay re-deals from the logged seed and applies the logged actions through the rules
engine (``kabenvs.records.replay_states``), so what it shows is the game itself, not a copy of
the log's text; it ends by checking that the final state and the result are the logged ones.
"""

from __future__ import annotations

from kabenvs.core.errors import brief
from kabenvs.agents.human import Console
from kabenvs.play.cli import UsageError
from kabenvs.play.view import final_tables, seen_name
from kabenvs.records import RecordError, check_against_game, game_of, read_records, replay_states, result_of


def _seat_text(seat: dict) -> str:
    kind, name = seat.get("kind"), seat.get("name")
    if kind == "model":
        return f"model {name} #{str(seat.get('model_hash'))[:12]}"
    return kind if not name or name == kind else f"{kind} {name}"


def _result_text(result: dict) -> str:
    if result.get("truncated"):
        return "truncated (no result)"
    if not result.get("finished"):
        return "abandoned (no result)"
    winners = result.get("winners") or []
    if not winners:
        return "nobody wins"
    names = " and ".join(f"player {p}" for p in winners)
    return f"{names} {'wins' if len(winners) == 1 else 'share the victory'}"


def replay_main(args, console: Console) -> int:
    try:
        records = read_records(args.replay)
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    if not records:
        raise UsageError(f"{args.replay} holds no games")
    if args.list:
        for i, rec in enumerate(records):
            seats = ", ".join(_seat_text(s) for s in rec["seats"])
            console.write(f"{i:>4}  {rec['env_id']}  seed {rec['seed']}  {len(rec['actions'])} decisions  "
                          f"[{seats}]  {_result_text(rec['result'])}")
        return 0
    k = args.game_index
    if k is None:
        if len(records) > 1:
            raise UsageError(f"{args.replay} holds {len(records)} games; choose one with --game-index K "
                             f"(0..{len(records) - 1}, -1 for the last; --list shows them)")
        k = 0
    if not -len(records) <= k < len(records):
        raise UsageError(
            f"--game-index {k}: {args.replay} holds {len(records)} games (0..{len(records) - 1}, or -1)"
        )
    record = records[k]
    try:
        game = game_of(record)
        check_against_game(record, game, "record")
    except RecordError as exc:
        raise UsageError(f"{args.replay} game {k}: {exc}") from None
    n = game.num_players
    view = _parse_view(args.view, n)
    seats = record["seats"]

    def who(p: int) -> str:
        you = " (you)" if view == p else ""
        return f"player {p}{you} ({_seat_text(seats[p]) if p < len(seats) else '?'})"

    console.write(f"Replay of game {k % len(records)} in {args.replay}: "
                  f"{record['env_id']} {record['config']}, "
                  f"seed {record['seed']}, {len(record['actions'])} decisions")
    console.write("Seats: " + ", ".join(who(p) for p in range(n)))
    console.write(f"View: {'everything' if view is None else f'player {view}'}")
    states = replay_states(record, game)
    try:
        state = next(states)
        console.write("\n--- the deal ---")
        console.write(state.render(view))
        for step, act in enumerate(record["actions"]):
            label = seen_name(state, act["action"], view)
            before, state = state, next(states)
            console.write(f"\n--- step {step + 1}: {who(act['player'])}: {label} ---")
            for event in state.narrate(before, act["action"], view)[1:]:
                console.write(f"  {event}")
            console.write(state.render(view))
            if args.step and step + 1 < len(record["actions"]):
                answer = console.ask("Enter: next step, q: stop ")
                if answer is None or answer.strip().lower() in ("q", "quit"):
                    console.write("Replay stopped.")
                    return 0
        for _ in states:  # runs the final-state check
            pass
    except RecordError as exc:
        console.write(f"play.py: {args.replay} game {k} does not replay: {exc}")
        return 1
    recomputed = result_of(state)
    logged = record["result"]
    console.write("")
    console.write(f"Result: {_result_text(recomputed)}")
    if recomputed.get("finished"):
        console.write("Scores:")
        console.write("\n".join(final_tables(state, [who(p) for p in range(n)])))
    keys = ("finished", "truncated", "winners", "returns")
    same = all(recomputed.get(key) == logged.get(key) for key in keys)
    if not same:
        console.write(f"play.py: the replayed result differs from the log's ({_result_text(logged)})")
        return 1
    console.write("Replay matches the log: same decisions, same final state, same result.")
    if view is not None:
        console.write("\nEverything revealed:")
        console.write(state.render(None))
    return 0


def _parse_view(text: str, n: int) -> int | None:
    if text.lower() in ("all", "none", "everything"):
        return None
    try:
        seat = int(text)
    except ValueError:
        raise UsageError(f"--view {brief(text)}: give a seat number 0..{n - 1} or 'all'") from None
    if not 0 <= seat < n:
        raise UsageError(f"--view {seat}: this game has seats 0..{n - 1} (or 'all')")
    return seat
