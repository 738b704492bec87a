"""Kabaleo: hidden-colour stacking for 2-4 players.

Each player secretly holds one colour and places pieces from a public stock onto a fixed board
of bases, trying to make their colour the majority of visible tops. A piece on a top of its own
colour cancels both pieces out of the game.

Rulebook points this engine had to interpret (each is also in docs/games/kabaleo.md and a test):

1. *Tallest stack* (second tie-break): a stack is a base covered by at least one piece; its
   height is the number of pieces on the base. Among the players still tied, the one whose own
   colour tops the tallest stack wins; equal tallest heights (or no stack at all) -> shared victory.
2. Tie-breaks apply only among the players tied at the previous step.
3. *No legal move*: a player with pieces always has one on the printed boards (at most 4 uncovered
   bases of a colour plus the last-move spot are ever forbidden, and there are 16+ spots), but the
   engine does not rely on it: a player with no legal placement must take the ``pass`` action
   (their turn is skipped, their pieces stay). A player with no pieces left is skipped.
4. The "last move" ban names the spot of the last piece placed, also when that move was a
   cancellation; a pass places nothing and leaves the ban on that spot.
5. The colours nobody holds stay secret: the observation says nothing about them.
6. Rewards: winners +1, others -1; 0 for everyone when all players share the victory.
7. At the end every player reveals their target (render, final_info); until then a seat's view
   (observation, render) shows only its own, and the colours in the box are never shown.
"""

from __future__ import annotations

import numpy as np

from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.game import Game, State, player_name, winners_line, world_start
from kabenvs.core.observation import ObservationLayout

import dataclasses
from typing import ClassVar

COLOURS = ("orange", "green", "blue", "pink", "yellow", "purple")
COLOURS_IN_PLAY = {2: 4, 3: 5, 4: 6}  # 2p: purple and yellow back in the box; 3p: purple
BASES_PER_COLOUR = 4
PIECES_PER_COLOUR = 6
RANDOM_MODE_PIECES = {2: 12, 3: 10, 4: 9}
EQUITABLE_PER_COLOUR = {2: 3, 3: 2}


def _int_value(name: str, v, lo: int, hi: int) -> list[str]:
    """Problems of one saved int in lo..hi (bools are no ints here)."""
    if type(v) is not int:
        return [f"{name}: {v!r} is not an integer"]
    if not lo <= v <= hi:
        return [f"{name}: {v} must be in {lo}..{hi}"]
    return []


def _int_list(name: str, value, length: int, lo: int, hi: int) -> list[str]:
    """Problems of a saved list of ``length`` ints in lo..hi."""
    if not isinstance(value, list) or len(value) != length:
        return [f"{name}: must be a list of {length} integers"]
    for k, v in enumerate(value):
        problem = _int_value(name, v, lo, hi)
        if problem:
            return [f"{problem[0]} (entry {k})"]
    return []


def _int_table(name: str, value, rows: int, cols: int, lo: int, hi: int) -> list[str]:
    """Problems of a saved per-player table: ``rows`` lists of ``cols`` ints in lo..hi."""
    if not isinstance(value, list) or len(value) != rows:
        return [f"{name}: must have {rows} rows (one per player), got "
                f"{len(value) if isinstance(value, list) else type(value).__name__}"]
    return [msg for r, row in enumerate(value) for msg in _int_list(f"{name}[{r}]", row, cols, lo, hi)]


@dataclasses.dataclass(frozen=True)
class KabaleoConfig(GameConfig):
    num_players: int = 2
    mode: str = "random"  # "random" (2-4 players) or "equitable" (2-3 players)
    # "win": winners +1, the others -1; "score": (my spots - the best other player's spots) /
    # spots, a denser signal for training (State.returns, with KabaleoGame.score_scale).
    reward: str = "win"

    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (2, 3, 4)

    def validate(self) -> None:
        super().validate()
        self.check_choice("mode", ("random", "equitable"))
        self.check_choice("reward", ("win", "score"))
        if self.mode == "equitable" and self.num_players not in EQUITABLE_PER_COLOUR:
            self.fail(
                f"mode='equitable' is for 2 or 3 players (num_players={self.num_players}); "
                "use mode='random' with 4 players"
            )


