"""Rigged Alakazum! positions: put named cards where a test wants them, script the die."""

from __future__ import annotations

from kabenvs.games.alakazum import AlakazumGame
from kabenvs.games.alakazum.rules import AlakazumState


class Table:
    """A state with every card placed by hand; unplaced cards go to the bottom of the forest."""

    def __init__(self, num_players: int = 2, seed: int = 0, **options) -> None:
        self.game = AlakazumGame(num_players=num_players, **options)
        self.state: AlakazumState = self.game.new_state(seed)
        self.cs = self.game.cs
        self._used: set[int] = set()

    def id(self, name: str) -> int:
        for c in self.cs.cards:
            if c.name == name and c.id not in self._used and c.kind != "final":
                self._used.add(c.id)
                return c.id
        raise KeyError(f"no free card named {name!r}")

    def final(self, name: str) -> int:
        return next(c.id for c in self.cs.cards if c.kind == "final" and c.name == name)

    def arrange(self, teams=None, hands=None, forest_top=(), market=(), graveyard=(), brooms=None,
                dolls_boxed=True) -> AlakazumState:
        """teams: {p: [(name, level 0-2), ...]}; hands: {p: [names]}; forest_top: first = top;
        market: last = top; brooms: {character name: broom}."""
        s = self.state
        n = s.num_players
        s.hands = [[] for _ in range(n)]
        s.teams = [[] for _ in range(n)]
        s.known = [[[] for _ in range(n)] for _ in range(n)]
        s.forest_known = [0] * n
        s.level = [0] * len(self.cs.cards)
        s.broom = [-1] * len(self.cs.cards)
        s.display = []
        s.boxed = []
        for p, members in (teams or {}).items():
            for name, level in members:
                c = self.id(name)
                s.teams[p].append(c)
                s.level[c] = level
        for p, names in (hands or {}).items():
            s.hands[p] = [self.id(x) for x in names]
        for name in brooms or ():
            c = next(c for t in s.teams for c in t if self.cs.cards[c].name == name)
            s.broom[c] = self.id("Broom")
        top = [self.id(x) for x in forest_top]
        s.market = [self.id(x) for x in market]
        s.graveyard = [self.id(x) for x in graveyard]
        if dolls_boxed:  # no voodoo windows unless the test hands dolls out
            s.boxed = [c for c in self.game.in_play if self.cs.effect[c] == "voodoo" and c not in self._used]
            self._used.update(s.boxed)
        rest = [c for c in self.game.in_play if c not in self._used and c not in s.finals]
        s.forest = rest + top[::-1]
        return s

    def begin_turn(self, p: int) -> AlakazumState:
        s = self.state
        s.pending = None
        s.combat = None
        s._start_turn(p)
        s._advance()
        s.touch()
        return s

    def at_action(self, p: int) -> AlakazumState:
        """Phase 2 of player p's turn (exploration already done)."""
        s = self.state
        s.turn_player = p
        s.stage = "action"
        s.actions_left = 1
        s.in_dejavu = False
        s.combat = None
        s.pending = {"k": "choose_action", "p": p}
        s.current_player = p
        s.touch()
        return s

    def at_alakazum(self, p: int) -> AlakazumState:
        s = self.state
        s.turn_player = p
        s.stage = "alakazum"
        s.combat = None
        s.pending = {"k": "alakazum_phase", "p": p}
        s.current_player = p
        s.touch()
        return s


def script_dice(state: AlakazumState, rolls: list[int]) -> list[int]:
    """Make the next die rolls ``rolls`` (the list is consumed; a test can check it emptied)."""
    queue = list(rolls)

    def roll() -> int:
        assert queue, "the engine rolled more dice than the test scripted"
        return queue.pop(0)

    state._roll = roll  # an underscore attribute: never saved, never cloned
    return queue


def do(state: AlakazumState, *names: str) -> None:
    """Apply actions by their readable names; a missing one fails with the legal choices."""
    cat = state.game.catalog
    for name in names:
        legal = {state.action_name(a): a for a in state.legal_actions()}
        assert name in legal, f"{name!r} is not legal at {state.decision()}; legal: {sorted(legal)}"
        state.apply(legal[name])
    del cat


def legal_names(state: AlakazumState) -> list[str]:
    return sorted(state.action_name(a) for a in state.legal_actions())
