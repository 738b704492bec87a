"""The search trees: single-observer information-set MCTS and determinized (PIMC) UCT.

Both are written against the game contract only (``clone``, ``resample_hidden``,
``legal_actions``, ``apply``, ``returns``, ``current_player``), so one implementation serves
every game, every player count and every kind of decision, out-of-turn ones included: a node's
mover is simply whoever ``current_player`` names in the world being searched.

**Single-observer ISMCTS** (Cowling, Powley and Whitehouse 2012, "SO-ISMCTS"). Every iteration
draws a fresh world the searching seat cannot tell from the real one
(``state.resample_hidden(me, rng)``) and walks ONE tree with it. A node stands for the sequence
of (mover, action) pairs from the root (forced moves, a single legal action, are walked through
without a node), i.e. for the searching seat's information set when it is
the mover. Because different worlds allow different moves (another seat's hand decides what it
may play), a child is scored with its *availability* count (how often it was legal when its
parent was visited) in place of the parent's visit count, and only the children legal in the
current world compete.

Known weaknesses, inherited from the method and accepted for a baseline:

* The other seats' nodes are keyed by the *searching seat's* view of the history, not by theirs:
  in the tree an opponent "knows" everything the searcher does not see of the history only
  through the averaging over worlds, and the searcher "sees" the opponents' hidden moves as
  separate branches (their secret choices are not hidden from it inside the tree). Opponents are
  therefore modelled as if they chose without their private knowledge (strategy fusion on their
  side), and the searcher can overrate lines that depend on reading their hidden moves.
* Averaging over worlds is not a game-theoretic solution: bluffing and information hiding are
  not valued (the searcher does not model what its own moves reveal).
* Worlds are drawn uniformly among those consistent with the seat's information (what
  ``resample_hidden`` gives), not weighted by how likely the others' past moves made them.

**Determinized search** (perfect-information Monte Carlo, PIMC). ``worlds`` worlds are drawn
once; each gets its own plain UCT tree (or, with ``depth=1``, flat Monte Carlo: UCB over the
root's moves and random play after), the iterations go round-robin over the worlds and the root
visit counts are summed over the trees (a vote weighted by confidence). It suffers strategy
fusion on every seat (each tree plays as if the world were known) but is a useful reference.

**Paired rollouts** (``paired``): no tree. Each round draws one world and plays every root
move out in it by the rollout policy with the *same* future (the world's generator and the
rollout's generator built from one seed: common random numbers), so the moves are compared on
equal luck and the deck's order, which decides many games, cancels out of the comparison. The
rollout policy's own move is kept unless another move's paired mean is strictly higher: with the
game's heuristic bot as rollout policy this is the rollout algorithm of dynamic programming (one
step of policy improvement on the bot), which plays at least as well as the bot when the worlds
follow the seat's beliefs and the rounds are many.

**An opponent model** (``others=heuristic`` or ``others=random``): inside the tree the other
seats move by that policy (reading only their own seat's view of the world, as the bot always
does) instead of being searched, and only the searching seat's decisions are searched: a best
response to the model, planned over the worlds. Their moves still branch the tree (a child per
move made), so the searching seat's later nodes tell apart what they did. Against the modelled
bot itself it plans many moves ahead where paired rollouts improve one (how much that wins is
measured per game in docs/results.md); against anyone else it assumes what it cannot know, and
may do worse than the plain search.

n-player: every node keeps one value sum per seat; the mover at a node picks by its own seat's
mean, so each seat maximises its own return (the "max^n" reading of MCTS). Chance after the root
(dice, reshuffles) comes from the world's own generator, which ``resample_hidden`` makes fresh
from our generator; PIMC reseeds it for every iteration so that a world does not fix its future.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from kabenvs.core.game import State
from kabenvs.core.patience import hurried, patient

# prior(state, player) -> (probabilities over the game's whole action space, value for player)
Prior = Callable[[State, int], tuple[Sequence[float] | np.ndarray | None, float]]
# rollout(world, rng) plays world to its end in place
Rollout = Callable[[State, np.random.Generator], None]
# others(world, player) -> the move a modelled other seat makes (an opponent model, ``others=``)
OthersPolicy = Callable[[State, int], int]


class Node:
    """One decision point of a tree. Children are keyed by ``mover * num_actions + action`` so
    that the same action id by two different movers (possible when worlds disagree about who
    must answer) never shares statistics."""

    __slots__ = ("children", "visits", "avail", "value", "prior", "priors")

    def __init__(self, num_players: int, prior: float = 0.0) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.avail = 0  # times this node was legal when its parent was visited (ISMCTS's N')
        self.value = [0.0] * num_players  # return sums, one per seat
        self.prior = prior  # the parent mover's policy probability of this move (PUCT)
        self.priors: dict[int, float] | None = None  # this node's mover's policy, once evaluated

    def mean(self, player: int) -> float:
        return self.value[player] / self.visits if self.visits else 0.0


@dataclass
class SearchSettings:
    c: float = 1.4  # UCB exploration; returns lie in [-1, 1], a range of 2
    depth: int | None = None  # tree depth cap (1 = flat Monte Carlo); rollouts below it
    leaf_value: bool = False  # with a prior: evaluate new leaves by its values, not a rollout
    score: float = 0.0  # weight of the score margin added to the returns (games with scores)
    norm: bool = False  # PUCT: rescale means to [0, 1] by the tree's range of returns (MuZero)


class Tree:
    """One search tree and the way to run an iteration on it from a given world."""

    def __init__(self, num_players: int, num_actions: int, settings: SearchSettings,
                 rollout: Rollout, prior: Prior | None = None, me: int | None = None,
                 others: OthersPolicy | None = None) -> None:
        self.n = num_players
        self.A = num_actions
        self.settings = settings
        self.rollout = rollout
        self.prior = prior
        # an opponent model: every seat but ``me`` moves by ``others`` inside the tree instead of
        # being searched, so only ``me``'s decisions are searched (a best response to the model)
        if others is not None and me is None:
            raise ValueError("Tree(others=...) needs me=: the seat whose decisions are searched")
        self.me = me
        self.others = others
        self.root = Node(num_players)
        self.lo, self.hi = math.inf, -math.inf  # the range of the returns backed up so far (norm)

    # -- one iteration ----------------------------------------------------------------------
    def iterate(self, world: State, rng: np.random.Generator) -> None:
        """Select and expand in ``world`` (consumed), play it out, back the returns up."""
        node = self.root
        path = [node]
        depth = 0
        cap = self.settings.depth
        while True:
            p = world.current_player
            if p is None:
                returns = self.returns(world)
                break
            legal = world.legal_actions()
            if len(legal) == 1 and node is not self.root:
                # a forced move is no decision: walk through it without a node, so that the
                # tree's depth goes to real choices (the root is never forced: act() answers)
                world.apply(legal[0])
                continue
            modelled = self.others is not None and p != self.me
            if self.prior is not None and node.priors is None and not modelled:
                returns = self._evaluate(node, world, p, rng)
                break
            if cap is not None and depth >= cap:
                self.rollout(world, rng)
                returns = self.returns(world)
                break
            if modelled:
                child, new = self._follow_model(node, world, p)
            else:
                child, new = self._select(node, world, p, rng)
            path.append(child)
            depth += 1
            if new and self.prior is None:  # UCT: a new node is played out at once
                self.rollout(world, rng)
                returns = self.returns(world)
                break
            node = child
        if self.settings.norm:
            self.lo = min(self.lo, min(returns))
            self.hi = max(self.hi, max(returns))
        for visited in path:
            visited.visits += 1
            v = visited.value
            for q in range(self.n):
                v[q] += returns[q]

    def _select(self, node: Node, world: State, p: int, rng: np.random.Generator) -> tuple[Node, bool]:
        """Pick the mover's move among those legal in this world, apply it, return the child and
        whether it was just created."""
        legal = world.legal_actions()
        children = node.children
        base = p * self.A
        if self.prior is None:
            untried = []
            for a in legal:
                child = children.get(base + a)
                if child is None:
                    untried.append(a)
                else:
                    child.avail += 1
            if untried:  # UCT expands one unseen move of this world, chosen at random
                a = untried[int(rng.integers(len(untried)))] if len(untried) > 1 else untried[0]
                child = Node(self.n)
                child.avail = 1
                children[base + a] = child
                world.apply(a)
                return child, True
            c = self.settings.c
            best_a, best, best_score = legal[0], None, -math.inf
            for a in legal:
                child = children[base + a]
                score = child.value[p] / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if score > best_score:
                    best_a, best, best_score = a, child, score
            world.apply(best_a)
            return best, False
        return self._select_puct(node, world, p, legal)

    def _follow_model(self, node: Node, world: State, p: int) -> tuple[Node, bool]:
        """A modelled seat's move (``others``), applied; its child keeps the move in the tree's
        history, so that this seat's later nodes tell apart what the model did."""
        a = self.others(world, p)
        key = p * self.A + a
        child = node.children.get(key)
        new = child is None
        if new:
            child = node.children[key] = Node(self.n)
        child.avail += 1
        world.apply(a)
        return child, new

    def _select_puct(self, node: Node, world: State, p: int, legal: list[int]) -> tuple[Node, bool]:
        """PUCT (AlphaZero's rule) with availability counts in place of the parent's visits.
        A move first met after the node was evaluated (another world's legal set) gets a
        uniform prior."""
        children = node.children
        base = p * self.A
        c = self.settings.c
        priors = node.priors
        uniform = 1.0 / len(legal)
        # norm: values on a small scale (a score margin / 100) would leave the choice to the
        # exploration term, so the means are compared as shares of the range seen so far
        span = self.hi - self.lo if self.settings.norm and self.hi > self.lo else 0.0
        best_a, best, best_score, best_new = legal[0], None, -math.inf, False
        for a in legal:
            child = children.get(base + a)
            new = child is None
            if new:
                child = Node(self.n, prior=priors.get(a, uniform))
                children[base + a] = child
            child.avail += 1
            q = child.value[p] / child.visits if child.visits else 0.0
            if span > 0:
                q = (q - self.lo) / span
            score = q + c * child.prior * math.sqrt(child.avail) / (1 + child.visits)
            if score > best_score:
                best_a, best, best_score, best_new = a, child, score, new
        world.apply(best_a)
        return best, best_new

    def _evaluate(self, node: Node, world: State, p: int, rng: np.random.Generator) -> list[float]:
        """First visit of a node with a prior: store the mover's policy, then value the leaf by
        the prior's values for every seat (``leaf_value``) or by a rollout."""
        probs, value = self.prior(world, p)
        legal = world.legal_actions()
        pr = np.asarray(probs, dtype=np.float64)[legal] if probs is not None else np.zeros(len(legal))
        total = float(pr.sum())
        pr = pr / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
        node.priors = dict(zip(legal, pr.tolist()))
        if self.settings.leaf_value:
            # each seat's value from its own view of this world (the model reads observations)
            return [float(value) if q == p else float(self.prior(world, q)[1]) for q in range(self.n)]
        self.rollout(world, rng)
        return self.returns(world)

    def returns(self, world: State) -> list[float]:
        """The game's returns, plus (``score`` > 0) each seat's score margin over the best other
        seat as a share of the largest score: a denser signal than win/lose where random
        rollouts rarely separate the moves (long scoring games)."""
        ret = world.returns()
        w = self.settings.score
        if w <= 0 or world.current_player is not None or world.truncated:
            return ret
        sc = world.scores()
        if not sc or len(sc) < 2:
            return ret
        scale = max(1.0, max(abs(float(x)) for x in sc))
        out = list(ret)
        for q in range(len(sc)):
            best_other = max(float(sc[k]) for k in range(len(sc)) if k != q)
            out[q] += w * (float(sc[q]) - best_other) / scale
        return out

    # -- results ----------------------------------------------------------------------------
    def root_counts(self, player: int, legal: list[int]) -> dict[int, tuple[int, float]]:
        """``action -> (visits, mean return of player)`` over the root's legal moves."""
        out = {}
        base = player * self.A
        for a in legal:
            child = self.root.children.get(base + a)
            out[a] = (child.visits, child.mean(player)) if child is not None else (0, 0.0)
        return out


