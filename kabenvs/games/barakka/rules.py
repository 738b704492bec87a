"""Barakka (env id ``barakka_v0``): collect flawless colour sequences 1-5 from a shared deck.

Two players (or one, the solo variant) draw from the deck or the top of a discard pile, then
play the card into their sequence of its colour (five cards at most) or discard it. Sequences
stay covered until the end, so the game is one of memory; they score by the unbroken run 1..k,
jokers fill one gap and earn a bonus, and tiles taken on the fifth card of a colour score n^2 if
the sequence is flawless. Variants (El-Samra, Sadid Al-Aziz, El-Karim and the Desert Rose) and
promos (El-Basr, El Portugues) are config flags, freely combinable, also with the solo variant.

Rulebook points this engine had to interpret (each is in docs/games/barakka.md and a test):

1. End: the game ends at the end of the turn in which the deck became empty, whether a draw or a
   pile refill took its last card; that player still plays or discards the card in hand.
2. A discard pile emptied by a draw is refilled at once from the deck; if the deck is empty the
   pile stays empty (the game ends with that turn anyway). Discarding onto the pile just drawn
   from is allowed (the rulebook forbids nothing).
3. Such pile-to-pile turns never shrink the deck, so the two-player game has a turn cap
   (``max_turns``, default 500): reaching it truncates the game (rewards 0). An opponent who
   draws from the deck every turn ends the game long before, so stalling cannot force it.
4. Joker: at most one per sequence (two jokers = a duplicate: 0 points). It stands for the value
   best for its owner; only a joker inside the unbroken run 1..k is "scored" and earns its bonus
   (the value it stands for). A lone joker stands for the 1: 1 point (the table's row) + 1 bonus.
5. Tiles are taken automatically on the fifth card of a colour (taking one never hurts: a tile
   under a flawed sequence is only discarded). A tile is kept at the end only if its sequence is
   complete and flawless. The El-Basr tile goes to the opponent and counts for them
   unconditionally (it lies under none of their sequences); in the solo game it is discarded.
   The El Portugues token counts as one tile for whoever holds it at the end, unless one player
   holds all five El Portugues cards (then nobody gets it).
6. El Portugues: the token moves to whoever plays an El Portugues card (from the supply or from
   the opponent); its cards have no joker, so El-Samra's "exactly one joker" does not apply to
   them (it would wipe out the promo's table).
7. Sadid Al-Aziz: the five base-colour tiles are stacked in a shuffled visible order; finishing
   colour c takes tile c if it is on top, steals it if the opponent holds it, and otherwise
   loses the right to it for good. Whenever the top tile's colour has been finished by every
   player it is discarded. ``sadid_any_order`` takes tile c from anywhere in the stack. The
   El-Basr tiles keep their own promo rule outside the stack.
8. El-Karim: every sequence starts with a face-down card (shown to the opponent first). A card
   of colour c must go on the sequence showing c face up if there is one; otherwise onto any
   sequence that is still a single face-down card, or start a new one face down. These rules use
   only what lies on the table, so ``memory="table"`` leaks nothing through the action mask. At
   the reveal a sequence is judged as the colour of its top card; one whose face-down card has
   another colour, or whose colour repeats an earlier-started sequence of the same player
   (starting two sequences of one colour breaks "one sequence per colour"), scores 0.
9. Desert Rose (El-Karim, the printed component list's default): taken at once by the first player whose
   face-down cards cover all five base colours; kept as one more tile if all five base sequences
   are complete and flawless, else discarded and its holder scores -10.
10. Solo variant: the decks are split into two equal face-down decks; with an odd number of cards
    (promos) one random card goes back to the box unseen. Each turn draws one card from each deck
    (no decision), then the player discards one of them (out of the game, one pile) and plays or
    discards the other. With one player the El-Basr tile is lost and nobody can steal.
11. The starting player is drawn at random ("whoever saw sunrise most recently").
12. Rewards: winners +1, loser -1, tie 0; ``reward="score"`` gives the score difference / 100.
    The solo game's reward is its final score / 100 under either option.

Information (docs/games/barakka.md, Observation): every move is public and no move's name carries
a card (the card drawn from the deck or placed face down stays hidden in the state), so every
seat reads a move by its full name (``action_name_for`` is the default). The observation is in
``encoding.py`` (perfect recall by default), ``resample_hidden`` in ``resample.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.errors import ConfigError
from kabenvs.core.game import Game, State, player_name, winners_line
from kabenvs.core.observation import ObservationLayout
from kabenvs.games.barakka import encoding
from kabenvs.games.barakka.data import (
    BASE_COLOUR_CARDS,
    BASE_COLOURS,
    BASE_TILES_PER_COLOUR,
    BASR_CARDS,
    BASR_COLOUR,
    BASR_TILES,
    DEFAULT_MAX_TURNS,
    DESERT_ROSE_PENALTY,
    DISCARD_PILES,
    JOKER,
    MAX_SEQUENCE,
    PORTUGUES_CARDS,
    PORTUGUES_COLOUR,
    RANKS,
    SADID_TILES_PER_COLOUR,
    SCORE_SCALE,
    SOLO_DECKS,
)
from kabenvs.games.barakka.scoring import PlayerScore, score_sequence

NB = len(BASE_COLOURS)
PHASES = ("draw", "play", "drop", "solo_play")


@dataclasses.dataclass(frozen=True)
class BarakkaConfig(GameConfig):
    num_players: int = 2
    memory: str = "perfect"  # "perfect": every card ever shown face up; "table": what lies visible now
    reward: str = "win"  # "win": +1/-1/0; "score": score difference / 100 (solo: score / 100)
    el_samra: bool = False  # exactly one joker per sequence
    sadid_al_aziz: bool = False  # 5 tiles in a shuffled visible order, stealing
    sadid_any_order: bool = False  # Sadid's easier option: tiles in any order (needs sadid_al_aziz)
    el_karim: bool = False  # first card of each sequence face down; the Desert Rose
    el_basr: bool = False  # Promo I: 12 cards of a sixth colour
    el_portugues: bool = False  # Promo II: 5 cards and the moving token
    max_turns: int = DEFAULT_MAX_TURNS  # two-player turn cap (rules decision 3)

    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (1, 2)

    def validate(self) -> None:
        super().validate()
        self.check_choice("memory", ("perfect", "table"))
        self.check_choice("reward", ("win", "score"))
        for name in ("el_samra", "sadid_al_aziz", "sadid_any_order", "el_karim", "el_basr", "el_portugues"):
            self.check_bool(name)
        self.check_int("max_turns", 1)
        if self.sadid_any_order and not self.sadid_al_aziz:
            self.fail("sadid_any_order=True is the easier option of Sadid Al-Aziz; set sadid_al_aziz=True too")


class BarakkaGame(Game):
    name = "barakka"
    env_id = "barakka_v0"
    Config = BarakkaConfig
    # Each variant and promo is covered at least once in each memory mode where it matters; random
    # two-player games last ~280 decisions, so the list stays short to keep the kit fast.
    # resample_hidden draws in card order, never in the true cards' order (kit-checked)
    worlds_depend_only_on_information = True
    test_configs = [
        {},
        {"num_players": 1},
        {"memory": "table", "el_samra": True, "el_basr": True, "reward": "score"},
        {"sadid_al_aziz": True, "el_karim": True, "el_portugues": True},
        {"el_karim": True, "memory": "table", "el_portugues": True, "sadid_al_aziz": True, "sadid_any_order": True},
        {"num_players": 1, "el_karim": True, "el_samra": True, "sadid_al_aziz": True, "el_basr": True,
         "el_portugues": True},
        {"num_players": 1, "memory": "table", "el_karim": True, "el_basr": True, "el_portugues": True},
    ]

    # -- what follows from the config -------------------------------------------------------
    def _setup(self) -> None:
        """Colours, deck and sizes; run by the first builder ``Game.__init__`` calls."""
        if getattr(self, "_ready", False):
            return
        cfg = self.config
        colours = list(BASE_COLOURS)
        self.basr = self.port = -1
        if cfg.el_basr:
            self.basr = len(colours)
            colours.append(BASR_COLOUR)
        if cfg.el_portugues:
            self.port = len(colours)
            colours.append(PORTUGUES_COLOUR)
        self.colours = colours
        self.num_colours = len(colours)
        self.num_types = self.num_colours * RANKS
        self.table_of = ["base"] * NB + (["basr"] if cfg.el_basr else []) + (["portugues"] if cfg.el_portugues else [])
        deck: list[int] = []
        for c in range(self.num_colours):
            makeup = BASR_CARDS if c == self.basr else PORTUGUES_CARDS if c == self.port else BASE_COLOUR_CARDS
            for rank, copies in makeup.items():
                deck += [c * RANKS + rank] * copies
        self.full_deck = sorted(deck)
        self.num_cards = len(deck)
        self.total_counts = np.bincount(np.array(deck), minlength=self.num_types).astype(np.float32)
        self.solo = self.num_players == 1
        self.score_scale = SCORE_SCALE  # reward="score" (State.returns)
        self.karim = cfg.el_karim
        self.perfect = cfg.memory == "perfect"
        self.sadid = cfg.sadid_al_aziz
        self.num_piles = 1 if self.solo else DISCARD_PILES
        self.num_decks = SOLO_DECKS if self.solo else 1
        self.num_held = SOLO_DECKS if self.solo else 1
        if self.solo:
            self.solo_deck_size = len(deck) // SOLO_DECKS
            self.solo_turns = self.solo_deck_size
        self.turn_limit = self.solo_turns if self.solo else cfg.max_turns
        self.card_names = [self._card_name(t) for t in range(self.num_types)]
        self._ready = True

    def card(self, colour: str, rank: int | str) -> int:
        """The card type of ``colour`` and ``rank`` (1-5 or "joker"), e.g. ``game.card("red", 3)``."""
        if colour not in self.colours:
            raise ConfigError(f"no colour {colour!r} in this game; colours: {self.colours}")
        r = JOKER if rank == "joker" else rank
        if r not in range(RANKS):
            raise ConfigError(f"rank {rank!r} is not 1-5 or 'joker'")
        return self.colours.index(colour) * RANKS + r

    def _card_name(self, t: int) -> str:
        c, r = divmod(t, RANKS)
        return f"{self.colours[c]} {'joker' if r == JOKER else r}"

    def build_catalog(self) -> ActionCatalog:
        self._setup()
        cat = ActionCatalog()
        S = self.num_colours
        if not self.solo:
            r = cat.add(
                "draw",
                [("deck",)] + [("pile", i + 1) for i in range(self.num_piles)],
                name=lambda *m: "draw from the deck" if m[0] == "deck" else f"draw from discard pile {m[1]}",
                describe="draw the top card of the deck or of discard pile 1/2",
            )
            self.draw_deck_id = r.start
            self.draw_pile_ids = list(r)[1:]
        else:
            r = cat.add(
                "drop",
                [(d + 1,) for d in range(SOLO_DECKS)],
                name="discard the card from deck {0}",
                describe="solo: discard (out of the game) the card drawn from deck 1/2, keep the other",
            )
            self.drop_ids = list(r)
        if self.karim:
            r = cat.add(
                "play",
                [(k + 1,) for k in range(S)],
                name="play onto sequence {0}",
                describe="play the card onto your k-th sequence (by start order); the next free one starts a "
                "new sequence face down (El-Karim)",
            )
        else:
            r = cat.add(
                "play",
                [(c,) for c in self.colours],
                name="play into the {0} sequence",
                describe="play the card into your sequence of its colour (only that colour's id is ever legal)",
            )
        self.play_ids = list(r)
        r = cat.add(
            "discard",
            [(i + 1,) for i in range(self.num_piles)],
            name="discard onto pile {0}" if not self.solo else "discard",
            describe="discard the card onto discard pile 1/2" if not self.solo
            else "solo: discard the kept card too (out of the game)",
        )
        self.discard_ids = list(r)
        self.kind_of_id = [cat.kind(a) for a in range(cat.size)]
        self.index_of_id = [cat.move(a)[-1] - 1 if isinstance(cat.move(a)[-1], int) else -1 for a in range(cat.size)]
        # play ids carry the position: colour index (base) or sequence index (El-Karim)
        for k, a in enumerate(self.play_ids):
            self.index_of_id[a] = k
        return cat

    def build_layout(self) -> ObservationLayout:
        self._setup()
        return encoding.build_layout(self)

    def max_decisions(self) -> int:
        if self.solo:
            return 2 * self.solo_turns
        return 2 * self.config.max_turns


class BarakkaState(State):
    game: BarakkaGame

    @classmethod
    def deal(cls, game: BarakkaGame, rng: np.random.Generator) -> "BarakkaState":
        s = cls(game, rng)
        n, S = game.num_players, game.num_colours
        deck = [game.full_deck[i] for i in rng.permutation(len(game.full_deck))]
        s.removed = []  # solo with an odd card count: one card back in the box, unseen
        if game.solo:
            size = game.solo_deck_size
            s.decks = [deck[:size], deck[size:2 * size]]
            s.removed = deck[2 * size:]
            s.piles = [[]]
        else:
            s.piles = [[deck.pop()] for _ in range(game.num_piles)]
            s.decks = [deck]
        s.seqs = [[[] for _ in range(S)] for _ in range(n)]
        s.held = [[] for _ in range(n)]
        # where the current player's card came from: -1 deck, i = discard pile i; solo play/discard:
        # the deck (0/1) the kept card came from (the player remembers which one it dropped)
        s.held_src = -1
        s.finished = [[0] * S for _ in range(n)]  # 5 cards showing that colour
        s.tiles = [[0] * S for _ in range(n)]  # tiles held per colour (El-Basr: received)
        s.tile_supply = s._initial_supply()
        s.sadid_stack = [int(c) for c in rng.permutation(NB)] if game.sadid else []  # index 0 = top
        s.sadid_missed = [[0] * NB for _ in range(n)]
        s.token = -1  # El Portugues token holder (-1: supply)
        s.rose = -1  # Desert Rose holder (-1: supply)
        s.turn = 0
        if game.solo:
            s.current_player = 0
            s._solo_draw()
        else:
            s.phase = "draw"
            s.current_player = int(rng.integers(n))
        return s

    # -- legality ------------------------------------------------------------------------------
    def play_positions(self, player: int, card: int) -> list[int]:
        """Sequence positions the card may go to, from what lies on the table only (decision 8)."""
        seqs = self.seqs[player]
        c = card // RANKS
        if not self.game.karim:
            return [c] if len(seqs[c]) < MAX_SEQUENCE else []
        started = 0
        singles = []
        for k, st in enumerate(seqs):
            size = len(st)
            if not size:
                break
            started += 1
            if size == 1:
                singles.append(k)
            elif st[-1] // RANKS == c:  # the sequence showing this colour face up: the only place
                return [k] if size < MAX_SEQUENCE else []
        if started < len(seqs):
            singles.append(started)
        return singles

    def _reset_caches(self) -> None:
        super()._reset_caches()
        self._board: encoding.BoardCache | None = None  # observation board, kept up to date by _apply

    def _legal_actions(self) -> list[int]:
        g = self.game
        phase = self.phase
        p = self.current_player
        if phase == "draw":
            legal = [g.draw_deck_id]
            for i, pile in enumerate(self.piles):  # (a loop: a comprehension's set-up costs more here)
                if pile:
                    legal.append(g.draw_pile_ids[i])
            return legal
        if phase == "drop":
            return list(g.drop_ids)
        ids = g.play_ids
        return [ids[k] for k in self.play_positions(p, self.held[p][0])] + g.discard_ids

    # -- moves ---------------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        g = self.game
        kind = g.kind_of_id[action]
        i = g.index_of_id[action]
        p = self.current_player
        if kind == "draw":
            if i < 0:
                self.held[p] = [self.decks[0].pop()]
                self.held_src = -1
            else:
                board = self._board
                pile = self.piles[i]
                card = pile.pop()
                self.held[p] = [card]
                self.held_src = i
                if board is not None:
                    board.pile_pop(i, card)
                if not pile and self.decks[0]:
                    pile.append(self.decks[0].pop())  # decision 2: refilled at once
                    if board is not None:
                        board.pile_push(i, pile[-1])
            self.phase = "play"
            return
        if kind == "drop":
            held = self.held[p]
            self.piles[0].append(held[i])
            if self._board is not None:
                self._board.pile_push(0, held[i])
            self.held[p] = [held[1 - i]]
            self.held_src = 1 - i
            self.phase = "solo_play"
            return
        card = self.held[p][0]
        self.held[p] = []
        if kind == "play":
            self._play(p, i, card)
        else:
            self.piles[i].append(card)
            if self._board is not None:
                self._board.pile_push(i, card)
        self._end_turn(p)

    def _play(self, p: int, k: int, card: int) -> None:
        g = self.game
        stack = self.seqs[p][k]
        stack.append(card)
        board = self._board
        if board is not None:
            board.play(p, k, card)
        c = card // RANKS
        misc = False  # tiles, token or Rose changed
        if c == g.port:
            misc = self.token != p
            self.token = p
        if g.karim and len(stack) == 1 and self.rose < 0:
            bottoms = {st[0] // RANKS for st in self.seqs[p] if st}
            if all(b in bottoms for b in range(NB)):
                self.rose = p
                misc = True
        if len(stack) == MAX_SEQUENCE:
            self._finish_colour(p, stack[-1] // RANKS)
            misc = True
        if misc and board is not None:
            board.misc()

    def _finish_colour(self, p: int, c: int) -> None:
        """Fifth card of colour c: Barakka tiles (decisions 5 and 7)."""
        g = self.game
        self.finished[p][c] = 1
        n = self.num_players
        if c == g.port:
            return
        if c == g.basr:
            if self.tile_supply[c]:
                self.tile_supply[c] -= 1
                if n == 2:
                    self.tiles[1 - p][c] += 1
            return
        if not g.sadid:
            if self.tile_supply[c]:
                self.tile_supply[c] -= 1
                self.tiles[p][c] += 1
            return
        stack = self.sadid_stack
        if c in stack and (stack[0] == c or g.config.sadid_any_order):
            stack.remove(c)
            self.tile_supply[c] = 0
            self.tiles[p][c] = 1
        elif n == 2 and self.tiles[1 - p][c]:
            self.tiles[1 - p][c] = 0  # stolen
            self.tiles[p][c] = 1
        elif c in stack:
            self.sadid_missed[p][c] = 1  # finished out of order: never this tile
        self._sadid_discard_dead_tiles()

    def _sadid_discard_dead_tiles(self) -> None:
        stack = self.sadid_stack
        while stack and all(self.finished[q][stack[0]] for q in range(self.num_players)):
            self.tile_supply[stack.pop(0)] = 0

    def _end_turn(self, p: int) -> None:
        self.turn += 1
        g = self.game
        if g.solo:
            if self.decks[0] and self.decks[1]:
                self._solo_draw()
            else:
                self.current_player = None
            return
        if not self.decks[0]:
            self.current_player = None  # decision 1
        elif self.turn >= g.config.max_turns:
            self.truncated = True
            self.current_player = None
        else:
            self.phase = "draw"
            self.current_player = 1 - p

    def _solo_draw(self) -> None:
        self.held[0] = [self.decks[0].pop(), self.decks[1].pop()]
        self.held_src = -1
        self.phase = "drop"

    # -- results ---------------------------------------------------------------------------------
    def player_score(self, p: int) -> PlayerScore:
        g = self.game
        samra = g.config.el_samra
        res = PlayerScore()
        seen_colours: set[int] = set()
        by_colour = {}
        for st in self.seqs[p]:
            if not st:
                continue
            colour = st[-1] // RANKS
            sc = score_sequence(st, g.table_of[colour], samra=samra, needs_joker=colour != g.port, colour=colour)
            if colour in seen_colours and sc.flaw is None:
                sc.flaw = "a second sequence of this colour"
                sc.points = sc.joker_bonus = sc.run = 0
            if colour not in seen_colours:
                by_colour[colour] = sc
            seen_colours.add(colour)
            res.sequences.append(sc)
        tiles = 0
        for c in range(NB):
            if self.tiles[p][c]:
                sc = by_colour.get(c)
                # the tile lies under the sequence that showed c with five cards
                if sc is not None and sc.flawless_complete:
                    tiles += self.tiles[p][c]
        if g.basr >= 0:
            tiles += self.tiles[p][g.basr]
        if g.port >= 0 and self.token == p:
            all_five = any(sum(1 for st in self.seqs[q] for x in st if x // RANKS == g.port) == 5
                           for q in range(self.num_players))
            if not all_five:
                tiles += 1
        if self.rose == p:
            if all(c in by_colour and by_colour[c].flawless_complete for c in range(NB)):
                tiles += 1
                res.rose = "kept"
            else:
                res.rose = "lost"
                res.rose_penalty = DESERT_ROSE_PENALTY
        res.tiles = tiles
        return res

    def scores(self) -> list[float]:
        return [float(self.player_score(p).total) for p in range(self.num_players)]

    def winners(self) -> list[int]:
        sc = self.scores()
        best = max(sc)
        return [p for p, v in enumerate(sc) if v == best]

    def returns(self) -> list[float]:
        if self.current_player is not None or self.truncated:
            return [0.0] * self.num_players
        if self.game.solo:
            return [self.scores()[0] / SCORE_SCALE]
        return super().returns()  # reward="score": the score difference / score_scale

    def final_info(self) -> dict[str, Any]:
        g = self.game
        names = g.card_names
        players = []
        for p in range(self.num_players):
            ps = self.player_score(p)
            players.append({
                "score": ps.total,
                "sequence_points": ps.sequence_points,
                "tiles": ps.tiles,
                "tile_bonus": ps.tile_bonus,
                "desert_rose": ps.rose,
                "desert_rose_penalty": ps.rose_penalty,
                "sequences": [
                    {"colour": g.colours[s.colour], "cards": [names[x] for x in s.cards], "points": s.points,
                     "joker_bonus": s.joker_bonus, "run": s.run, "flaw": s.flaw}
                    for s in ps.sequences
                ],
            })
        return {"winners": self.winners(), "scores": self.scores(), "players": players,
                "truncated": self.truncated}

    # -- information -------------------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return encoding.encode(self, player)

    def _resample_hidden(self, player: int, rng) -> "BarakkaState":
        from kabenvs.games.barakka.resample import resample

        return resample(self, player, rng)

    def _hidden_zones(self, player: int) -> dict[str, list]:
        from kabenvs.games.barakka.resample import hidden_zones

        return hidden_zones(self, player)

    def decision(self) -> str:
        p = self.current_player
        if p is None:
            return "game over"
        g = self.game
        if self.phase == "draw":
            return f"player {p}: draw from the deck or a discard pile"
        if self.phase == "drop":
            a, b = (g.card_names[x] for x in self.held[p])
            return f"player {p}: discard one of deck 1's {a} and deck 2's {b}"
        return f"player {p}: play or discard {g.card_names[self.held[p][0]]}"

    def recall_gap(self, other: "BarakkaState", seat: int) -> str | None:
        """``memory="table"`` forgets covered cards and deeper pile cards by design (docs,
        Observation); the default perfect memory names no summary."""
        return "memory='table' shows only the table" if self.game.config.memory == "table" else None

    def position_key(self) -> str:
        """The all-seeing render less what no rule reads later (docs, Observation): the order of
        the cards inside a sequence (El-Karim's face-down first card keeps its place) and, solo,
        the order of the discard pile, which is out of the game."""
        g = self.game
        rest = [line for line in self.render(None).split("\n")
                if not line.startswith(("  sequence ", "discard pile "))]
        piles = [sorted(pile) if g.solo else list(pile) for pile in self.piles]
        seqs = [[(st[:1], sorted(st[1:])) if g.karim else ([], sorted(st)) for st in mine] for mine in self.seqs]
        return repr((rest, piles, seqs))

    def _render(self, player: int | None) -> str:
        g = self.game
        names = g.card_names
        perfect = g.config.memory == "perfect"
        cp = self.current_player
        if cp is None:
            asked = "game over"
        elif player is None or player == cp or self.phase == "draw" or (perfect and self.held_src >= 0):
            asked = self.decision()
        else:  # the card just drawn from the deck (table memory: any card in hand) stays hidden
            asked = f"player {cp}: play or discard the card in hand"
        out = [f"Barakka, {self.num_players} player(s), turn {self.turn} - {asked}"]
        out.append("decks: " + ", ".join(f"{len(d)} cards" for d in self.decks))
        for i, pile in enumerate(self.piles):
            if player is None or perfect:
                shown = " ".join(names[x] for x in pile)
            else:
                shown = (f"({len(pile) - 1} covered) " if len(pile) > 1 else "") + (names[pile[-1]] if pile else "")
            out.append(f"discard pile {i + 1}: {shown or 'empty'}")
        for p in range(self.num_players):
            out.append(f"player {p}:" + (" (you)" if p == player else ""))
            for k, st in enumerate(self.seqs[p]):
                if not st:
                    continue
                cards = []
                for j, x in enumerate(st):
                    down = g.karim and j == 0  # face down, shown to the opponent when placed
                    # perfect memory remembers every card of every sequence; the table shows tops
                    visible = player is None or perfect or (j == len(st) - 1 and not down)
                    label = names[x] if visible else "?"
                    cards.append(f"[{label}]" if down else label)
                out.append(f"  sequence {k + 1}: " + " ".join(cards))
            tiles = [f"{g.colours[c]} x{t}" for c, t in enumerate(self.tiles[p]) if t]
            if tiles:
                out.append("  tiles: " + ", ".join(tiles))
            if self.held[p] and (player is None or player == p or (perfect and self.held_src >= 0)):
                out.append("  holds: " + ", ".join(names[x] for x in self.held[p]))
        if g.sadid:
            out.append("Sadid tiles (top first): " + " ".join(g.colours[c] for c in self.sadid_stack))
        if g.port >= 0:
            out.append(f"El Portugues token: {'supply' if self.token < 0 else f'player {self.token}'}")
        if g.karim:
            out.append(f"Desert Rose: {'supply' if self.rose < 0 else f'player {self.rose}'}")
        if self.current_player is None:
            scores = ", ".join(f"{player_name(p)} {sc:g}" for p, sc in enumerate(self.scores()))
            out.append(f"scores: {scores}; {winners_line(self)}")
        return "\n".join(out)

    # -- bookkeeping ------------------------------------------------------------------------------
    def all_cards(self) -> list[int]:
        cards = list(self.removed)
        for d in self.decks:
            cards += d
        for pile in self.piles:
            cards += pile
        for seqs in self.seqs:
            for st in seqs:
                cards += st
        for h in self.held:
            cards += h
        return cards

    def check_fields(self) -> list[str]:
        """Types, shapes and ranges of every field (a save is untrusted input): run before
        ``invariants``, which may then index freely. Each problem names its field."""
        g = self.game
        n, S = g.num_players, g.num_colours
        problems: list[str] = []
        out = problems.append

        def cards(name: str, value, max_len: int | None = None, exact: int | None = None) -> bool:
            if not isinstance(value, list) or not all(type(x) is int and 0 <= x < g.num_types for x in value):
                out(f"{name}: must be a list of card types 0..{g.num_types - 1}, got {value!r:.80}")
                return False
            if exact is not None and len(value) != exact:
                out(f"{name}: must hold {exact} card(s), got {len(value)}")
            elif max_len is not None and len(value) > max_len:
                out(f"{name}: holds {len(value)} cards, at most {max_len}")
            return True

        def rows(name: str, value, length: int, what: str) -> bool:
            if not isinstance(value, list) or len(value) != length:
                got = f"{len(value)}" if isinstance(value, list) else type(value).__name__
                out(f"{name}: must be a list of {length} {what} (got {got})")
                return False
            return True

        def ints(name: str, value, length: int, lo: int, hi) -> None:
            if rows(name, value, length, "ints"):
                for j, x in enumerate(value):
                    top = hi[j] if isinstance(hi, list) else hi
                    if type(x) is not int or not lo <= x <= top:
                        out(f"{name}[{j}]: {x!r} must be an int {lo}..{top}")
                        return

        def seat(name: str, value, allowed: bool) -> None:
            if type(value) is not int or not -1 <= value < n:
                out(f"{name}: {value!r} must be -1 (supply) or a seat 0..{n - 1}")
            elif value >= 0 and not allowed:
                out(f"{name}: {value} but this game has no {name} (-1 only)")

        solo = g.solo
        phases = ("drop", "solo_play") if solo else ("draw", "play")
        if self.phase not in phases:
            out(f"phase: {self.phase!r} must be one of {', '.join(phases)}")
        if type(self.turn) is not int or not 0 <= self.turn <= g.turn_limit:
            out(f"turn: {self.turn!r} must be an int 0..{g.turn_limit}")
        spare = g.num_cards - SOLO_DECKS * g.solo_deck_size if solo else 0
        cards("removed", self.removed, exact=spare)
        if rows("decks", self.decks, g.num_decks, "decks"):
            ok = all([cards(f"decks[{i}]", d) for i, d in enumerate(self.decks)])
            if ok and solo and len(self.decks[0]) != len(self.decks[1]):
                out(f"decks: the solo decks must be equally long, got {len(self.decks[0])} and {len(self.decks[1])}")
        if rows("piles", self.piles, g.num_piles, "discard piles"):
            for i, pile in enumerate(self.piles):
                cards(f"piles[{i}]", pile)
        if rows("seqs", self.seqs, n, "players' sequence lists"):
            for q, seqs in enumerate(self.seqs):
                if rows(f"seqs[{q}]", seqs, S, "sequences (one per colour position)"):
                    for k, st in enumerate(seqs):
                        cards(f"seqs[{q}][{k}]", st, max_len=MAX_SEQUENCE)
        if rows("held", self.held, n, "hands"):
            for q, h in enumerate(self.held):
                cards(f"held[{q}]", h, max_len=g.num_held)
        src_max = SOLO_DECKS - 1 if solo else g.num_piles - 1
        if type(self.held_src) is not int or not -1 <= self.held_src <= src_max:
            out(f"held_src: {self.held_src!r} must be an int -1..{src_max}")
        if rows("finished", self.finished, n, "rows"):
            for q, row in enumerate(self.finished):
                ints(f"finished[{q}]", row, S, 0, 1)
        supply = self._initial_supply()
        if rows("tiles", self.tiles, n, "rows"):
            for q, row in enumerate(self.tiles):
                ints(f"tiles[{q}]", row, S, 0, supply)
        ints("tile_supply", self.tile_supply, S, 0, supply)
        stack = self.sadid_stack
        if not isinstance(stack, list) or not all(type(c) is int and 0 <= c < NB for c in stack) \
                or len(set(stack)) != len(stack) or (stack and not g.sadid):
            out(f"sadid_stack: {stack!r:.80} must be distinct base colours 0..{NB - 1}"
                + ("" if g.sadid else " (empty without Sadid Al-Aziz)"))
        if rows("sadid_missed", self.sadid_missed, n, "rows"):
            for q, row in enumerate(self.sadid_missed):
                ints(f"sadid_missed[{q}]", row, NB, 0, 1 if g.sadid else 0)
        seat("token", self.token, g.port >= 0)
        seat("rose", self.rose, g.karim)
        return problems

    def _initial_supply(self) -> list[int]:
        g = self.game
        supply = [0] * g.num_colours
        for c in range(NB):
            supply[c] = SADID_TILES_PER_COLOUR if g.sadid else BASE_TILES_PER_COLOUR
        if g.basr >= 0:
            supply[g.basr] = BASR_TILES
        return supply

    def invariants(self) -> list[str]:
        # Run after every step of thousands of kit games: min/max tests instead of per-card loops.
        g = self.game
        problems = []
        cards = self.all_cards()
        if len(cards) != g.num_cards or sorted(cards) != g.full_deck:
            problems.append(self._conservation_problem())
        karim = g.karim
        for p, seqs in enumerate(self.seqs):
            gap = False
            for k, st in enumerate(seqs):
                if not st:
                    gap = True
                    continue
                if len(st) > MAX_SEQUENCE:
                    problems.append(f"player {p} sequence {k} has {len(st)} cards")
                if not karim:
                    if min(st) // RANKS != k or max(st) // RANKS != k:
                        problems.append(f"player {p} sequence {k} holds another colour")
                else:
                    if gap:
                        problems.append(f"player {p} sequence {k} started after an empty position")
                    if len(st) > 2 and min(st[1:]) // RANKS != max(st[1:]) // RANKS:
                        problems.append(f"player {p} sequence {k} shows two colours face up")
        for q, h in enumerate(self.held):
            if h and q != self.current_player:
                problems.append(f"held[{q}]: player {q} holds cards but is not the player to move")
        if self.current_player is not None:
            phase = self.phase
            if phase == "draw" and (not self.decks[0] or not all(self.piles)):
                problems.append("a draw decision with an empty deck or discard pile")
            want = 2 if phase == "drop" else 0 if phase == "draw" else 1
            if len(self.held[self.current_player]) != want:
                problems.append(f"holding {len(self.held[self.current_player])} cards in phase {phase}")
        tiles = self.tiles
        for c in range(NB):
            held = tiles[0][c] + (tiles[1][c] if self.num_players == 2 else 0)
            if g.sadid:
                if held + (c in self.sadid_stack) > 1:
                    problems.append(f"Sadid tile {g.colours[c]} in two places")
            elif held + self.tile_supply[c] != BASE_TILES_PER_COLOUR:
                problems.append(f"{g.colours[c]} tiles not conserved")
        return problems

    def _conservation_problem(self) -> str:
        """Which card is there too often or too rarely, and in which fields (a duplicated card)."""
        g = self.game
        zones = {"removed": [self.removed], "decks": self.decks, "piles": self.piles,
                 "seqs": [st for seqs in self.seqs for st in seqs], "held": self.held}
        have = np.bincount(np.array(self.all_cards(), dtype=np.intp), minlength=g.num_types)[: g.num_types]
        want = g.total_counts.astype(int)
        bad = np.flatnonzero(have != want)
        if not len(bad):
            return f"cards: {len(self.all_cards())} cards, the game has {g.num_cards}"
        t = int(bad[0])
        where = [name for name, lists in zones.items() if any(t in lst for lst in lists)]
        return (f"{', '.join(where) or 'cards'}: {g.card_names[t]} is there {int(have[t])} time(s), the game has "
                f"{int(want[t])} (each card exactly once across removed, decks, piles, seqs and held)")

    def clone(self) -> "BarakkaState":
        # Barakka draws no chance after the deal, so the clone may share the (never again used)
        # generator: copying one costs more than the rest of the state.
        new = self._clone_base(share_rng=True)
        new.removed = self.removed[:]
        new.decks = [d[:] for d in self.decks]
        new.piles = [p[:] for p in self.piles]
        new.seqs = [[st[:] for st in seqs] for seqs in self.seqs]
        new.held = [h[:] for h in self.held]
        new.held_src = self.held_src
        new.finished = [f[:] for f in self.finished]
        new.tiles = [t[:] for t in self.tiles]
        new.tile_supply = self.tile_supply[:]
        new.sadid_stack = self.sadid_stack[:]
        new.sadid_missed = [m[:] for m in self.sadid_missed]
        new.token = self.token
        new.rose = self.rose
        new.turn = self.turn
        new.phase = self.phase
        new._reset_caches()
        return new


BarakkaGame.State = BarakkaState