class KabaleoGame(Game):
    name = "kabaleo"
    env_id = "kabaleo_v0"
    Config = KabaleoConfig
    # resample_hidden draws in card order, never in the true cards' order (kit-checked)
    worlds_depend_only_on_information = True
    test_configs = [
        {"num_players": 2, "mode": "random"},
        {"num_players": 2, "mode": "equitable"},
        {"num_players": 3, "mode": "random"},
        {"num_players": 3, "mode": "equitable"},
        {"num_players": 4, "mode": "random"},
        {"num_players": 4, "mode": "random", "reward": "score"},
    ]

    def __init__(self, config=None, **options) -> None:
        super().__init__(config, **options)
        n = self.num_players
        self.num_colours = COLOURS_IN_PLAY[n]
        self.num_spots = BASES_PER_COLOUR * self.num_colours
        self.total_pieces = PIECES_PER_COLOUR * self.num_colours
        # the deal's pools, colour by colour: the bases and the bag of pieces (random mode)
        self.base_pool = [c for c in range(self.num_colours) for _ in range(BASES_PER_COLOUR)]
        self.piece_pool = [c for c in range(self.num_colours) for _ in range(PIECES_PER_COLOUR)]
        self.score_scale = float(self.num_spots)  # reward="score" is a share of the board
        self.max_height = self.total_pieces  # no height limit: a stack can hold every piece
        self.place_ids = np.array(
            [[self.catalog.id("place", c, s) for s in range(self.num_spots)] for c in range(self.num_colours)]
        )
        self.pass_id = self.catalog.id("pass")
        assert self.pass_id == self.num_colours * self.num_spots  # the mask's grid ends where pass is
        lay = self.layout
        self.obs_offsets = {b: lay.offset(b) for b in lay.blocks()}
        self.counts_slice = slice(lay.offset("stock"), lay["cancels"].stop)
        assert self.counts_slice.stop - self.counts_slice.start == n * (3 * 6 + 1)  # one store, see observation
        self.top_mine_slice = lay["top_mine"]
        self.colour_pad = [0] * (6 - self.num_colours)
        # v / 6 as the counts block holds it (float32(v) * (1 / 6) rounded to float32), for the
        # per-move updates of KabaleoState._seat_vectors
        sixths = np.arange(self.total_pieces + 1, dtype=np.float32)
        sixths *= 1.0 / 6.0
        self.sixths = sixths.tolist()
        self.seat_order = [[(me + r) % n for r in range(n)] for me in range(n)]
        self.board_slice = slice(lay.offset("base"), lay["board_count"].stop)
        self.board_offsets = {
            b: lay.offset(b) - lay.offset("base") for b in ("base", "top", "under", "height", "stack", "board_count")
        }
        # For the derived gain blocks: recolour[old, new] is the change in spots per colour when
        # one spot goes from showing `old` to showing `new` (others_gain is its max in closed form).
        eye = np.eye(self.num_colours, dtype=np.int64)
        self.recolour = eye[None, :, :] - eye[:, None, :]
        # mine_gain[me][old, new]: change in spots showing `me` when one spot goes old -> new
        self.mine_gain = np.stack([eye[:, me][None, :] - eye[:, me][:, None] for me in range(self.num_colours)])
        self.mine_gain_flat = [row.ravel().tolist() for row in self.mine_gain]
        assert lay["gain_mine"].stop == lay.offset("gain_lead")  # written together
        self.gain_slice = slice(lay.offset("gain_mine"), lay["gain_lead"].stop)
        # The move_* blocks are cached per seat (KabaleoState._seat_vectors).
        assert lay["move_colour"].stop == lay.offset("move_spot") and lay["move_spot"].stop == lay.offset("move_by")
        self.log_slice = slice(lay.offset("move_colour"), lay["move_by"].stop)
        self.log_spot_offset = lay.offset("move_spot") - lay.offset("move_colour")
        self.log_by_offset = lay.offset("move_by") - lay.offset("move_colour")
        self._gain_tables: dict[tuple, np.ndarray] = {}
        # _apply decodes a placement arithmetically; this keeps the catalog honest about it.
        assert all(self.place_ids[c, s] == c * self.num_spots + s for c in range(self.num_colours) for s in range(self.num_spots))

    def gain_table(self, mine: int, counts: tuple[int, ...]) -> np.ndarray:
        """(2, colours * colours): gain_mine and gain_lead of turning one spot from colour `old`
        to colour `new` (flat index old * colours + new), for colour `mine` and these counts of
        spots per colour. Memoised: a game meets far fewer count vectors than observations."""
        key = (mine, counts)
        table = self._gain_tables.get(key)
        if table is None:
            if len(self._gain_tables) >= 100_000:
                self._gain_tables.clear()  # bounds the memory; the tables are cheap to redo
            mine_gain = self.mine_gain_flat[mine]
            lead = [(m - o) * 0.5 for m, o in zip(mine_gain, self.others_gain(mine, counts))]
            table = np.array([mine_gain, lead], dtype=np.float32)
            self._gain_tables[key] = table
        return table

    def others_gain(self, mine: int, counts: tuple[int, ...]) -> list[int]:
        """Flat (old * colours + new): change in the strongest other colour's spot count when one
        spot goes from colour ``old`` to ``new``. In closed form, with M the largest count among
        the other colours: +1 when ``new`` holds M; else -1 when ``old`` alone holds M and ``new``
        holds less than M - 1; else 0; and 0 when old == new. It was a numpy max over
        ``counts + recolour``, 2-3x slower on a gain_table miss (most observations at 4 players);
        the two agreed on all 712,530 (colour, split) pairs at 4 players, and test_rules keeps
        checking them against each other."""
        nc = len(counts)
        others = list(counts)
        others[mine] = -self.num_spots  # never the maximum
        top = max(others)
        gain = [1 if v == top else 0 for v in others] * nc  # flat: old * colours + new
        if others.count(top) == 1:
            old = others.index(top)
            gain[old * nc:(old + 1) * nc] = [0 if v == top - 1 else -1 for v in others]
        gain[::nc + 1] = [0] * nc
        return gain

    def build_catalog(self) -> ActionCatalog:
        nc = COLOURS_IN_PLAY[self.num_players]
        cat = ActionCatalog()
        cat.add(
            "place",
            [(c, s) for c in range(nc) for s in range(BASES_PER_COLOUR * nc)],
            name=lambda c, s: f"place {COLOURS[c]} on spot {s}",
            describe="place a piece of colour c (from your stock) on spot s; id = c * spots + s",
        )
        cat.add("pass", name="pass", describe="only when no placement is legal (rules note 3)")
        return cat

    def build_layout(self) -> ObservationLayout:
        n = self.num_players
        nc = COLOURS_IN_PLAY[n]
        spots = BASES_PER_COLOUR * nc
        height = PIECES_PER_COLOUR * nc
        lay = ObservationLayout()
        lay.add("my_colour", 6, "one-hot: my secret target colour")
        lay.add("to_move", n, "one-hot, seat-relative (0 = me): who decides now")
        lay.add("stock", (n, 6), "pieces of each colour in each player's stock (seat-relative), / 6")
        lay.add("played", (n, 6), "pieces of each colour each player has placed (seat-relative) / 6")
        lay.add("covered", (n, 6), "times each player placed a piece over a top of each colour / 6")
        lay.add("cancels", n, "cancellations each player made / 6")
        lay.add("last_spot", spots, "one-hot: spot of the last move (forbidden now); all 0 before the first move")
        lay.add("base", (spots, 6), "one-hot colour of each spot's base")
        lay.add("top", (spots, 6), "one-hot colour each spot shows now (its top piece, or the base)")
        lay.add("under", (spots, 6), "one-hot colour a cancellation would uncover (the piece or base below the top); 0 on a bare base")
        lay.add("height", spots, "pieces on each base / total pieces in play")
        lay.add("stack", (spots, height, 6), "the whole stack: one-hot colour of piece k (0 = lowest) on each spot")
        lay.add("board_count", 6, "spots showing each colour / number of spots")
        # Derived from my_colour and top (nothing new): which spots show my colour. It makes "cover
        # another colour with mine, never cover mine" linear in the input, which a small policy
        # net otherwise learns only after ~400k steps of win/loss reward.
        lay.add("top_mine", spots, "derived: 1 where the spot shows my colour now")
        # Derived per placement (nothing new): what each move would do to the count of spots. Rows
        # are colours and columns spots, in the order of the place ids. The heuristic bot's
        # one-ply look-ahead reads exactly this; an MLP over the raw board copies it badly (half
        # the agreement the bot's tie-breaking allows at 4 players, docs/results.md), because a
        # move's effect is a product of its colour, the spot's top and, for a cancellation, the
        # piece under the top.
        lay.add("gain_mine", (nc, spots), "derived: change in spots showing my colour if I place colour c on spot s")
        lay.add("gain_lead", (nc, spots), "derived: change in (my spots - the strongest other colour's spots) for that move, / 2")
        # The whole public move history, in order (perfect recall): the board and the per-player
        # counts above forget who placed which piece, in which order, and every cancelled pair.
        # Every placement uses a piece and every piece in play is dealt, so one row per piece.
        lay.add("move_colour", (height, 6), "one-hot: colour of the k-th placement of the game (k = 0 first); 0 for moves not made yet")
        lay.add("move_spot", (height, spots), "one-hot: spot of the k-th placement")
        lay.add("move_by", (height, n), "one-hot, seat-relative (0 = me): who made the k-th placement")
        return lay

    def max_decisions(self) -> int:
        # Each placement uses a piece; a pass can only happen when none is legal, and the next
        # placement anywhere makes the banned spot free again, so passes are bounded by pieces.
        return 2 * self.total_pieces + self.num_players