def budget_loop(sims: int | None, seconds: float | None):
    """Yield iteration indices until ``sims`` iterations or ``seconds`` of wall clock are spent
    (at least one iteration either way)."""
    if sims is not None:
        yield from range(max(1, sims))
        return
    end = time.perf_counter() + float(seconds)
    i = 0
    while True:
        yield i
        i += 1
        if time.perf_counter() >= end:
            return


class Worlds:
    """The worlds of one search: ``state.resample_hidden(me, rng)``, except where the game marks
    a world as following the real game's hidden choices (``_followed_truth``: its resampler ran
    out of budget looking for one that varies them). Such a world would tell the search which
    card went, so a copy of a world drawn earlier in this search the usual way (the first
    ``KEEP`` are kept, each as likely as any other draw) is walked in its place, with a fresh
    future. When none has been drawn yet, up to ``RETRIES`` more worlds are drawn at once, then
    (once per search) one *patient* draw (``core.patience``: the resampler tries far longer);
    when they all come back marked too, ``draw`` returns None and that simulation is not run (a
    marked world is never walked: the search would read the real hidden choices from it). A
    search that got no world at all chooses without one (``SearchAgent``). Once a world is kept,
    draws are *hurried* (``core.patience``): a resampler skips its slow complete search (Cábula's
    SAT solver) and marks the world instead, which a kept one then replaces. The draws depend only
    on the state and ``rng``, so a seeded search stays reproducible."""

    KEEP = 16
    RETRIES = 2

    def __init__(self, state: State, me: int) -> None:
        self.state, self.me = state, me
        self.kept: list[State] = []
        self.followed_truth = 0  # marked worlds the resampler returned
        self.replaced = 0  # of those, how many were replaced by a kept world
        self.skipped = 0  # of those, how many had no replacement: the simulation was not run
        self.patient = 0  # patient draws made (at most one: it can take a fraction of a second)

    def draw(self, rng: np.random.Generator) -> State | None:
        # once there is a world to walk instead of a marked one, no slow complete search (hurried)
        with hurried(bool(self.kept)):
            world = self.state.resample_hidden(self.me, rng)
        if not getattr(world, "_followed_truth", False):
            return self.keep(world)
        self.followed_truth += 1
        if not self.kept:  # nothing to walk instead yet: a few more tries first
            for _ in range(self.RETRIES):
                again = self.state.resample_hidden(self.me, rng)
                if not getattr(again, "_followed_truth", False):
                    self.replaced += 1
                    return self.keep(again)
            if not self.patient:
                self.patient += 1
                with patient():
                    again = self.state.resample_hidden(self.me, rng)
                if not getattr(again, "_followed_truth", False):
                    self.replaced += 1
                    return self.keep(again)
        if not self.kept:
            self.skipped += 1
            return None
        world = self.kept[int(rng.integers(len(self.kept)))].clone()
        world.rng = fresh_generator(rng)
        self.replaced += 1
        return world

    def keep(self, world: State) -> State:
        """``world`` (a usual one, not marked), kept for later draws to copy while fewer than
        ``KEEP`` are; returned for the caller to consume."""
        if len(self.kept) < self.KEEP:
            self.kept.append(world.clone())  # the search consumes the world it is given
        return world


