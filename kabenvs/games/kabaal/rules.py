"""Kabaal: trick taking for 2-4 players where tricks place cultists on a grid of area cards.

Each round the amulet holder deals 8 cards each; everyone passes 2 cards left, which the
receiver keeps face up. Six tricks follow (follow suit; colourless cards may always be played).
The winner places up to two cultists on the area cards named by the trick's colour cards,
pushing whoever stood there to adjacent cards; three cultists of a cult in an orthogonal line
perform a ritual (all that cult's cultists leave the board, one goes to its altar for good).
Players without a trick place a pity cultist at the end of a round. Three rituals win; the game
ends at the end of the turn in which someone reaches three, and everyone with three shares.

Every choice is its own decision (see docs/games/kabaal.md for the action table); whoever
decides is ``current_player`` (the pusher decides push destinations, the performer of a Dagon
ritual the card to turn). A decision with exactly one legal choice is taken by the engine itself
and never asked (a forced card, a forced face-up replacement, a forced push).

Rulebook points this engine had to interpret (each is in docs/games/kabaal.md and a test):

1. Passing is secret and simultaneous: seats choose one card at a time, clockwise from the
   amulet holder; nobody's observation shows another's choice before the exchange. Cards go to
   the left neighbour (= next seat clockwise, the seat that plays after you).
2. A colourless lead must be followed with a colourless card if possible; then only colourless
   cards can win. A coloured lead: a player holding that colour plays it or a colourless card.
3. Placing: one placement per card colour in the trick, at most two, the first one mandatory when
   any is possible. Both cultists are placed first (step 3), then the cultists that stood on the
   first card are pushed, then those that stood on the second ("complete pushing all cultists on
   1 area card before you begin pushing cultists on the other"). Only cultists that stood there
   before are pushed: one pushed onto the second card stays ("you cannot push back", no chain
   reaction). The cultists waiting to be pushed are off the board meanwhile, so an empty-supply
   placer cannot choose one of them as the cultist that moves.
4. Pushes: order within one card does not matter (a pushed cultist's destinations depend only on
   cultists of its own colour, and each card holds at most one per cult), so the engine pushes a
   card's cultists in seat order and asks only for destinations. A cultist with no legal
   destination goes back to its supply automatically.
5. Empty supply: the placer first names the target card, then which of their cultists on another
   card moves there. Moving a cultist onto the card it already stands on is not a move.
6. A line is a maximal run of at least 3 orthogonally consecutive area cards (no hole, no
   face-down card between) holding a cultist of the cult; each such run is one ritual, so two
   runs sharing a cultist (5 cultists) are two rituals, a straight run of 4-5 is one.
7. Pity cultists are optional ("may place"): the player may decline. The pity placer pushes. The
   game-end check after pity cultists comes once all pity cultists are placed.
8. The game ends at the end of the trick (or of the pity phase) in which someone reached 3
   rituals; everyone with 3 or more shares the victory. ``max_rounds`` (config) truncates a
   runaway game at the end of that round: no result, all returns 0, the amulet stays put.
9. Dagon (option): after each ritual the performer turns one card of that ritual's line face down;
   cultists on it (of other cults) are pushed by the performer. A face-down card holds no cultist,
   takes no pushed cultist and breaks lines like a hole.
   A trick card matching a face-down card may flip it up instead of one placement (same colour
   budget, no cultist used, nothing pushed); flipping is optional even when it is the only option.
   Lines formed by a Dagon push are checked right away (a further ritual step). Several
   performers flip in clockwise order from the placer.
10. ``lowest_wins`` (option): the lowest eligible card wins; "666" still always wins; the order
    is 1 < 2 < ... < 5 < 5+ < 6 < 6+ < 7 < 7+ < 8, so "5+" beats a 5 but loses to a 6.
11. The amulet starts with a random seat; rewards: winners +1, others -1, all 0 when everyone
    shares the victory or the game is truncated. ``reward="score"`` (config) instead gives each
    seat (its rituals - the most rituals of any other seat) / 3 at the end (0 on truncation).
12. Forced moves are taken by the engine, so that a card was forced is public: the observation
    records it and ``resample_hidden`` keeps it so (see the resampling section below).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.errors import IllegalActionError
from kabenvs.core.game import Game, State, copy_generator, winners_line
from kabenvs.core.observation import ObservationLayout
from kabenvs.games.kabaal.board import (
    AREA_CARDS,
    CROSS_WITH_HOLES,
    CULT_COLOURS,
    CULTISTS_PER_PLAYER,
    NUM_AREAS,
    BoardGeometry,
    parse_layout,
)
from kabenvs.games.kabaal.cards import (
    AREA, CARD_666, CARD_NAMES, COLOUR, NO_COLOUR, NUM_CARDS, RANK, VALUE, deck_for,
)
from kabenvs.games.kabaal.encoding import (
    MOVE_KIND, PHASES, PITY_PART, TRICKS_PER_ROUND, Encoder, build_layout, max_board_moves,
)

HAND_SIZE = 8
PASS_COUNT = 2
MAX_PLACEMENTS = 2
RITUALS_TO_WIN = 3
HIDDEN_PASS = "pass a card (hidden)"  # another seat's pass choice, as the others read it
VOID_COLOURLESS = 1 << 4  # voids bit for "holds no colourless card" (bits 0-3: card colours)


@dataclasses.dataclass(frozen=True)
class KabaalConfig(GameConfig):
    num_players: int = 3
    layout: Any = "baal"  # a name from board.LAYOUTS or a grid of area names with holes (None)
    dagon: bool = False
    lowest_wins: bool = False
    max_rounds: int = 30  # project default: truncates a runaway game (rules note 8)
    # "win": winners +1, the others -1 (rules note 11); "score": (my rituals - the most rituals of
    # any other player) / 3, a denser signal for training at 3-4 players (State.returns, with
    # KabaalGame.score_scale). It changes no rule, move or observation.
    reward: str = "win"

    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (2, 3, 4)

    def __post_init__(self) -> None:
        # Grids arrive as lists from YAML/JSON: normalise to tuples so the config stays hashable.
        if isinstance(self.layout, list | tuple):
            object.__setattr__(
                self, "layout",
                tuple(tuple(r) if isinstance(r, list | tuple) else r for r in self.layout),
            )
        super().__post_init__()

    def validate(self) -> None:
        super().validate()
        self.check_bool("dagon")
        self.check_bool("lowest_wins")
        self.check_int("max_rounds", 1, 10_000)
        self.check_choice("reward", ("win", "score"))
        try:
            parse_layout(self.layout)
        except ValueError as exc:
            self.fail(str(exc))


class KabaalGame(Game):
    name = "kabaal"
    env_id = "kabaal_v0"
    Config = KabaalConfig
    # The kit replays every sampled state to the end several times, so its configs cap the game
    # at 2 rounds (random games last ~6-7; in 2 rounds most already hold a ritual, and the cap
    # exercises truncation). Full-length games of every variant run in tests/games/kabaal.
    # Full-length games (the default max_rounds never binds in random play: ~6-7 rounds) for
    # every player count and variant; one config keeps a 2-round cap so truncation is exercised.
    # resample_hidden draws in card order, never in the true cards' order (kit-checked)
    worlds_depend_only_on_information = True
    test_configs: ClassVar[list[dict[str, Any]]] = [
        {"num_players": 3},
        {"num_players": 2},
        {"num_players": 4},
        {"num_players": 3, "dagon": True},
        # lowest_wins on an own arrangement with holes, capped at 2 rounds (truncation)
        {"num_players": 4, "lowest_wins": True, "layout": CROSS_WITH_HOLES, "max_rounds": 2},
    ]

    def __init__(self, config=None, **options) -> None:
        super().__init__(config, **options)
        cfg = self.config
        self.score_scale = float(RITUALS_TO_WIN)  # reward="score": a margin of 3 rituals reads 1
        self.geometry = BoardGeometry.build(cfg.layout)
        self.deck = deck_for(self.num_players)
        cat = self.catalog
        self.pass_base = cat.range("pass_card").start
        self.play_base = cat.range("play").start
        self.face_up_base = cat.range("face_up").start
        self.place_base = cat.range("place").start
        self.flip_up_base = cat.range("flip_up").start if cfg.dagon else -1
        self.stop_id = cat.id("stop")
        self.move_base = cat.range("move_from").start
        self.push_base = cat.range("push").start
        self.flip_down_base = cat.range("flip_down").start if cfg.dagon else -1
        # _apply decodes ids arithmetically; keep the catalog honest about it.
        last_push = cat.id("push", self.num_players - 1, NUM_AREAS - 1)
        assert last_push == self.push_base + self.num_players * NUM_AREAS - 1
        self.kind_of = [cat.kind(a) for a in range(cat.size)]
        self.max_board_moves = max_board_moves(self.num_players, cfg.dagon)
        self.encoder = Encoder(self.layout, self.num_players, cfg.max_rounds, cat.range("pass_card"))

    def build_catalog(self) -> ActionCatalog:
        n = self.num_players
        cat = ActionCatalog()
        cards = [(k,) for k in range(NUM_CARDS)]
        areas = [(a,) for a in range(NUM_AREAS)]
        cat.add("pass_card", cards, name=lambda k: f"pass {CARD_NAMES[k]}",
                describe="choose a card to pass left (asked twice per round)")
        cat.add("play", cards, name=lambda k: f"play {CARD_NAMES[k]}", describe="play a card to the trick")
        cat.add("face_up", cards, name=lambda k: f"face up {CARD_NAMES[k]}",
                describe="after playing a face-up card: the hand card that replaces it face up")
        cat.add("place", areas, name=lambda a: f"place on {AREA_CARDS[a]}",
                describe="place a cultist on an area card (trick winner, or pity cultist)")
        if self.config.dagon:
            cat.add("flip_up", areas, name=lambda a: f"flip up {AREA_CARDS[a]}",
                    describe="Dagon: turn a matching face-down area card face up instead of a placement")
        cat.add("stop", name="place no more cultists",
                describe="skip the optional second placement (or the pity cultist)")
        cat.add("move_from", areas, name=lambda a: f"move cultist from {AREA_CARDS[a]}",
                describe="empty supply: which of my cultists moves to the chosen card")
        cat.add("push", [(q, a) for q in range(n) for a in range(NUM_AREAS)],
                name=lambda q, a: f"push {CULT_COLOURS[q]} cultist to {AREA_CARDS[a]}",
                describe="pusher: destination of the pushed cultist of cult q (seat q, absolute); "
                "id = base + q*16 + area")
        if self.config.dagon:
            cat.add("flip_down", areas, name=lambda a: f"flip down {AREA_CARDS[a]}",
                    describe="Dagon: the ritual performer turns this card of the line face down")
        return cat

    def build_layout(self) -> ObservationLayout:
        moves = max_board_moves(self.num_players, self.config.dagon)
        return build_layout(self.num_players, self.catalog.size, moves)

    def max_decisions(self) -> int:
        n = self.num_players
        per_trick = 2 * n + 2 * MAX_PLACEMENTS + 1 + MAX_PLACEMENTS * n
        per_round = PASS_COUNT * n + TRICKS_PER_ROUND * per_trick + n * (2 + n)
        rituals = n * CULTISTS_PER_PLAYER * (1 + n)  # Dagon flips and their pushes, whole game
        return self.config.max_rounds * per_round + rituals + 10


class KabaalState(State):
    game: KabaalGame

    # -- setup --------------------------------------------------------------------------------
    @classmethod
    def deal(cls, game: KabaalGame, rng: np.random.Generator) -> "KabaalState":
        s = cls(game, rng)
        n = game.num_players
        s.round = 1
        s.amulet = int(rng.integers(n))
        s.board = [0] * NUM_AREAS  # bit p set: cult p has a cultist on that area card
        s.face_down = [0] * NUM_AREAS
        s.supply = [CULTISTS_PER_PLAYER] * n
        s.altar = [0] * n
        s.last_move: list[int] = []  # [seat, action] of the last decision asked (not forced ones)
        s._start_round()
        s._settle()
        return s

    def _start_round(self) -> None:
        n = self.num_players
        order = [int(k) for k in self.rng.permutation(self.game.deck)]
        self._begin_round([order[p * HAND_SIZE:(p + 1) * HAND_SIZE] for p in range(n)], order[n * HAND_SIZE:])

    def _begin_round(self, hands: list[list[int]], undealt: list[int]) -> None:
        """A round dealt with these hands: every per-round field starts afresh. The public pieces
        at this moment are recorded in ``round_start``: resampling rebuilds the round's deal from
        them (a round's start is all a world needs; see ``resample_hidden``)."""
        n = self.num_players
        self.hands = [sorted(h) for h in hands]
        self.undealt = sorted(undealt)
        self.round_start = {
            "history": len(self.history), "board": self.board[:], "face_down": self.face_down[:],
            "supply": self.supply[:], "altar": self.altar[:], "last_move": self.last_move[:],
        }
        self.faceup = [[] for _ in range(n)]
        self.passing = [[] for _ in range(n)]
        self.passed = [[] for _ in range(n)]
        self.received = [[] for _ in range(n)]
        self.played = [[] for _ in range(n)]  # played[p][t]: p's card in trick t (one per trick)
        self.forced = [[] for _ in range(n)]  # forced[p][t]: 1 if that card was p's only legal one
        self.revealed = [[] for _ in range(n)]  # [card, trick]: turned face up to replace a played one
        self.voids = [0] * n  # bit c: p showed it holds no card of colour c (bit 4: colourless)
        self.trick_winners: list[int] = []
        self.trick_seats: list[int] = []
        self.trick_cards: list[int] = []
        self.tricks_played = 0
        self.tricks_won = [0] * n
        self.actor: int | None = None
        self.pusher: int | None = None
        self.context = "trick"
        self.place_colours: list[int] = []
        self.placements_done = 0
        self.move_target: int | None = None
        self.push_queue: list[list[int]] = []  # [area it stood on, cult], pushed in order
        self.after_push = "place"
        self.flip_queue: list[list] = []  # Dagon: [performer, line areas] per ritual
        self.pity_queue: list[int] = []
        # every board move of this round in order (public): [who, kind, cult, from, to, forced,
        # part] with kind an index of MOVE_KIND, -1 for "none", part the trick (PITY_PART: pity)
        self.board_log: list[list[int]] = []
        self.phase = "pass"
        self.current_player = self.amulet

    # -- legality -------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        # _settle computed the decision now asked to see whether it is forced: those choices are
        # taken here instead of computed again (_apply and _reset_caches drop them)
        if self._legal is None and self._next_legal is not None:
            self._legal, self._next_legal = self._next_legal, None
        return super().legal_actions()

    def _legal_actions(self) -> list[int]:
        g = self.game
        p = self.current_player
        phase = self.phase
        if phase == "play":
            base = g.play_base
            return sorted(base + k for k in self._playable(p))
        if phase == "pass":
            base = g.pass_base
            return [base + k for k in self.hands[p]]
        if phase == "face_up":
            base = g.face_up_base
            return [base + k for k in self.hands[p]]
        if phase == "push":
            a, q = self.push_queue[0]
            base = g.push_base + q * NUM_AREAS
            return sorted(base + b for b in self._destinations(a, q))
        if phase == "place":
            places, flips = self._placement_options()
            out = [g.place_base + a for a in places] + [g.flip_up_base + a for a in flips]
            if self._may_stop(places):
                out.append(g.stop_id)
            return sorted(out)
        if phase == "move":
            bit = 1 << p
            target = self.move_target
            return [g.move_base + a for a in range(NUM_AREAS) if self.board[a] & bit and a != target]
        if phase == "flip_down":
            return sorted(g.flip_down_base + a for a in self.flip_queue[0][1] if not self.face_down[a])
        raise AssertionError(f"unknown phase {phase!r}")

    def _playable(self, p: int) -> list[int]:
        cards = self.hands[p] + self.faceup[p]
        if not self.trick_cards:
            return cards
        led = COLOUR[self.trick_cards[0]]
        if led == NO_COLOUR:
            colourless = [k for k in cards if COLOUR[k] == NO_COLOUR]
            return colourless or cards
        if any(COLOUR[k] == led for k in cards):
            return [k for k in cards if COLOUR[k] == led or COLOUR[k] == NO_COLOUR]
        return cards

    def _destinations(self, a: int, q: int) -> list[int]:
        bit = 1 << q
        board, down = self.board, self.face_down
        return [b for b in self.game.geometry.neighbours[a] if not board[b] & bit and not down[b]]

    def _placement_options(self) -> tuple[list[int], list[int]]:
        """Area cards the actor may place on, and (Dagon) face-down cards they may flip up."""
        if self.placements_done >= MAX_PLACEMENTS:
            return [], []
        places: set[int] = set()
        flips: set[int] = set()
        down = self.face_down
        if self.context == "pity":
            if self.placements_done == 0:
                places = {a for a in range(NUM_AREAS) if not down[a]}
        else:
            used = self.place_colours
            for k in self.trick_cards:
                c = COLOUR[k]
                if c == NO_COLOUR or c in used:
                    continue
                a = AREA[k]
                (flips if down[a] else places).add(a)
        if places and self.supply[self.actor] == 0:
            # Moving instead of placing needs a cultist of mine on another card (rules note 5).
            bit = 1 << self.actor
            mine = [b for b in range(NUM_AREAS) if self.board[b] & bit]
            places = {a for a in places if any(b != a for b in mine)}
        return sorted(places), sorted(flips)

    def _may_stop(self, places: list[int]) -> bool:
        return self.context == "pity" or self.placements_done > 0 or not places

    # -- applying decisions ---------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        self._next_legal = None
        self.last_move = [self.current_player, action]
        self._dispatch(action)
        self._settle()

    def _settle(self) -> None:
        """Take every decision that has exactly one legal choice (rules: forced moves)."""
        while self.current_player is not None:
            legal = self._legal_actions()
            if len(legal) != 1:
                self._next_legal = legal  # the decision now asked: legal_actions takes it
                return
            self._dispatch(legal[0], forced=True)

    def _dispatch(self, action: int, forced: bool = False) -> None:
        g = self.game
        kind = g.kind_of[action]
        if kind == "play":
            self._play(action - g.play_base, forced)
        elif kind == "pass_card":
            self._choose_pass(action - g.pass_base)
        elif kind == "face_up":
            self._reveal(action - g.face_up_base)
        elif kind == "push":
            q, b = divmod(action - g.push_base, NUM_AREAS)
            self._log("push", q, self.push_queue[0][0], b, forced)
            self._push(q, b)
        elif kind == "place":
            self._place(action - g.place_base, forced)
        elif kind == "stop":
            self._log("stop", -1, -1, -1, forced)
            self._next_push()
        elif kind == "move_from":
            src = action - g.move_base
            self._log("move", self.actor, src, self.move_target, forced)
            self._move_from(src)
        elif kind == "flip_up":
            self._log("flip_up", -1, -1, action - g.flip_up_base, forced)
            self._flip_up(action - g.flip_up_base)
        elif kind == "flip_down":
            self._log("flip_down", -1, -1, action - g.flip_down_base, forced)
            self._flip_down(action - g.flip_down_base)
        else:  # pragma: no cover - the catalog has no other kinds
            raise AssertionError(kind)

    def _log(self, kind: str, cult: int, src: int, dst: int, forced: bool) -> None:
        """Record a board move of this round (public; the observation shows the whole sequence).
        ``who`` is the seat deciding it: the placer, the pusher or the Dagon performer."""
        part = self.tricks_played if self.context == "trick" else PITY_PART
        who = self.current_player if kind != "return" else self.pusher
        self.board_log.append([who, MOVE_KIND[kind], cult, src, dst, int(forced), part])

    # passing
    def _choose_pass(self, k: int) -> None:
        p = self.current_player
        self.hands[p].remove(k)
        self.passing[p].append(k)
        if len(self.passing[p]) < PASS_COUNT:
            return
        nxt = (p + 1) % self.num_players
        if nxt != self.amulet:
            self.current_player = nxt
            return
        # Everyone chose: pass left, the received cards are the face-up cards.
        n = self.num_players
        for p in range(n):
            to = (p + 1) % n
            self.faceup[to] = sorted(self.passing[p])
            self.received[to] = sorted(self.passing[p])
            self.passed[p] = sorted(self.passing[p])
        self.passing = [[] for _ in range(n)]
        self._start_trick(self.amulet)

    # tricks
    def _start_trick(self, leader: int) -> None:
        self.trick_seats = []
        self.trick_cards = []
        self.actor = None
        self.pusher = None
        self.place_colours = []
        self.placements_done = 0
        self.context = "trick"
        self.phase = "play"
        self.current_player = leader

    def _play(self, k: int, forced: bool = False) -> None:
        p = self.current_player
        if self.trick_cards:
            # Not following suit shows a void for the rest of the round (VOID_BIT: colourless).
            led, c = COLOUR[self.trick_cards[0]], COLOUR[k]
            if led == NO_COLOUR:
                if c != NO_COLOUR:
                    self.voids[p] |= VOID_COLOURLESS
            elif c != led and c != NO_COLOUR:
                self.voids[p] |= 1 << led
        self.forced[p].append(int(forced))
        self.trick_seats.append(p)
        self.trick_cards.append(k)
        self.played[p].append(k)
        if k in self.faceup[p]:
            self.faceup[p].remove(k)
            if self.hands[p]:
                self.phase = "face_up"  # replace it at once with a hand card (a decision)
                return
        else:
            self.hands[p].remove(k)
        self._next_in_trick()

    def _reveal(self, k: int) -> None:
        p = self.current_player
        self.hands[p].remove(k)
        self.faceup[p].append(k)
        self.faceup[p].sort()
        self.revealed[p].append([k, self.tricks_played])
        self.phase = "play"
        self._next_in_trick()

    def _next_in_trick(self) -> None:
        if len(self.trick_cards) < self.num_players:
            self.phase = "play"
            self.current_player = (self.current_player + 1) % self.num_players
            return
        winner = trick_winner(self.trick_cards, self.trick_seats, self.game.config.lowest_wins)
        self.tricks_won[winner] += 1
        self.trick_winners.append(winner)
        self.actor = winner
        self.pusher = winner
        for seat, k in zip(self.trick_seats, self.trick_cards):
            if VALUE[k] == 1:  # whoever played the first "1" pushes
                self.pusher = seat
                break
        self.context = "trick"
        self.place_colours = []
        self.placements_done = 0
        self.after_push = "place"
        self._next_placement()

    # placing
    def _next_placement(self) -> None:
        places, flips = self._placement_options()
        if not places and not flips:
            self._next_push()  # every placement made: push (rules note 3), then rituals
            return
        self.phase = "place"
        self.current_player = self.actor

    def _place(self, a: int, forced: bool = False) -> None:
        self.placements_done += 1
        if self.context == "trick":
            self.place_colours.append(a // 4)
        p = self.actor
        if self.supply[p] == 0:
            self.move_target = a  # logged as a move once the moving cultist is chosen
            self.phase = "move"
            return
        self._log("place", p, -1, a, forced)
        self.supply[p] -= 1
        self._put(p, a)

    def _move_from(self, src: int) -> None:
        p = self.actor
        self.board[src] &= ~(1 << p)
        a = self.move_target
        self.move_target = None
        self._put(p, a)

    def _flip_up(self, a: int) -> None:
        self.placements_done += 1
        self.place_colours.append(a // 4)
        self.face_down[a] = 0
        self._next_placement()

    def _put(self, p: int, a: int) -> None:
        """Cultist of cult p onto area a: whoever stood there is lifted off, to be pushed once
        every placement of this trick is made (rules note 3), this card's before the next's."""
        standing = self.board[a]
        self.board[a] = 1 << p
        self.push_queue += [[a, q] for q in range(self.num_players) if standing >> q & 1]
        self._next_placement()

    # pushing
    def _next_push(self) -> None:
        queue = self.push_queue
        while queue:
            a, q = queue[0]
            if self._destinations(a, q):
                self.phase = "push"
                self.current_player = self.pusher
                return
            self.supply[q] += 1  # no adjacent card without its colour: back to its supply
            self._log("return", q, a, -1, True)
            queue.pop(0)
        if self.after_push == "flip":
            self._next_flip()
        else:
            self._end_placement()

    def _push(self, q: int, b: int) -> None:
        self.board[b] |= 1 << q
        self.push_queue.pop(0)
        self._next_push()

    def _end_placement(self) -> None:
        self._rituals()

    # rituals
    def _rituals(self) -> None:
        n = self.num_players
        lines_of = ritual_lines(self.board, self.game.geometry, n)
        start = self.actor if self.actor is not None else self.amulet
        performed = False
        for i in range(n):
            q = (start + i) % n
            lines = lines_of[q]
            if not lines:
                continue
            performed = True
            bit = 1 << q
            for a in range(NUM_AREAS):
                self.board[a] &= ~bit
            self.altar[q] += len(lines)
            self.supply[q] = CULTISTS_PER_PLAYER - self.altar[q]
            if self.game.config.dagon:
                self.flip_queue.extend([q, list(line)] for line in lines)
        if performed and self.game.config.dagon:
            self._next_flip()
        else:
            self._after_rituals()

    def _next_flip(self) -> None:
        if self.flip_queue:
            self.phase = "flip_down"
            self.current_player = self.flip_queue[0][0]
            return
        self._rituals()  # a Dagon push may have formed a new line (rules note 9)

    def _flip_down(self, a: int) -> None:
        performer = self.flip_queue.pop(0)[0]
        self.face_down[a] = 1
        standing = self.board[a]
        self.board[a] = 0
        self.pusher = performer
        self.push_queue = [[a, q] for q in range(self.num_players) if standing >> q & 1]
        self.after_push = "flip"
        self._next_push()

    def _after_rituals(self) -> None:
        self.phase = "play"
        if self.context == "pity":
            self.pity_queue.pop(0)
            self._next_pity()
            return
        if max(self.altar) >= RITUALS_TO_WIN:
            self._end_game()
            return
        self.tricks_played += 1
        winner = self.actor
        if self.tricks_played < TRICKS_PER_ROUND:
            self._start_trick(winner)
            return
        self.trick_seats = []
        self.trick_cards = []
        n = self.num_players
        clockwise = [(self.amulet + i) % n for i in range(n)]
        self.pity_queue = [p for p in clockwise if self.tricks_won[p] == 0]
        self._next_pity()

    # end of round
    def _next_pity(self) -> None:
        self.place_colours = []
        self.placements_done = 0
        self.after_push = "place"
        if self.pity_queue:
            p = self.pity_queue[0]
            self.context = "pity"
            self.actor = p
            self.pusher = p
            self.phase = "place"
            self.current_player = p
            return
        self.context = "trick"
        self.actor = None
        self.pusher = None
        if max(self.altar) >= RITUALS_TO_WIN:
            self._end_game()
            return
        if self.round >= self.game.config.max_rounds:
            # the amulet stays with this round's holder: the round's record reads from it
            self.truncated = True
            self._end_game()
            return
        self.amulet = (self.amulet + 1) % self.num_players
        self.round += 1
        self._start_round()

    def _end_game(self) -> None:
        self.current_player = None
        self.phase = "over"

    # -- results ----------------------------------------------------------------------------------
    def winners(self) -> list[int]:
        if self.truncated or self.current_player is not None:
            return []
        return [p for p in range(self.num_players) if self.altar[p] >= RITUALS_TO_WIN]

    def scores(self) -> list[float]:
        return [float(a) for a in self.altar]

    def final_info(self) -> dict:
        return {
            "winners": self.winners(),
            "scores": self.scores(),
            "rituals": list(self.altar),
            "rounds": self.round,
            "truncated": self.truncated,
        }

    # -- validation (saved states are untrusted input) ---------------------------------------
    def check_fields(self) -> list[str]:
        """Types, ranges and shapes of every field, each problem naming the field; then
        ``invariants`` checks what must hold between fields (conservation, counts)."""
        n = self.num_players
        deck = set(self.game.deck)
        out: list[str] = []
        seats = range(n)

        def is_int(v, lo, hi):
            return type(v) is int and lo <= v <= hi

        def int_in(name, v, lo, hi):
            if not is_int(v, lo, hi):
                out.append(f"{name}: {v!r} must be an integer {lo}..{hi}")
                return False
            return True

        def int_list(name, v, lo, hi, length=None, max_len=None):
            if type(v) is not list:
                out.append(f"{name}: must be a list, got {type(v).__name__}")
                return False
            if length is not None and len(v) != length:
                out.append(f"{name}: {len(v)} entries, a {n}-player game has {length}")
                return False
            if max_len is not None and len(v) > max_len:
                out.append(f"{name}: {len(v)} entries, at most {max_len}")
                return False
            return all(int_in(f"{name}[{i}]", x, lo, hi) for i, x in enumerate(v))

        def per_seat(name, lo, hi, max_len):
            v = getattr(self, name)
            if type(v) is not list or len(v) != n:
                out.append(f"{name}: must be a list of {n} lists (one per player), got {v!r:.60}")
                return False
            return all(int_list(f"{name}[{p}]", v[p], lo, hi, max_len=max_len) for p in seats)

        def cards(name, v):
            bad = [k for k in v if k not in deck]
            if bad:
                out.append(f"{name}: card {bad[0]} is not in the {n}-player deck")

        def seat_or_none(name):
            v = getattr(self, name)
            if v is not None:
                int_in(name, v, 0, n - 1)

        cfg = self.game.config
        int_in("round", self.round, 1, cfg.max_rounds)
        int_in("amulet", self.amulet, 0, n - 1)
        int_list("board", self.board, 0, (1 << n) - 1, length=NUM_AREAS)
        int_list("face_down", self.face_down, 0, 1 if cfg.dagon else 0, length=NUM_AREAS)
        int_list("supply", self.supply, 0, CULTISTS_PER_PLAYER, length=n)
        int_list("altar", self.altar, 0, CULTISTS_PER_PLAYER, length=n)
        for name in ("hands", "faceup", "passing", "passed", "received", "played"):
            if per_seat(name, 0, NUM_CARDS - 1, HAND_SIZE):
                for p in seats:
                    cards(f"{name}[{p}]", getattr(self, name)[p])
        if int_list("undealt", self.undealt, 0, NUM_CARDS - 1):
            cards("undealt", self.undealt)
        if per_seat("forced", 0, 1, TRICKS_PER_ROUND) and type(self.played) is list and len(self.played) == n:
            for p in seats:
                if type(self.played[p]) is list and len(self.forced[p]) != len(self.played[p]):
                    out.append(f"forced[{p}]: {len(self.forced[p])} entries, one per card played "
                               f"({len(self.played[p])})")
        if type(self.revealed) is not list or len(self.revealed) != n:
            out.append(f"revealed: must be a list of {n} lists (one per player)")
        else:
            for p in seats:
                r = self.revealed[p]
                if type(r) is not list or not all(
                    type(e) is list and len(e) == 2 and is_int(e[0], 0, NUM_CARDS - 1)
                    and is_int(e[1], 0, TRICKS_PER_ROUND - 1) for e in r
                ):
                    out.append(f"revealed[{p}]: must be a list of [card, trick] pairs")
        int_list("voids", self.voids, 0, 31, length=n)
        int_list("trick_winners", self.trick_winners, 0, n - 1, max_len=TRICKS_PER_ROUND)
        int_list("trick_seats", self.trick_seats, 0, n - 1, max_len=n)
        if int_list("trick_cards", self.trick_cards, 0, NUM_CARDS - 1, max_len=n):
            cards("trick_cards", self.trick_cards)
            if type(self.trick_seats) is list and len(self.trick_seats) != len(self.trick_cards):
                out.append("trick_cards: one card per seat in trick_seats")
        int_in("tricks_played", self.tricks_played, 0, TRICKS_PER_ROUND)
        int_list("tricks_won", self.tricks_won, 0, TRICKS_PER_ROUND, length=n)
        seat_or_none("actor")
        seat_or_none("pusher")
        if self.context not in ("trick", "pity"):
            out.append(f"context: {self.context!r} must be 'trick' or 'pity'")
        int_list("place_colours", self.place_colours, 0, 3, max_len=MAX_PLACEMENTS)
        int_in("placements_done", self.placements_done, 0, MAX_PLACEMENTS)
        if self.move_target is not None:
            int_in("move_target", self.move_target, 0, NUM_AREAS - 1)
        q = self.push_queue
        if type(q) is not list or not all(
            type(e) is list and len(e) == 2 and is_int(e[0], 0, NUM_AREAS - 1) and is_int(e[1], 0, n - 1) for e in q
        ):
            out.append("push_queue: must be a list of [area, cult] pairs")
        if self.after_push not in ("place", "flip"):
            out.append(f"after_push: {self.after_push!r} must be 'place' or 'flip'")
        fq = self.flip_queue
        if type(fq) is not list or not all(
            type(e) is list and len(e) == 2 and is_int(e[0], 0, n - 1) and type(e[1]) is list
            and 3 <= len(e[1]) and all(is_int(a, 0, NUM_AREAS - 1) for a in e[1]) for e in fq
        ):
            out.append("flip_queue: must be a list of [performer, line of area ids] pairs")
        int_list("pity_queue", self.pity_queue, 0, n - 1, max_len=n)
        self._check_board_log(out, is_int)
        if type(self.last_move) is not list or self.last_move and not (
            len(self.last_move) == 2 and is_int(self.last_move[0], 0, n - 1)
            and is_int(self.last_move[1], 0, self.game.catalog.size - 1)
        ):
            out.append("last_move: must be [] or [seat, action id]")
        rs = self.round_start
        keys = {"history", "board", "face_down", "supply", "altar", "last_move"}
        if type(rs) is not dict or set(rs) != keys:
            out.append(f"round_start: must be a mapping with exactly {', '.join(sorted(keys))}")
        else:
            int_in("round_start.history", rs["history"], 0, len(self.history))
            int_list("round_start.board", rs["board"], 0, (1 << n) - 1, length=NUM_AREAS)
            int_list("round_start.face_down", rs["face_down"], 0, 1, length=NUM_AREAS)
            int_list("round_start.supply", rs["supply"], 0, CULTISTS_PER_PLAYER, length=n)
            int_list("round_start.altar", rs["altar"], 0, CULTISTS_PER_PLAYER, length=n)
            if type(rs["last_move"]) is not list or len(rs["last_move"]) not in (0, 2):
                out.append("round_start.last_move: must be [] or [seat, action id]")
        if self.phase not in PHASES + ("over",):
            out.append(f"phase: {self.phase!r} must be one of {', '.join(PHASES + ('over',))}")
        if out:
            return out
        return self._check_decision()

    def _check_board_log(self, out: list[str], is_int) -> None:
        """``board_log``: at most ``max_board_moves`` entries [who, kind, cult, from, to, forced, part]."""
        n, log, most = self.num_players, self.board_log, self.game.max_board_moves
        if type(log) is not list or len(log) > most:
            out.append(f"board_log: must be a list of at most {most} board moves")
            return
        ranges = ((0, n - 1), (0, len(MOVE_KIND) - 1), (-1, n - 1), (-1, NUM_AREAS - 1), (-1, NUM_AREAS - 1),
                  (0, 1), (0, PITY_PART))
        for i, e in enumerate(log):
            if type(e) is not list or len(e) != len(ranges) or not all(
                is_int(v, lo, hi) for v, (lo, hi) in zip(e, ranges)
            ):
                out.append(f"board_log[{i}]: must be [who, kind, cult, from, to, forced, part] in range")
                return

    def _check_decision(self) -> list[str]:
        """The phase, the seat to move and what the decision reads from agree."""
        n, p, phase = self.num_players, self.current_player, self.phase
        if (p is None) != (phase == "over"):
            return [f"phase: {phase!r} while current_player is {p!r} (the game is over exactly when "
                    f"nobody is to move)"]
        if phase == "pass":
            order = [(self.amulet + i) % n for i in range(n)]
            done = order.index(p)
            for i, q in enumerate(order):
                want = PASS_COUNT if i < done else len(self.passing[q]) if i == done else 0
                if len(self.passing[q]) != want or (i == done and want >= PASS_COUNT):
                    return [f"passing[{q}]: {len(self.passing[q])} cards chosen while player {p} chooses"]
            if any(self.played[q] or self.faceup[q] for q in range(n)):
                return ["phase: 'pass' after cards were played or turned face up"]
        elif phase in ("play", "face_up"):
            seats = self.trick_seats
            if len(seats) >= n + (phase == "face_up") or phase == "face_up" and not seats:
                return [f"trick_seats: {len(seats)} cards in the trick while phase is {phase!r}"]
            if phase == "face_up":
                want = seats[-1] if seats else None
            elif seats:
                want = (seats[-1] + 1) % n
            else:
                want = self.amulet if not self.trick_winners else self.trick_winners[-1]
            if p != want:
                return [f"current_player: {p} but player {want} must {phase.replace('_', ' ')} now"]
        elif phase in ("place", "move") and p != self.actor:
            return [f"current_player: {p} but the placer (actor) is {self.actor}"]
        elif phase == "move" and self.move_target is None:
            return ["move_target: a cultist is being moved but no target card is set"]
        elif phase == "push" and (not self.push_queue or p != self.pusher):
            return [f"push_queue: phase 'push' needs a cultist to push and the pusher ({self.pusher}) to move"]
        elif phase == "flip_down" and (not self.flip_queue or p != self.flip_queue[0][0]):
            return ["flip_queue: phase 'flip_down' needs a pending ritual whose performer moves"]
        # a trick's winner is recorded when it completes; tricks_played counts it once placed
        extra = len(self.trick_winners) - self.tricks_played
        if not (extra == 0 or extra == 1 and len(self.trick_seats) == n):
            return [f"trick_winners: {len(self.trick_winners)} winners after {self.tricks_played} tricks"]
        if sum(self.tricks_won) != len(self.trick_winners):
            return ["tricks_won: does not match trick_winners"]
        return []

    def invariants(self) -> list[str]:
        problems = []
        n = self.num_players
        zones = {"undealt": self.undealt}
        for p in range(n):
            for name in ("hands", "faceup", "passing", "played"):
                zones[f"{name}[{p}]"] = getattr(self, name)[p]
        seen: dict[int, str] = {}
        for zone, cards in zones.items():
            for k in cards:
                if k in seen:
                    problems.append(f"{zone}: card {CARD_NAMES[k]} is also in {seen[k]} (each card lies in one place)")
                seen[k] = zone
        missing = sorted(set(self.game.deck) - set(seen))
        if missing:
            problems.append(f"undealt: card {CARD_NAMES[missing[0]]} is nowhere (each card lies in one place)")
        for p in range(n):
            if len(self.played[p]) != len(self.forced[p]):
                problems.append(f"forced[{p}]: one entry per card played")
            if self.trick_seats and p in self.trick_seats:
                if self.played[p][-1:] != [self.trick_cards[self.trick_seats.index(p)]]:
                    problems.append(f"trick_cards: player {p}'s card is not its last played card")
        for p in range(n):
            on_board = sum(1 for m in self.board if m >> p & 1)
            lifted = sum(1 for a, q in self.push_queue if q == p)
            if self.supply[p] + on_board + self.altar[p] + lifted != CULTISTS_PER_PLAYER:
                problems.append(f"supply[{p}]: cultists of cult {p} not conserved (supply + board + altar "
                                f"+ waiting to be pushed must be {CULTISTS_PER_PLAYER})")
            if self.phase in ("play", "face_up") and self.tricks_played < TRICKS_PER_ROUND:
                expected = HAND_SIZE - len(self.played[p])
                held = len(self.hands[p]) + len(self.faceup[p])
                if held != expected:
                    problems.append(f"hands[{p}]: player {p} holds {held} cards, not {expected}")
                pending = self.phase == "face_up" and p == self.current_player
                if len(self.faceup[p]) != PASS_COUNT - pending:
                    problems.append(f"faceup[{p}]: player {p} has {len(self.faceup[p])} face-up cards")
            if self.phase == "pass" and len(self.hands[p]) + len(self.passing[p]) != HAND_SIZE:
                problems.append(f"hands[{p}]: {len(self.hands[p]) + len(self.passing[p])} cards while passing, not 8")
        for a in range(NUM_AREAS):
            if self.face_down[a] and self.board[a]:
                problems.append(f"board: cultists on face-down card {AREA_CARDS[a]}")
        if self.phase in ("play", "pass") or self.current_player is None:
            lines = ritual_lines(self.board, self.game.geometry, n)
            if any(lines):
                problems.append("board: a line of three was left without a ritual")
        return problems

    # -- information --------------------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return self.game.encoder.encode(self, player)

    def _reset_caches(self) -> None:
        super()._reset_caches()
        self._enc_memo: dict = {}  # encoding._SeatMemo per seat: the observation's slow sections
        self._next_legal: list[int] | None = None  # see legal_actions

    # Resampling (see docs/games/kabaal.md, "How resampling works"). Every round deals the whole
    # deck afresh and nothing hidden outlives a round, so a world differs from the real game only
    # in the current round: its ``start`` is the current round's deal (the real history before it
    # is kept as the start's history), rebuilt from ``round_start`` with the other players' cards
    # re-dealt; the round's actions are then replayed from it (another player's secret pass
    # choices rewritten to the re-dealt cards), which proves the world consistent.
    resample_failures = 0  # replays that failed (a bug if ever > 0; the tests check it)
    resample_tries = 64  # rejection-sampling attempts before the random walk (tests set 0)

    def _hidden_zones(self, player: int) -> dict[str, list]:
        zones = {"undealt": list(self.undealt)}
        for q in range(self.num_players):
            if q != player:
                zones[f"hand of player {q}"] = list(self.hands[q])
                if self.passing[q]:
                    zones[f"pass chosen by player {q}"] = list(self.passing[q])
        return zones

    def _resample_hidden(self, player: int, rng) -> "KabaalState":
        """A world ``player`` cannot tell from this one, consistent with its whole history.

        The hidden cards (other hands, their pending pass choices, the undealt cards) are dealt
        anew, uniformly among the deals that fit everything ``player`` has seen this round: no
        card of a colour a player showed it lacks, and every card a player was asked to choose
        (or was forced to play) still so (``_deal_fits``). Rejection sampling; where that keeps
        failing, a random walk of swaps between hidden zones that keeps every constraint."""
        fresh = np.random.default_rng(rng.integers(0, 2**63))
        others = [q for q in range(self.num_players) if q != player]
        zones = [self.hands[q] for q in others] + [self.passing[q] for q in others] + [self.undealt]
        sizes = [len(z) for z in zones]
        pool = [k for z in zones for k in z]
        checks = self._deal_checks(others)
        # sorted: the same generator deals the same world whatever the truth
        deal = self._sample_deal(sorted(pool), sizes, len(others), checks, fresh, self.resample_tries)
        world = self._world_from(others, deal, sizes, fresh)
        if world is None:  # pragma: no cover - the constraints are exact; kept as a safety net
            KabaalState.resample_failures += 1
            world = self._world_from(others, pool, sizes, fresh)
            world._followed_truth = True  # the real deal: a search must not walk it
        return world

    def _deal_checks(self, others: list[int]) -> list[list[tuple]]:
        """Per other seat, what its hidden hand must satisfy: one entry per trick card it played
        after another's lead, (led colour, card, forced, known class counts then, known total)."""
        checks = []
        for q in others:
            out = []
            played = self.played[q]
            for t, k in enumerate(played):
                leader = self.amulet if t == 0 else self.trick_winners[t - 1]
                if leader == q:
                    continue  # a leader may play anything; forced only with one card (public)
                known = [0] * 5
                for c in self.faceup[q] + played[t:]:
                    known[COLOUR[c]] += 1  # NO_COLOUR = -1 counts in column 4
                led = COLOUR[self.played[leader][t]]
                out.append((led, COLOUR[k], self.forced[q][t], known, len(self.faceup[q]) + len(played) - t))
            if q == self.current_player and self.phase == "play" and self.trick_cards:
                # asked now: it must have a choice in the world too (colour 5: no card to check)
                known = [0] * 5
                for c in self.faceup[q]:
                    known[COLOUR[c]] += 1
                out.append((COLOUR[self.trick_cards[0]], 5, 0, known, len(self.faceup[q])))
            checks.append(out)
        return checks

    @staticmethod
    def _deal_fits(hand: list[int], checks: list[tuple]) -> bool:
        """Whether a hidden hand gives the same legal plays (and forced ones) at every past trick."""
        if not checks:
            return True
        h = [0] * 5
        for k in hand:
            h[COLOUR[k]] += 1
        total = len(hand)
        for led, colour, forced, known, held in checks:
            if led == NO_COLOUR:
                n_led = h[4] + known[4]
                playable = n_led if n_led else total + held
                if n_led and colour != NO_COLOUR and colour != 5:
                    return False
            else:
                n_led = h[led] + known[led]
                playable = n_led + h[4] + known[4] if n_led else total + held
                if n_led and colour != led and colour != NO_COLOUR and colour != 5:
                    return False
            if (playable == 1) != bool(forced):
                return False
        return True

    def _sample_deal(self, pool, sizes, n_hands, checks, rng, tries: int) -> list[int]:
        """The pool dealt into the zones (``sizes``; the first ``n_hands`` are hidden hands)."""
        bounds = np.cumsum([0] + sizes).tolist()

        def fits(deal, i):
            return self._deal_fits(deal[bounds[i]:bounds[i + 1]], checks[i])

        for _ in range(tries):
            deal = [int(k) for k in rng.permutation(pool)] if pool else []
            if all(fits(deal, i) for i in range(n_hands)):
                return deal
        # Random walk from a fitting deal found without the real one (a walk from the real deal
        # would draw worlds near the truth): swap two cards of different zones when both zones
        # still fit. Its stationary distribution is uniform over the fitting deals.
        deal = self._fitting_deal(pool, sizes, n_hands, checks, rng)
        zone_of = [i for i in range(len(sizes)) for _ in range(sizes[i])]
        m = len(deal)
        for _ in range(40 * m if m > 1 else 0):
            a, b = int(rng.integers(m)), int(rng.integers(m))
            za, zb = zone_of[a], zone_of[b]
            if za == zb:
                continue
            deal[a], deal[b] = deal[b], deal[a]
            if (za < n_hands and not fits(deal, za)) or (zb < n_hands and not fits(deal, zb)):
                deal[a], deal[b] = deal[b], deal[a]
        return deal

    @classmethod
    def _fitting_deal(cls, pool, sizes, n_hands, checks, rng) -> list[int]:
        """A deal of ``pool`` into the zones where every hidden hand fits its checks, found from
        the pool and the checks alone (never from the real deal), at random.

        A hand fits or not by its colour counts only (``_deal_fits``), so the search is over one
        count vector per hand: each hand's fitting vectors in a random order, depth first, with
        the dead ends (hand, cards left per colour) remembered. The real deal fits, so there is
        always one. Then each hand takes its counts from the colours' cards in a random order,
        and the rest fill the other zones."""
        by_colour: list[list[int]] = [[] for _ in range(5)]
        for k in pool:
            by_colour[COLOUR[k]].append(k)  # NO_COLOUR (-1) is column 4, as in _deal_fits
        avail = tuple(len(c) for c in by_colour)
        sample = [c[0] if c else -1 for c in by_colour]

        def vectors(size: int, left: tuple, col: int = 0):
            if col == 4:
                if size <= left[4]:
                    yield (size,)
                return
            for n in range(min(size, left[col]) + 1):
                for rest in vectors(size - n, left, col + 1):
                    yield (n,) + rest

        options = []
        for i in range(n_hands):
            fitting = [v for v in vectors(sizes[i], avail)
                       if cls._deal_fits([sample[c] for c in range(5) for _ in range(v[c])], checks[i])]
            options.append([fitting[j] for j in rng.permutation(len(fitting))])
        dead: set = set()
        chosen: list[tuple] = []

        def place(i: int, left: tuple) -> bool:
            if i == n_hands:
                return True
            if (i, left) in dead:
                return False
            for v in options[i]:
                if all(v[c] <= left[c] for c in range(5)):
                    chosen.append(v)
                    if place(i + 1, tuple(left[c] - v[c] for c in range(5))):
                        return True
                    chosen.pop()
            dead.add((i, left))
            return False

        if not place(0, avail):  # pragma: no cover - the real deal fits, so one exists
            raise RuntimeError("Kabaal resampling: no deal fits the seat's history")
        shuffled = [[c[j] for j in rng.permutation(len(c))] for c in by_colour]
        deal: list[int] = []
        for v in chosen:
            for c in range(5):
                deal += shuffled[c][:v[c]]
                shuffled[c] = shuffled[c][v[c]:]
        rest = [k for c in shuffled for k in c]
        return deal + [rest[j] for j in rng.permutation(len(rest))]

    def _world_from(self, others, deal, sizes, rng) -> "KabaalState | None":
        """The world whose round began with the other hands re-dealt as ``deal`` says, replayed
        through this round's actions; None if the replay does not go through."""
        n, m = self.num_players, len(others)
        bounds = np.cumsum([0] + sizes).tolist()
        part = [deal[bounds[i]:bounds[i + 1]] for i in range(len(sizes))]
        new_hands, new_passing, new_undealt = part[:m], part[m:2 * m], part[2 * m]
        # The round's start as it really was: the recorded start where it lies in this round
        # (round 1, or a hand-rigged position), else rebuilt from ``round_start`` with each
        # seat's cards then: what it holds, played, passed or is passing, less what it received.
        rs = self.round_start
        if self.start is not None and len(self.start["state"]["history"]) >= rs["history"]:
            origin = self.replay_start()
        else:
            starts = []
            for q in range(n):
                own = self.hands[q] + self.faceup[q] + self.played[q] + self.passed[q] + self.passing[q]
                received = set(self.received[q])
                starts.append([k for k in own if k not in received])
            origin = self.clone()
            origin.history = self.history[:rs["history"]]
            origin.board, origin.face_down = rs["board"][:], rs["face_down"][:]
            origin.supply, origin.altar = rs["supply"][:], rs["altar"][:]
            origin.last_move = rs["last_move"][:]
            origin.truncated = False
            origin._begin_round(starts, self.undealt)
        # Swap each other seat's hidden cards for the new ones there and in its pending passes.
        renamed: dict[int, int] = {}
        base = self.game.pass_base
        for i, q in enumerate(others):
            swap = dict(zip(self.hands[q], new_hands[i])) | dict(zip(self.passing[q], new_passing[i]))
            origin.hands[q] = sorted(swap.get(k, k) for k in origin.hands[q])
            origin.passing[q] = [swap.get(k, k) for k in origin.passing[q]]
            renamed.update((base + old, base + swap[old]) for old in self.passing[q])
        origin.undealt = sorted(new_undealt)
        origin.rng = rng
        origin._reset_caches()
        origin.mark_start()
        done = len(origin.history)
        world = origin.clone()
        try:
            for a in self.history[done:]:
                world.apply(renamed.get(a, a))
        except IllegalActionError:
            return None
        if world.current_player != self.current_player or world.history[:done] != self.history[:done]:
            return None
        return world

    def action_names(self, action: int) -> list[str]:
        # action_name_for for every seat, without a call per seat: only a pass reads differently
        name = self.game.catalog.name(action)
        if self.game.kind_of[action] != "pass_card":
            return [name] * self.num_players
        return [name if seat == self.current_player else HIDDEN_PASS for seat in range(self.num_players)]

    def action_name_for(self, action: int, seat: int | None) -> str:
        """Another player's pass choice is secret (rules note 1): it names no card to the
        others. Every other move is public (cards are played face up, the board is open)."""
        if seat is not None and seat != self.current_player and self.game.kind_of[action] == "pass_card":
            return HIDDEN_PASS
        return self.game.catalog.name(action)

    def decision(self) -> str:
        p = self.current_player
        if p is None:
            return "game over (truncated by max_rounds)" if self.truncated else "game over"
        phase = self.phase
        if phase == "pass":
            return f"player {p}: choose card {len(self.passing[p]) + 1} of 2 to pass left"
        if phase == "play":
            return f"player {p}: play a card to trick {self.tricks_played + 1}"
        if phase == "face_up":
            return f"player {p}: choose the hand card that replaces the played face-up card"
        if phase == "place":
            what = "a pity cultist (or decline)" if self.context == "pity" else "a cultist"
            return f"player {p}: place {what}"
        if phase == "move":
            target = AREA_CARDS[self.move_target]
            return f"player {p}: supply empty, choose the cultist that moves to {target}"
        if phase == "push":
            a, q = self.push_queue[0]
            return f"player {p}: push the {CULT_COLOURS[q]} cultist from {AREA_CARDS[a]}"
        if phase == "flip_down":
            return f"player {p}: choose the card of the ritual line to turn face down"
        return f"player {p} to move"

    def _render(self, player: int | None) -> str:
        g = self.game
        n = self.num_players
        trick = min(self.tricks_played + 1, TRICKS_PER_ROUND)
        lines = [f"Kabaal, {n} players, round {self.round}, trick {trick} - {self.decision()}"]
        lines.append(render_board(self.board, self.face_down, g.geometry, n))
        for p in range(n):
            if player is None or player == p:
                hand = ", ".join(CARD_NAMES[k] for k in self.hands[p])
                chosen = ", ".join(CARD_NAMES[k] for k in self.passing[p])
                passing = f" | passing: {chosen}" if chosen else ""
            else:
                hidden = len(self.hands[p]) + len(self.passing[p])
                hand = f"{hidden} hidden card{'s' if hidden != 1 else ''}"
                passing = ""
            face = ", ".join(CARD_NAMES[k] for k in self.faceup[p])
            amulet = " (amulet)" if p == self.amulet else ""
            me = " (you)" if player == p else ""
            lines.append(
                f"  player {p}{me}, {CULT_COLOURS[p]} cult{amulet}: supply {self.supply[p]}, "
                f"altar {self.altar[p]}/{RITUALS_TO_WIN}, tricks {self.tricks_won[p]} | "
                f"face up: {face or '-'} | hand: {hand or '-'}{passing}"
            )
        if self.trick_cards:
            plays = zip(self.trick_seats, self.trick_cards)
            lines.append("  trick: " + ", ".join(f"player {seat} {CARD_NAMES[k]}" for seat, k in plays))
        if self.current_player is None:
            lines.append(f"  {winners_line(self)}")
        return "\n".join(lines)

    def clone(self) -> "KabaalState":
        new = KabaalState.__new__(KabaalState)
        d = new.__dict__
        for key, value in self.__dict__.items():
            if key[0] == "_" or key in ("game", "rng"):
                continue
            if type(value) is list:
                if value and type(value[0]) is list:
                    value = [v[:] if type(v) is list else v for v in value]
                    if key == "flip_queue":
                        value = [[v[0], v[1][:]] for v in value]
                else:
                    value = value[:]
            d[key] = value
        new.game = self.game
        new.rng = copy_generator(self.rng)
        new._reset_caches()
        return new


KabaalGame.State = KabaalState


# -- pure helpers (also used by the bot) ----------------------------------------------------------
def trick_winner(cards: list[int], seats: list[int], lowest: bool = False) -> int:
    """Seat that wins the trick: "666" always; else the best card of the led colour or colourless."""
    led = COLOUR[cards[0]]
    best_seat, best_rank = -1, None
    for seat, k in zip(seats, cards):
        if k == CARD_666:
            return seat
        c = COLOUR[k]
        if c != led and c != NO_COLOUR:
            continue
        r = RANK[k]
        if best_rank is None or (r < best_rank if lowest else r > best_rank):
            best_seat, best_rank = seat, r
    return best_seat


def ritual_lines(board: list[int], geometry: BoardGeometry, n: int) -> list[list[tuple[int, ...]]]:
    """Per cult, every maximal run of >= 3 consecutive area cards holding one of its cultists."""
    out: list[list[tuple[int, ...]]] = [[] for _ in range(n)]
    # Fast path: the cults with three in a row somewhere (usually none).
    full = 0
    for a, b, c in geometry.triples:
        full |= board[a] & board[b] & board[c]
    if not full:
        return out
    lines = geometry.lines
    for q in range(n):
        bit = 1 << q
        if not full & bit:
            continue
        for line in lines:
            run: list[int] = []
            for a in line:
                if board[a] & bit:
                    run.append(a)
                    continue
                if len(run) >= 3:
                    out[q].append(tuple(run))
                run = []
            if len(run) >= 3:
                out[q].append(tuple(run))
    return out


def render_board(board: list[int], face_down: list[int], geometry: BoardGeometry, n: int) -> str:
    """The area-card grid as text: each cell shows its card and the cults standing on it. Every
    column is as wide as its widest cell, so a 4-column grid fits an 80-100 column terminal."""
    texts = []
    for row in geometry.grid:
        cells = []
        for a in row:
            if a is None:
                cells.append(None)
            elif face_down[a]:
                cells.append("(face down)")
            else:
                cults = ",".join(CULT_COLOURS[q] for q in range(n) if board[a] >> q & 1)
                cells.append(f"{AREA_CARDS[a]}: {cults}" if cults else AREA_CARDS[a])
        texts.append(cells)
    cols = max(len(r) for r in texts)
    widths = [max([len(r[c]) for r in texts if c < len(r) and r[c] is not None] + [8]) for c in range(cols)]
    rows = []
    for cells in texts:
        out = [" " * (widths[c] + 2) if t is None else f"[{t:<{widths[c]}}]" for c, t in enumerate(cells)]
        rows.append(("  " + " ".join(out)).rstrip())
    return "\n".join(rows)