class KabaleoState(State):
    game: KabaleoGame

    @classmethod
    def deal(cls, game: KabaleoGame, rng: np.random.Generator) -> "KabaleoState":
        s = cls(game, rng)
        n, nc = game.num_players, game.num_colours
        # Targets: n of the nc target pyramids drawn at random (one colour each, all distinct).
        s.targets = rng.permutation(nc)[:n].tolist()
        # Bases laid out at random, then fixed. (A shuffle makes the same swaps whatever the
        # items, so permuting indices into Python lists gives the deal numpy's shuffle of the
        # arrays gave, from the same draws, without the arrays and their conversions.)
        bases = game.base_pool
        s.spots = [[bases[i]] for i in rng.permutation(len(bases)).tolist()]
        if game.config.mode == "equitable":
            each = EQUITABLE_PER_COLOUR[n]
            s.stock = [[each] * nc for _ in range(n)]
        else:
            pool = game.piece_pool
            bag = [pool[i] for i in rng.permutation(len(pool)).tolist()]
            k = RANDOM_MODE_PIECES[n]
            s.stock = []
            for p in range(n):
                counts = [0] * nc
                for c in bag[p * k:(p + 1) * k]:
                    counts[c] += 1
                s.stock.append(counts)
        s.removed = [0] * nc  # pieces cancelled out of the game, per colour
        s.played = [[0] * nc for _ in range(n)]
        s.covered = [[0] * nc for _ in range(n)]
        s.cancels = [0] * n
        s.last_spot = None
        s.log = []  # every placement in order: [player, colour, spot] (the observation's move_* blocks)
        s.current_player = int(rng.integers(n))
        return s

    # -- legality and moves -------------------------------------------------------------------
    # Legality is built as the mask (numpy, from a colour x spot grid kept up to date by _apply)
    # and the id list read off it: the AEC loop asks only for the mask, and a Python loop over
    # every (colour, spot) cost more than the rest of the rules of a step.
    def _legal_actions(self) -> list[int]:
        return np.flatnonzero(self._legal_mask_array()).tolist()

    def legal_mask(self) -> np.ndarray:
        return self._legal_mask_array().copy()  # a fresh array: the caller may keep or edit it

    def _legal_mask_array(self) -> np.ndarray:
        """The legality mask, kept until the next move (``is_legal`` reads it; never handed out).

        Forbidden: the last-move spot, and an uncovered base for a piece of its own colour; a
        player with no placement passes. Place ids are c * spots + s (asserted in
        KabaleoGame.__init__), so the placements are the grid ``allowed`` (colour x spot) masked
        by the colours in stock and the last spot."""
        mask = self._mask
        if mask is not None:
            return mask
        g = self.game
        if self.current_player is None:
            mask = self._mask = np.zeros(g.catalog.size, dtype=np.int8)
            return mask
        ns = g.num_spots
        allowed = self._allowed
        if allowed is None:
            allowed = self._allowed = np.ones(g.catalog.size, dtype=np.int8)
            allowed[g.pass_id] = 0
            for s, stack in zip(range(ns), self.spots):  # (a rigged test may list more)
                if len(stack) == 1:
                    allowed[stack[0] * ns + s] = 0
        # a copy of the placements allowed on the board, then the colours out of stock and the
        # last spot struck out: one copy and a strided store (the zeros, the grid view and its
        # row copies cost twice as much)
        mask = self._mask = allowed.copy()
        stock = self.stock[self.current_player]
        if not all(stock):
            for c, count in enumerate(stock):
                if not count:
                    mask[c * ns:(c + 1) * ns] = 0
        if self.last_spot is not None:
            mask[self.last_spot:g.pass_id:ns] = 0
        if not np.count_nonzero(mask):  # (count_nonzero: a fifth of any()'s cost at this size)
            mask[g.pass_id] = 1
        return mask

    def _apply(self, action: int) -> None:
        g = self.game
        p = self.current_player
        if action != g.pass_id:
            c, s = divmod(action, g.num_spots)  # place ids are c * spots + s (see build_catalog)
            stack = self.spots[s]
            top = stack[-1]
            self.stock[p][c] -= 1
            self.played[p][c] += 1
            self.covered[p][top] += 1
            cancelled = len(stack) > 1 and top == c
            if cancelled:
                stack.pop()  # the two pieces in contact leave the game
                self.removed[c] += 2
                self.cancels[p] += 1
            else:
                stack.append(c)
            if self._board is not None:
                self._write_move(s, top, cancelled)
            allowed = self._allowed
            if allowed is not None:  # spot s is a bare base of its colour again, or no longer one
                ns = g.num_spots
                allowed[s:g.pass_id:ns] = 1
                if len(stack) == 1:
                    allowed[stack[0] * ns + s] = 0
            self.last_spot = s
            if self._log is not None:
                self._write_log(len(self.log), p, c, s)
            if self._counts_vec is not None:
                self._write_counts(p, c, top, cancelled)
            self.log.append([p, c, s])
        self.current_player = self._next_player(p)

    def _next_player(self, p: int) -> int | None:
        n = self.num_players
        for k in range(1, n + 1):
            q = (p + k) % n
            if any(self.stock[q]):
                return q
        return None

    # -- validation (saves are untrusted: check_fields, then invariants) ---------------------------
    def check_fields(self) -> list[str]:
        """Types, shapes and ranges of every Kabaleo field, each problem naming its field; run
        before ``invariants``, which may then index freely."""
        g = self.game
        n, nc, ns, total = self.num_players, g.num_colours, g.num_spots, g.total_pieces
        problems = []
        if self.truncated:
            problems.append("truncated: Kabaleo has no turn limit of its own, a game is never truncated")
        problems += _int_list("targets", self.targets, n, 0, nc - 1)
        if not problems and len(set(self.targets)) != n:
            problems.append(f"targets: two players hold the same colour ({[COLOURS[c] for c in self.targets]})")
        if not isinstance(self.spots, list) or len(self.spots) != ns:
            problems.append(f"spots: must be a list of {ns} stacks (one per base)")
        else:
            for k, stack in enumerate(self.spots):
                if not isinstance(stack, list) or not 1 <= len(stack) <= total + 1:
                    problems.append(f"spots[{k}]: must be a list [base, pieces...] of 1 to {total + 1} colours")
                else:
                    problems += _int_list(f"spots[{k}]", stack, len(stack), 0, nc - 1)
        problems += _int_table("stock", self.stock, n, nc, 0, PIECES_PER_COLOUR)
        problems += _int_table("played", self.played, n, nc, 0, PIECES_PER_COLOUR)
        problems += _int_table("covered", self.covered, n, nc, 0, total)
        problems += _int_list("cancels", self.cancels, n, 0, total // 2)
        problems += _int_list("removed", self.removed, nc, 0, PIECES_PER_COLOUR)
        if self.last_spot is not None:
            problems += _int_value("last_spot", self.last_spot, 0, ns - 1)
        if not isinstance(self.log, list) or len(self.log) > total:
            problems.append(f"log: must be a list of at most {total} placements")
        else:
            for k, entry in enumerate(self.log):
                if not isinstance(entry, list) or len(entry) != 3:
                    problems.append(f"log[{k}]: must be [player, colour, spot]")
                    break
                problems += _int_value(f"log[{k}] player", entry[0], 0, n - 1)
                problems += _int_value(f"log[{k}] colour", entry[1], 0, nc - 1)
                problems += _int_value(f"log[{k}] spot", entry[2], 0, ns - 1)
        return problems

    def invariants(self) -> list[str]:
        """What must hold between the fields: the stacks obey the placing rules, every piece in
        play is exactly once in a stock, on the board or removed, and the per-player counts, the
        move log and whose turn it is agree with each other."""
        g = self.game
        problems = []
        n, nc = self.num_players, g.num_colours
        on_board = [0] * nc
        for k, stack in enumerate(self.spots):
            for c in stack[1:]:
                on_board[c] += 1
            for a, b in zip(stack[1:], stack[2:]):
                if a == b:
                    problems.append(f"spots[{k}]: two {COLOURS[a]} pieces in contact (they cancel out)")
            if len(stack) > 1 and stack[0] == stack[1]:
                problems.append(f"spots[{k}]: a {COLOURS[stack[0]]} piece on a {COLOURS[stack[0]]} base")
        bases = [sum(1 for st in self.spots if st[0] == c) for c in range(nc)]
        if bases != [BASES_PER_COLOUR] * nc:
            problems.append(f"spots: bases per colour {bases}, not {BASES_PER_COLOUR} of each")
        # Every piece of the colours in play is dealt (12/10/9 each is all of them; equitable too).
        for c in range(nc):
            held = sum(self.stock[p][c] for p in range(n))
            if on_board[c] + self.removed[c] + held != PIECES_PER_COLOUR:
                problems.append(f"stock/spots/removed: {COLOURS[c]} pieces not conserved ({held} in stocks + "
                                f"{on_board[c]} on the board + {self.removed[c]} removed, not {PIECES_PER_COLOUR})")
            placed = sum(self.played[p][c] for p in range(n))
            if placed != on_board[c] + self.removed[c]:
                problems.append(f"played: {placed} {COLOURS[c]} pieces placed, but {on_board[c]} on the board "
                                f"+ {self.removed[c]} removed")
            if self.removed[c] % 2:
                problems.append(f"removed: {self.removed[c]} {COLOURS[c]} pieces (a cancellation removes two)")
        per_player = RANDOM_MODE_PIECES[n] if g.config.mode == "random" else EQUITABLE_PER_COLOUR[n] * nc
        for p in range(n):
            dealt = [self.stock[p][c] + self.played[p][c] for c in range(nc)]
            if sum(dealt) != per_player or (g.config.mode == "equitable" and len(set(dealt)) != 1):
                problems.append(f"stock/played: player {p} was dealt {dealt}, not a {g.config.mode}-mode hand")
            if sum(self.covered[p]) != sum(self.played[p]):
                problems.append(f"covered: player {p} covered {sum(self.covered[p])} tops in {sum(self.played[p])} placements")
        if 2 * sum(self.cancels) != sum(self.removed):
            problems.append(f"cancels: {sum(self.cancels)} cancellations but {sum(self.removed)} pieces removed")
        logged = [[0] * nc for _ in range(n)]
        for p, c, _ in self.log:
            logged[p][c] += 1
        # Also an empty log: with placements (a save whose log was dropped) it would play on with
        # a log that never again matches the counts; every position the rules reach has its log.
        if logged != self.played:
            problems.append(f"log: its placements per player and colour {logged} differ from played {self.played}")
        if self.log and self.last_spot != self.log[-1][2]:
            problems.append(f"last_spot: {self.last_spot}, but the last placement was on spot {self.log[-1][2]}")
        if not self.log and self.last_spot is not None:
            problems.append(f"last_spot: {self.last_spot}, but nothing was placed yet")
        cp = self.current_player
        if cp is None and any(any(row) for row in self.stock):
            problems.append("current_player: null (game over) while pieces remain to be placed")
        if cp is not None and not any(self.stock[cp]):
            problems.append(f"current_player: player {cp} has no piece left and would have been skipped")
        return problems

    # -- results ----------------------------------------------------------------------------------
    def tops(self) -> list[int]:
        return [stack[-1] for stack in self.spots]

    def colour_counts(self) -> dict[str, list[int]]:
        """Per colour: spots shown, covered stacks shown, tallest stack shown (pieces on base)."""
        nc = self.game.num_colours
        spots, stacks, tallest = [0] * nc, [0] * nc, [0] * nc
        for stack in self.spots:
            c = stack[-1]
            spots[c] += 1
            if len(stack) > 1:
                stacks[c] += 1
                tallest[c] = max(tallest[c], len(stack) - 1)
        return {"spots": spots, "stacks": stacks, "tallest": tallest}

    def winners(self) -> list[int]:
        counts = self.colour_counts()
        tied = list(range(self.num_players))
        for key in ("spots", "stacks", "tallest"):
            best = max(counts[key][self.targets[p]] for p in tied)
            tied = [p for p in tied if counts[key][self.targets[p]] == best]
            if len(tied) == 1:
                break
        return tied

    def scores(self) -> list[float]:
        counts = self.colour_counts()
        return [float(counts["spots"][self.targets[p]]) for p in range(self.num_players)]

    def final_info(self) -> dict:
        counts = self.colour_counts()
        return {
            "winners": self.winners(),
            "scores": self.scores(),
            "targets": [COLOURS[c] for c in self.targets],
            "spots_per_colour": {COLOURS[c]: counts["spots"][c] for c in range(self.game.num_colours)},
            "stacks_per_colour": {COLOURS[c]: counts["stacks"][c] for c in range(self.game.num_colours)},
            "tallest_per_colour": {COLOURS[c]: counts["tallest"][c] for c in range(self.game.num_colours)},
        }

    # -- information --------------------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        g = self.game
        o = g.obs_offsets  # the layout's offsets, looked up once per game
        n = self.num_players
        # a copy of this seat's cached vector: its count blocks (stock, played, covered, cancels)
        # and move_* blocks as kept, zeros elsewhere
        buf = self._seat_vectors()[player].copy()
        mine = self.targets[player]
        buf[o["my_colour"] + mine] = 1.0
        if self.current_player is not None:
            buf[o["to_move"] + (self.current_player - player) % n] = 1.0
        if self.last_spot is not None:
            buf[o["last_spot"] + self.last_spot] = 1.0
        buf[g.board_slice] = self._board_vector()
        top = o["top"] + mine
        buf[g.top_mine_slice] = buf[top: top + 6 * g.num_spots: 6]
        self._write_gains(buf, mine)
        return buf

    def _write_gains(self, buf: np.ndarray, mine: int) -> None:
        """Fill gain_mine / gain_lead: every placement's effect on the spot counts, seen by ``mine``."""
        g = self.game  # observation() has built the board cache (counts, move index) already
        # A move only turns one spot from colour `old` to colour `new`, so its effect is a table
        # over (old, new) for the counts now, read per placement through the cached index
        # old * colours + new: far cheaper than evaluating every placement's board.
        table = g.gain_table(mine, tuple(self._counts))
        table.take(self._move_index, axis=1, out=buf[g.gain_slice].reshape(2, -1))

    # The public board part of the observation (base, top, under, height, stack, board_count) is the
    # same for every seat; it is cached and updated per move in _apply, because rebuilding it
    # from all stacks every step cost more than the rest of a step together.
    def _board_vector(self) -> np.ndarray:
        if self._board is None:
            g = self.game
            self._board = np.zeros(g.board_slice.stop - g.board_slice.start, dtype=np.float32)
            nc, ns = g.num_colours, g.num_spots
            o = g.board_offsets
            board = self._board
            # Built once a game (a fresh deal is all bare bases), item by item through a
            # memoryview (numpy's fromiter, fancy stores and bincount cost twice as much on 17
            # spots); then _write_move updates it per move.
            mv = memoryview(board)
            base0, top0 = o["base"], o["top"]
            counts = [0] * nc  # spots showing each colour
            tops = []
            for s, stack in zip(range(ns), self.spots):  # (a rigged test may list more)
                top = stack[-1]
                mv[base0 + 6 * s + stack[0]] = 1.0
                mv[top0 + 6 * s + top] = 1.0
                counts[top] += 1
                tops.append(top)
            count0 = o["board_count"]
            for c in range(nc):
                mv[count0 + c] = counts[c] / ns
            self._counts = counts
            # Per placement (c, s): old * colours + new, where new is c, or the piece under the
            # top for a cancellation; read by _write_gains.
            index = (nc * np.array(tops)[None, :] + np.arange(nc)[:, None]).ravel()
            for s, stack in enumerate(self.spots):
                if len(stack) > 1:
                    self._write_pieces(s, 1.0)
                    index[stack[-1] * ns + s] = nc * stack[-1] + stack[-2]  # a cancellation there
            self._move_index = index
            # _write_move's single-item stores go through these (half the cost of numpy's)
            self._board_mv = memoryview(board)
            self._index_mv = memoryview(index)
        return self._board

    def _write_move(self, s: int, old_top: int, cancelled: bool) -> None:
        """Update the cached board vector for the move just made on spot ``s`` (its stack already
        changed): only the entries that one piece added or cancelled changes (top, under, height,
        the piece in the stack block, two colour counts), not the whole stack twice as before.
        A clone rebuilds the vector from the stacks; scripts/obs_fingerprint.py compares both."""
        g = self.game
        board = self._board_mv
        o = g.board_offsets
        stack = self.spots[s]
        new_top = stack[-1]
        six = 6 * s
        under = o["under"] + six
        first = o["stack"] + s * g.max_height * 6 - 6  # piece k (k >= 1 in the list) at first + 6k
        if cancelled:  # old_top left with the piece under it showing: stack[-1] was under it
            board[under + new_top] = 0.0
            if len(stack) > 1:
                board[under + stack[-2]] = 1.0
            board[first + 6 * len(stack) + old_top] = 0.0
        else:  # a piece on old_top: old_top is now under it
            if len(stack) > 2:
                board[under + stack[-3]] = 0.0
            board[under + old_top] = 1.0
            board[first + 6 * (len(stack) - 1) + new_top] = 1.0
        top = o["top"] + six
        board[top + old_top] = 0.0
        board[top + new_top] = 1.0
        board[o["height"] + s] = (len(stack) - 1) / g.total_pieces
        counts = self._counts
        counts[old_top] -= 1
        counts[new_top] += 1
        count = o["board_count"]
        board[count + old_top] = counts[old_top] / g.num_spots  # exact, no drift from += 1/n
        board[count + new_top] = counts[new_top] / g.num_spots
        # spot s's column of the move index (see _board_vector); scalar writes are cheaper than
        # numpy slicing for 4-6 entries
        index = self._index_mv
        nc, ns = g.num_colours, g.num_spots
        old = nc * new_top
        for c in range(nc):
            index[c * ns + s] = old + c
        if len(stack) > 1:
            index[new_top * ns + s] = old + stack[-2]

    def _write_pieces(self, s: int, value: float) -> None:
        """Set (1) or clear (0) what spot ``s``'s pieces show: under, height and the stack block."""
        g = self.game
        board = self._board
        o = g.board_offsets
        stack = self.spots[s]
        if len(stack) > 1:
            board[o["under"] + 6 * s + stack[-2]] = value
        board[o["height"] + s] = (len(stack) - 1) / g.total_pieces * value
        first = o["stack"] + s * g.max_height * 6 - 6  # piece k (k >= 1 in the list) at first + 6k
        for k in range(1, len(stack)):
            board[first + 6 * k + stack[k]] = value

    def _seat_vectors(self) -> list[np.ndarray]:
        """Per seat, a whole observation vector holding only the blocks kept per seat, updated by
        _apply: the stock, played, covered and cancels blocks (seat-relative rows, / 6; three or
        four entries a move, ``_counts_vec`` views them) and the move_* blocks (``_log``). Each
        observation starts as a copy of it, instead of zeros plus a copy of each block."""
        if self._seat is None:
            g = self.game
            sixths = g.sixths  # v / 6 as the float32 block holds it
            self._seat = [np.zeros(g.observation_size, dtype=np.float32) for _ in range(self.num_players)]
            self._counts_vec = [vec[g.counts_slice] for vec in self._seat]
            for order, counts in zip(g.seat_order, self._counts_vec):  # row 0 is the seat
                # only the non-zero entries, item by item through a memoryview (a fresh deal is
                # mostly zeros: a list of every entry and its conversion cost more per game)
                mv = memoryview(counts)
                row = 0
                for table in (self.stock, self.played, self.covered):
                    for p in order:
                        for c, v in enumerate(table[p]):
                            if v:
                                mv[row + c] = sixths[v]
                        row += 6
                for p in order:
                    if self.cancels[p]:
                        mv[row] = sixths[self.cancels[p]]
                    row += 1
            # the move_* blocks (one seat-relative view per seat): one copy per observation
            # instead of re-encoding up to 36 moves
            self._log = [vec[g.log_slice] for vec in self._seat]
            # _write_counts' and _write_log's single-item stores go through these
            self._counts_mv = [memoryview(v) for v in self._counts_vec]
            self._log_mv = [memoryview(v) for v in self._log]
            for k, (p, c, s) in enumerate(self.log):
                self._write_log(k, p, c, s)
        return self._seat

    def _write_counts(self, p: int, c: int, top: int, cancelled: bool) -> None:
        """Player p placed colour c on a top of colour ``top``: its entries in every seat's counts."""
        n = self.num_players
        sixths = self.game.sixths
        stock, played, covered = sixths[self.stock[p][c]], sixths[self.played[p][c]], sixths[self.covered[p][top]]
        cancels = sixths[self.cancels[p]]
        for q, vec in enumerate(self._counts_mv):
            row = 6 * ((p - q) % n)
            vec[row + c] = stock
            vec[6 * n + row + c] = played
            vec[12 * n + row + top] = covered
            if cancelled:
                vec[18 * n + row // 6] = cancels

    def _write_log(self, k: int, p: int, c: int, s: int) -> None:
        # scalar stores into each seat's vector: cheaper than column stores into a (seats, size)
        # array for 2-4 seats
        g = self.game
        n = self.num_players
        colour = 6 * k + c
        spot = g.log_spot_offset + g.num_spots * k + s
        by = g.log_by_offset + n * k + p
        for q, row in enumerate(self._log_mv):
            row[colour] = 1.0
            row[spot] = 1.0
            row[by - q if q <= p else by - q + n] = 1.0  # seat-relative (p - q) % n: 0 when q made it

    def _reset_caches(self) -> None:
        super()._reset_caches()
        self._board: np.ndarray | None = None
        self._seat: list[np.ndarray] | None = None  # see _seat_vectors
        self._log: list[np.ndarray] | None = None
        self._counts_vec: list[np.ndarray] | None = None
        # memoryviews of the arrays above, for single-item stores (made with them)
        self._board_mv = self._index_mv = None
        self._counts_mv: list[memoryview] | None = None
        self._log_mv: list[memoryview] | None = None
        # int8 by place id (c * spots + s, the pass id 0): 0 where the spot is an uncovered base of
        # colour c (legality)
        self._allowed: np.ndarray | None = None

    def _resample_hidden(self, player: int, rng) -> "KabaleoState":
        """A world ``player`` cannot tell from this one: the other players' targets re-dealt at
        random among the colours ``player`` does not hold (the colours nobody holds included).

        The targets are the only hidden items and are drawn at the deal; nothing in the rules
        ties a player's moves to their colour, so the seat's history implies no constraint on
        them and every re-deal is equally consistent with it. The world's ``start`` is the real
        start with the re-dealt targets and a fresh generator (no chance is drawn after the deal,
        and the real one, stepped back, would give the real deal); the history is unchanged,
        and it replays from that start to exactly the world, as targets never bear on legality
        or on the board. The world's own generator is fresh."""
        new = self.clone()
        new.rng = np.random.default_rng(rng.integers(0, 2**63))
        # Every player reveals their target at the end (rulebook, End of Game): nothing a player
        # held is hidden any more, so a finished game has only this one world (its start gets a
        # fresh generator all the same).
        if self.current_player is not None:
            others = [c for c in range(self.game.num_colours) if c != self.targets[player]]
            picks = iter(rng.permutation(others).tolist())
            new.targets = [c if p == player else next(picks) for p, c in enumerate(self.targets)]
        if self.start is not None:
            start_fields = dict(self.start["state"])  # the shared start is never mutated
            start_fields["targets"] = new.targets[:]
            # a fresh start generator (the real one, stepped back, would give the real deal)
            new.start = world_start(start_fields, rng)
            # the world's own generator is its start's: no chance is drawn after the deal, so a
            # replay from the start ends with it, and the world replays to itself (generator
            # included) also after moves in it
            new.rng.bit_generator.state = new.start["rng"]
        return new

    def _hidden_zones(self, player: int) -> dict[str, list] | None:
        """The colours hidden from ``player``: each other player's target, and the targets nobody
        drew (in the box). After the end every target is revealed, which also tells the ones in
        the box: nothing is hidden then."""
        if self.current_player is None:
            return {}
        zones = {f"player {p}'s target": [COLOURS[c]] for p, c in enumerate(self.targets) if p != player}
        zones["in the box"] = [COLOURS[c] for c in range(self.game.num_colours) if c not in self.targets]
        return zones

    # action_name_for keeps the base's full name for every seat: no Kabaleo move is hidden (the
    # colour comes from a public stock, the spot is on the public board, a pass is forced).

    def decision(self) -> str:
        if self.current_player is None:
            return "game over"
        return f"player {self.current_player}: place a piece (colour, spot)"

    def _render(self, player: int | None) -> str:
        g = self.game
        lines = []
        turn = "game over" if self.current_player is None else f"player {self.current_player} to move"
        lines.append(f"Kabaleo, {self.num_players} players, {g.config.mode} mode - {turn}")
        # A seat sees its own colour; the others' only once revealed at the end. The colours
        # nobody holds are never shown (the all-seeing view shows who holds what, not those).
        if player is not None:
            lines.append(f"you are player {player}; your secret colour: {COLOURS[self.targets[player]]}")
        if player is None or self.current_player is None:
            lines.append("targets: " + ", ".join(f"p{p}={COLOURS[c]}" for p, c in enumerate(self.targets)))
        for s, stack in enumerate(self.spots):
            mark = " <- last move" if s == self.last_spot else ""
            pieces = " ".join(COLOURS[c] for c in stack[1:])
            lines.append(f"  spot {s:2d}: [{COLOURS[stack[0]]} base] {pieces}{mark}")
        for p in range(self.num_players):
            stock = ", ".join(f"{COLOURS[c]} {k}" for c, k in enumerate(self.stock[p]) if k)
            lines.append(f"  player {p} stock: {stock or 'empty'}")
        counts = self.colour_counts()["spots"]
        lines.append("  spots per colour: " + ", ".join(f"{COLOURS[c]} {k}" for c, k in enumerate(counts)))
        if self.current_player is None:
            targets = ", ".join(f"{player_name(p)} {COLOURS[c]}" for p, c in enumerate(self.targets))
            lines.append(f"  {winners_line(self)} (colours: {targets})")
        return "\n".join(lines)

    def clone(self) -> "KabaleoState":
        # Faster than the generic deepcopy: every field is a flat list or a list of flat lists.
        new = self._clone_base()
        new.targets = self.targets[:]
        new.spots = [s[:] for s in self.spots]
        new.stock = [s[:] for s in self.stock]
        new.removed = self.removed[:]
        new.played = [s[:] for s in self.played]
        new.covered = [s[:] for s in self.covered]
        new.cancels = self.cancels[:]
        new.last_spot = self.last_spot
        new.log = self.log[:]  # its [player, colour, spot] entries are never changed once made
        new._reset_caches()
        return new


KabaleoGame.State = KabaleoState