class InferredWorlds(Worlds):
    """Worlds weighed by an opponent model (``infer=``): the resampler deals every world the
    seat cannot rule out from what it saw, all alike; a modelled opponent's past moves say more.
    The first draw of a search deals ``pool`` worlds the usual way (``Worlds.draw``), replays
    each from its own start, and counts the other seats' decisions (more than one legal move)
    where ``model(state, player)`` would have chosen another move than the one made there; a
    world with m such misses weighs ``EPS ** m`` (relative to the fewest misses in the pool:
    ``EPS`` is the chance the opponent strays from the model at a decision). Every draw, the
    first included, is then a copy of a pool world picked by weight, with a fresh future. The
    model reads each past state as the bot would (its own seat's information in that world),
    so nothing of the real hidden cards enters; the pool depends only on the state and ``rng``."""

    EPS = 0.1

    def __init__(self, state: State, me: int, model: Callable[[State, int], int], pool: int) -> None:
        super().__init__(state, me)
        self.model, self.size = model, pool
        self.pool: list[State] | None = None
        self.misses: list[int] = []  # per pool world (for tests and reports)
        self.weights: np.ndarray | None = None

    def draw(self, rng: np.random.Generator) -> State | None:
        if self.pool is None:
            self._fill(rng)
        if not self.pool:
            return None
        world = self.pool[int(rng.choice(len(self.pool), p=self.weights))].clone()
        world.rng = fresh_generator(rng)
        return world

    def _fill(self, rng: np.random.Generator) -> None:
        self.pool = [w for w in (Worlds.draw(self, rng) for _ in range(self.size)) if w is not None]
        if not self.pool:
            return
        self.misses = [self.misses_in(w) for w in self.pool]
        low = min(self.misses)
        weights = np.array([self.EPS ** (m - low) for m in self.misses])
        self.weights = weights / weights.sum()

    def misses_in(self, world: State) -> int:
        """The other seats' decisions in ``world``'s history where the model chooses another move."""
        past = world.replay_start()
        misses = 0
        for a in world.replay_actions():
            p = past.current_player
            if p is not None and p != self.me and len(past.legal_actions()) > 1 and self.model(past, p) != a:
                misses += 1
            past.apply(a)
        return misses


def fresh_generator(rng: np.random.Generator) -> np.random.Generator:
    """A generator seeded from ``rng`` (the future chance of a world, drawn anew)."""
    return np.random.Generator(np.random.PCG64(int(rng.integers(0, 2**63))))


def ismcts(state: State, me: int, rng: np.random.Generator, make_tree: Callable[[], Tree],
           sims: int | None, seconds: float | None,
           source: Worlds | None = None) -> tuple[dict[int, tuple[int, float]], int]:
    """Single-observer ISMCTS from ``state`` for seat ``me``: (root statistics, simulations run;
    a budget step whose world could not be drawn runs none)."""
    tree = make_tree()
    worlds = source if source is not None else Worlds(state, me)
    done = 0
    for _ in budget_loop(sims, seconds):
        world = worlds.draw(rng)
        if world is None:
            continue
        tree.iterate(world, rng)
        done += 1
    return tree.root_counts(me, state.legal_actions()), done


def paired(state: State, me: int, rng: np.random.Generator, tree: Tree, sims: int | None,
           seconds: float | None, base: int | None = None,
           source: Worlds | None = None) -> tuple[dict[int, tuple[int, float]], int, int]:
    """Paired rollouts from ``state`` for seat ``me`` (module docstring): every round draws a
    world and plays each legal move out in a copy of it with the same seeded future; ``sims``
    counts rollouts (a round costs one per legal move). Returns (``action -> (rounds, mean
    return of me)``, rollouts run, the move chosen): ``base`` (the rollout policy's own move)
    unless another has a strictly higher mean, else the highest mean (then the lower id)."""
    legal = state.legal_actions()
    worlds = source if source is not None else Worlds(state, me)
    totals = [0.0] * len(legal)
    rounds = 0
    budget = None if sims is None else max(1, sims // len(legal))
    for _ in budget_loop(budget, seconds):
        world = worlds.draw(rng)
        if world is None:
            continue
        seed = int(rng.integers(0, 2**63))
        for i, a in enumerate(legal):
            copy = world.clone()
            copy.rng = np.random.Generator(np.random.PCG64(seed))  # the same future for every move
            copy.apply(a)
            tree.rollout(copy, np.random.Generator(np.random.PCG64(seed + 1)))
            totals[i] += tree.returns(copy)[me]
        rounds += 1
    stats = {a: (rounds, totals[i] / rounds if rounds else 0.0) for i, a in enumerate(legal)}
    best = max(legal, key=lambda a: (stats[a][1], -a))
    if base in stats and stats[best][1] <= stats[base][1]:
        best = base  # ties keep the policy's own move: a move is changed only on evidence
    return stats, rounds * len(legal), best


def pimc(state: State, me: int, rng: np.random.Generator, make_tree: Callable[[], Tree],
         sims: int | None, seconds: float | None, worlds: int,
         source: Worlds | None = None) -> tuple[dict[int, tuple[int, float]], int]:
    """Determinized search: ``worlds`` fixed worlds (fewer when some could not be drawn), one
    UCT tree each, root visits summed."""
    source = source if source is not None else Worlds(state, me)
    samples = [w for w in (source.draw(rng) for _ in range(worlds)) if w is not None]
    trees = [make_tree() for _ in samples]
    worlds = len(samples)
    done = 0
    for i in budget_loop(sims, seconds) if samples else ():
        k = i % worlds
        world = samples[k].clone()
        world.rng = fresh_generator(rng)  # the hidden cards are fixed per world; future chance is not
        trees[k].iterate(world, rng)
        done += 1
    legal = state.legal_actions()
    total: dict[int, list[float]] = {a: [0, 0.0] for a in legal}
    for tree in trees:
        for a, (n, mean) in tree.root_counts(me, legal).items():
            total[a][0] += n
            total[a][1] += n * mean
    return {a: (int(n), s / n if n else 0.0) for a, (n, s) in total.items()}, done
