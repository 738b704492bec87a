"""Alakazum!'s resampling of what a seat cannot see, consistent with the seat's whole history.

How (docs/games/alakazum.md, Information): a world is the real game with its hidden cards
*relabelled*. A card is hidden from seat ``p`` if ``p`` never saw what it is at any point of the
game (not only now: a card ``p`` saw go into a hand and then forgot, rules note 15, keeps its
identity). We

1. replay the real game from its start and collect every card ``p`` saw that could be hidden
   from it later (``visible``), which physical card each hidden choice of the history took (a
   card given away, a Forest Magic card kept or put back), and what each Alakazum showed a hand
   not to hold. This analysis replay routes identical copies by what ``p`` saw
   (``_route_copies``): when another hand gives up a card of a type in view, a copy ``p`` knows
   is in that hand leaves first, else one it has seen, else one drawn by chance among the others
   (never-seen copies and those a hidden gift may have brought alike); a card given face down is
   one ``p`` never saw where the giver is the next to show that type (``_gift_plan``), else
   chosen as in view. Which copy leaves is no information, so the routing never follows the
   truth's own, and the worlds drawn depend on what ``p`` saw, not on how the truth happened to
   route its copies; the rest works on this present;
2. deal the cards the seat saw go into the deck before a reshuffle and has not seen since to
   places they could have reached unseen (``_rearrange_deck``: the deck, or a hand that drew
   face down since), and draw a permutation of the never-seen cards that keeps what ``p`` could tell about them: a card
   now in another hand stays a hand card (``p`` saw a hand card drawn or given), another caster's
   kept Forest Magic card stays a non-hand card (it did not go to a hand), an unseen final enemy
   stays a final enemy; while another player pays a spell, it keeps hats worth what is left to
   pay (choosing the spell showed it holds them, not which: relabellings that leave it too few
   are drawn again, and only after ``HAT_TRIES`` of them do its largest hats stay put);
3. relabel the start with it, rewrite the hidden choices of the history to the relabelled cards'
   types (``give Broom`` becomes ``give Traca`` if the Broom was relabelled a Traca), and replay
   the rewritten history from the relabelled start: the replay is the world. Its past chance is
   scripted in its start: the history's own dice (public), and its reshuffle orders as step 2
   dealt them (the last reshuffle's unmoved, unseen bottom cards in a new order too). The start's generator and the world's own
   (its future) are fresh from the caller's ``rng``: a world never carries the real generator.
   Where a card ``p`` first saw leave another hand came after a re-chosen gift to that hand,
   half the draws first try to swap it, over its route before then, with a never-seen card of
   another type (``_swap_before_sighting``): which copy left the hand is no information, since
   the gift may have brought it; without the swap a world whose gift kept a seen copy held it
   in a hand in every world of it (docs/games/alakazum.md, Known gaps, "Copies paid after a
   hidden gift"). A swap that finds no world within its share of the budget is dropped;
4. where step 3 re-chose hidden choices of other seats (a gift among cards the seat had seen, a
   Forest Magic keep), draw again from the world, ``CHAIN`` draws in all. Steps 2-3 relabel and
   re-choose around their source, and the re-chosen choices are the first the backtracking
   meets, so one draw could lean towards its source: at a 3-player position with four
   re-chosen gifts (docs/games/alakazum.md, Known gaps) the worlds of the truth held 1.08 Double
   potions in the deck on average and those of a world of it 0.61 (100 draws each, z = 5.4)
   before step 2 moved seen cards, 0.97 and 1.03 after (z = 0.8). Each draw from the draw before
   forgets more of the start. A draw without re-chosen choices is kept. Since step 2 moves seen
   cards, one draw shows no lean at eleven positions of 2-5 players with 400 draws from the truth
   and 400 from a world of it (largest z 1.9-3.2, what chance gives), so ``CHAIN`` was 1 for a
   while. The lean was found again where a card is seen only after its route (a card drawn face
   down and played in view later: the analysis pins the draw to it, docs/games/alakazum.md,
   Known gaps): one draw z = 10.7 there with 100 draws, a chain of two 4.1, of three 0.4; a
   world whose re-chosen gift kept the seen copy plays that copy, so the next draw of the chain
   leaves the drawn card free. ``CHAIN`` is 3 again.

A state without a recorded start (an older save) is treated as its own start.
"""

from __future__ import annotations

import zlib
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from kabenvs.core.game import world_start, zones_hold
from kabenvs.core.patience import is_patient, patient, resample_budget, resample_tries

if TYPE_CHECKING:
    from kabenvs.games.alakazum.rules import AlakazumState

# Fields of a saved state that can hold a card hidden from some seat (the rest are public zones).
_CARD_LISTS = ("forest", "fm", "fm_order", "finals")


def visible(s: "AlakazumState", p: int) -> set[int]:
    """The cards seat ``p`` sees in state ``s`` that could be hidden from it later.

    Public zones a card never leaves for a hidden one (teams, graveyard, display, box, brooms)
    are left out, and so are those it leaves only in view of everyone (the market, the combat
    table, hats paid: a card taken from them into a hand is known to be there at that step, so
    it shows up in ``known``). What remains: my hand, the cards I know in other hands, the deck
    top I know, my Forest Magic cards, a forest character being fought (a lost fight shuffles it
    back into the deck) and the final enemies I saw or that were revealed."""
    out: set[int] = set(s.hands[p])
    for kn in s.known[p]:
        out.update(kn)
    fk = s.forest_known[p]
    if fk:
        out.update(s.forest[len(s.forest) - fk:])
    if (s.fm or s.fm_keep >= 0) and s.pending is not None and s.pending["p"] == p:
        out.update(s.fm)
        out.update(s.fm_order)
        if s.fm_keep >= 0:
            out.add(s.fm_keep)
    cb = s.combat
    if cb is not None and cb["target"] >= 0:
        out.add(cb["target"])
    for i, f in enumerate(s.finals):
        if s.revealed[i] or s.seen[p][i]:
            out.add(f)
    return out


def _taken(s: "AlakazumState", action: int) -> int:
    """The physical card a hidden choice takes (-1 for any other move)."""
    from kabenvs.games.alakazum.rules import FM_KEEP, FM_ORDER, GIVE_CARD

    pend = s.pending
    if pend is None:
        return -1
    k = pend["k"]
    if k == GIVE_CARD:
        return s._find(pend["p"], s.game.move_of[action][0])
    if k in (FM_KEEP, FM_ORDER):
        cls = s.game.cs.cls
        want = s.game.move_of[action][0]
        return next(c for c in s.fm if cls[c] == want)
    return -1


def _hidden_now(state: "AlakazumState", p: int) -> dict[str, list[int]]:
    """Cards hidden from ``p`` now, by zone (the zones of ``hidden_zones``)."""
    zones: dict[str, list[int]] = {}
    for q in range(state.num_players):
        if q != p:
            kn = state.known[p][q]
            zones[f"hand of player {q}"] = [c for c in state.hands[q] if c not in kn]
    fk = state.forest_known[p]
    zones["forest deck"] = state.forest[: len(state.forest) - fk]
    pend = state.pending
    if (state.fm or state.fm_keep >= 0) and pend is not None and pend["p"] != p:
        zones["Forest Magic cards"] = state.fm + state.fm_order + ([state.fm_keep] if state.fm_keep >= 0 else [])
    for i, f in enumerate(state.finals):
        if not state.revealed[i] and not state.seen[p][i]:
            zones[f"final enemy {i}"] = [f]
    return zones


def hidden_zones(state: "AlakazumState", p: int) -> dict[str, list[str]]:
    """Hidden items by zone, named by what they are (copies of a hand-card type are identical,
    so which copy is where is no information: items are card types, characters, traps, finals)."""
    cs = state.game.cs
    return {z: sorted(_item(cs, c) for c in cards) for z, cards in _hidden_now(state, p).items()}


def _item(cs, card: int) -> str:
    """What ``hidden_zones`` calls a card: its name, or its class's for a card of a class."""
    return cs.cards[card].name if cs.cls[card] < 0 else cs.class_name(cs.cls[card])


def world_holding(state: "AlakazumState", p: int, want: dict[str, dict], rng: np.random.Generator,
                  tries: int) -> "AlakazumState | None":
    """A world as ``resample`` draws them whose hidden zones hold the items ``want`` names as it
    says (zone -> {item: count}; ``State.world_holding``, for the perfect-recall probe), or None
    after ``tries`` draws. Drawing worlds until one fits meets a given split of two types over
    two hands a few times in a hundred at five players (the shared kit, ``KIT_SEED=36``), and
    each draw replays the game; a relabelling alone costs microseconds, so each draw first finds
    one (of up to ``FIT_TRIES``) that puts the items where ``want`` asks in the analysed present,
    and replays only that. A re-chosen hidden choice can still move them, so the world is counted
    again after its replay. Where a seen card stands in the way (pinned by id, only a re-chosen
    gift moves it), no relabelling of this state fits; so each draw after the first is from the
    world before (every world of a world is one of this state: the seat's history is the same),
    whose re-chosen gifts may have moved it, and whose own relabelling can then fit."""
    source = state
    for _ in range(tries):
        world, _rechosen = _draw(source, p, rng, want)
        if zones_hold(hidden_zones(world, p), want):
            return world
        _hand_on(source, world, p)
        source = world
    return None


# Relabellings a draw of ``world_holding`` looks through for one that holds what it asks.
FIT_TRIES = 256


def _holds(here: "AlakazumState", p: int, sigma: dict[int, int], want: dict[str, dict]) -> bool:
    """Whether relabelling ``here`` (the analysed present) by ``sigma`` puts the items ``want``
    names in its zones as it asks."""
    cs = here.game.cs
    zones = _hidden_now(here, p)
    for z, items in want.items():
        held = Counter(_item(cs, sigma.get(c, c)) for c in zones[z])
        if any(held[x] != k for x, k in items.items()):
            return False
    return True


def _start_of(state: "AlakazumState") -> tuple["AlakazumState", list[int]]:
    if state.start is None:
        origin = state.clone()
        origin.mark_start()
        return origin, []
    return state.replay_start(), state.replay_actions()


def _relabel(fields: dict, sigma: dict[int, int]) -> dict:
    """The start's fields with every card id mapped through ``sigma`` (identity elsewhere)."""
    m = sigma.get
    out = dict(fields)
    out["hands"] = [[m(c, c) for c in h] for h in fields["hands"]]
    out["known"] = [[[m(c, c) for c in kn] for kn in row] for row in fields["known"]]
    out["groups"] = [[[[[m(c, c) for c in g[0]], g[1], g[2]] for g in gr] for gr in row]
                     for row in fields["groups"]]
    out["joint"] = [[[[m(c, c) for c in j[0]], j[1]] if j else [] for j in row] for row in fields["joint"]]
    out["public_known"] = [[m(c, c) for c in kn] for kn in fields["public_known"]]
    out["public_groups"] = [[[[m(c, c) for c in g[0]], g[1], g[2]] for g in gr] for gr in fields["public_groups"]]
    out["public_joint"] = [[[m(c, c) for c in j[0]], j[1]] if j else [] for j in fields["public_joint"]]
    out["forest_sets"] = [[f[0], [m(c, c) for c in f[1]], [m(c, c) for c in f[2]], f[3]]
                          for f in fields["forest_sets"]]
    for key in _CARD_LISTS:
        out[key] = [m(c, c) for c in fields[key]]
    out["fm_keep"] = m(fields["fm_keep"], fields["fm_keep"])
    level, broom = fields["level"][:], fields["broom"][:]
    for c, d in sigma.items():
        level[d], broom[d] = fields["level"][c], fields["broom"][c]
    out["level"], out["broom"] = level, broom
    return out


# Draws in a chain where hidden choices are re-chosen (module docstring, step 4). Each more draw
# costs a draw again, its own analysis included (not the record of what the seat saw: ``_hand_on``):
# over every 25th decision from the 100th of random games, one draw -> three, 4.4 -> 10.0 ms a draw
# at 2 players, 8.3 -> 22.0 at 3, 31.8 -> 93.0 at 5.
CHAIN = 3


def resample(state: "AlakazumState", p: int, rng: np.random.Generator) -> "AlakazumState":
    """A world seat ``p`` cannot tell from ``state`` over its whole history (module docstring):
    one draw, or, where it re-chose other seats' hidden choices, a chain of ``CHAIN`` draws, each
    from the world before (step 4)."""
    world, rechosen = _draw(state, p, rng)
    if not rechosen:
        return world
    # A fallback in the chain follows its source's choices: the truth's only while every draw so
    # far fell back; after one usual draw the source is a world, and following it tells nothing.
    followed = world._followed_truth
    source = state
    for _ in range(CHAIN - 1):
        _hand_on(source, world, p)
        # from a usual world a fallback is harmless: such draws need no patience (core.patience)
        with patient(followed and is_patient()):
            nxt, _ = _draw(world, p, rng)
        followed = followed and nxt._followed_truth
        source, world = world, nxt
    world._followed_truth = followed
    return world


def _hand_on(source: "AlakazumState", world: "AlakazumState", p: int) -> None:
    """Give ``world`` the record of what ``p`` saw at each step (``_observed``) that ``source``
    holds: a world replays to the same views of every step (``_rechoose`` checks each), so the
    record is the same, and the next draw of a chain need not replay and encode it again (a fifth
    of a 5-player draw)."""
    n = len(source.history)
    for key, seen in source._resample_memo.items():
        if key[:3] == (p, n, "obs"):
            world._resample_memo[key] = seen


def _draw(state: "AlakazumState", p: int, rng: np.random.Generator,
          want: dict[str, dict] | None = None) -> tuple["AlakazumState", bool]:
    """One draw of steps 1-3 (module docstring): the world, and whether it re-chose hidden
    choices of other seats (a world then still leans towards its source). ``want``: only for
    ``world_holding``, the relabelling is drawn again (``FIT_TRIES`` at most) until it holds
    those items."""
    game = state.game
    origin, actions = _start_of(state)
    seen, taken, barred, secret, present, chance = _history_facts(state, p, origin, actions)
    # 2. a permutation of the never-seen cards keeping what p could tell about them. ``present``
    # is this position as the analysis replayed it (copies routed, ``_route_copies``): the same cards
    # in the same places by type, possibly other copies by id.
    zones = _hidden_now(present, p)
    hidden = {c for cards in zones.values() for c in cards} - seen
    owed = _hats_owed(present, p, hidden)
    hidden_steps, run_start = _runs_to_rechoose([e for e in secret if taken[e[0]] >= 0])
    # The cards behind the other seats' hidden choices are re-chosen among those the seat cannot
    # tell apart (not only relabelled): it may have seen the cards, just not which one went.
    # Checked by replaying the rest of the game against what the seat saw.
    observed = _observed(state, p, origin, actions, hidden_steps[0]) if hidden_steps else None
    world = None
    # One try, or several when patient (core.patience). Each try draws its own relabelling: some
    # leave the re-chosen steps no world at all (a Black Friday's Discount giving away ten unseen
    # cards, when the giver must keep one of two copies it needs later), and more tries of the
    # same one cannot help there (docs/games/alakazum.md, Resampling).
    for _ in range(resample_tries(1)):
        # where the cards lie that the seat saw go into the deck before a reshuffle and has not
        # seen since (``_rearrange_deck``)
        for _fit in range(FIT_TRIES if want else 1):
            orders, here, bars = _rearrange_deck(present, p, seen, barred, chance, rng)
            try:
                # (a payer's hand is never dealt again)
                sigma = _relabelling(here, p, hidden, owed, bars, rng)
            except RuntimeError:  # the trades left the hands more never-seen cards than hand cards to be
                orders, here, bars = _rearrange_deck(present, p, seen, barred, chance, rng, trade=False)
                sigma = _relabelling(here, p, hidden, owed, bars, rng)
            if not want or _holds(here, p, sigma, want):
                break
        # 3. relabel the start, rewrite the hidden choices, replay
        fields = _start_fields(origin, sigma, orders, chance)
        new_start = world_start(fields, rng)
        if not hidden_steps:
            break
        # (not for ``world_holding``: its relabelling was drawn to hold what it asks)
        if not want and rng.random() < SWAP_SHARE:
            swap = _swap_before_sighting(here, p, sigma, bars, chance, hidden_steps, rng)
            if swap is not None and (owed is None or _pays(game.cs, here.hands[owed[0]], owed[1], swap)):
                swapped = _start_fields(origin, swap, orders, chance)
                world = _rechoose(game, origin, swapped, world_start(swapped, rng), actions, taken, swap,
                                  rng, p, hidden_steps, run_start, observed, chance, SWAP_BUDGET)
                if world is not None:
                    break
        world = _rechoose(game, origin, fields, new_start, actions, taken, sigma, rng, p,
                          hidden_steps, run_start, observed, chance)
        if world is not None:
            break
    followed = world is None and bool(hidden_steps)  # the budget ran out: the real choices
    if world is None:
        world = _start_world(game, origin, fields, new_start)
        _follow(world, game, actions, taken, sigma, 0, len(actions))
    # The world keeps the generator its replay from its own (fresh) start ended with: a fresh one
    # set here would differ from what replaying the world gives, and a seat's information-state key
    # (core.view_history), built by that replay after moves in the world, hit illegal moves.
    world._reset_caches()
    world._followed_truth = followed  # a search walks an earlier world instead (search.tree.Worlds)
    return world, bool(hidden_steps)


def _start_fields(origin, sigma: dict[int, int], orders: list[list[int]], chance: "_Chance") -> dict:
    """The world's start (step 3): the real start relabelled by ``sigma``, its past chance scripted
    (the reshuffle orders step 2 dealt, the history's dice)."""
    fields = _relabel(origin.start["state"], sigma)
    fields["shuffles"], fields["rolls"] = orders, chance.rolls[:]
    return fields


# The share of draws with re-chosen steps that first try a swap before a sighting, and the share
# of the re-choosing budget such a try may spend before the draw goes on without it.
SWAP_SHARE = 0.5
SWAP_BUDGET = 0.25


def _swap_before_sighting(present, p: int, sigma: dict[int, int], barred, chance: "_Chance",
                          hidden_steps: list[int], rng: np.random.Generator) -> dict[int, int] | None:
    """``sigma`` with one card the seat first saw leave another hand after a re-chosen gift to that
    hand (``_Chance.exposed``) swapped, over its route before then, with a never-seen card of
    another type: the swapped card takes that never-seen card's route and stays unseen, and the
    re-chosen gift must bring the hand a copy of the card's type for the sighting to read the
    same. Which copy the seat saw leave the hand is no information: the hand may have held it
    from the start or been given it face down (docs/games/alakazum.md, Known gaps, "Copies paid
    after a hidden gift"). None where no such swap is offered."""
    cs = present.game.cs
    first = hidden_steps[0]
    to = [chance.gift_to[j][1] if j in chance.gift_to else -1 for j in hidden_steps]
    cands = sorted(c for c, (k, q, _) in chance.exposed.items()
                   if k > first and any(j < k and t == q for j, t in zip(hidden_steps, to)))
    if not cands:
        return None
    card = cands[int(rng.integers(len(cands)))]
    inverse = {d: c for c, d in sigma.items()}
    finals = set(present.finals)
    in_hands = {c for q in range(present.num_players) if q != p for c in present.hands[q]}

    options = [d for d in sorted(inverse)
               if d not in finals and inverse[d] not in finals and inverse[d] != present.fm_keep
               and cs.is_hand[d] and cs.htype[d] != cs.htype[card]
               and not _shown_absent(cs, barred.get(card), d)
               and (inverse[d] not in in_hands or not _shown_absent(cs, barred.get(inverse[d]), card))]
    if not options:
        return None
    other = options[int(rng.integers(len(options)))]
    out = dict(sigma)
    out[inverse[other]] = card
    out[card] = other
    # The sighting needs the hand to hold another card of the type then: one it held, or one a
    # re-chosen step before could bring it (a gift to it, its own Forest Magic keep). Where no
    # card there is of that type once swapped, no world has it: the try is not made.
    k, q, held = chance.exposed[card]
    near = held + [c for j in hidden_steps if j < k and chance.pools[j][0] == q for c in chance.pools[j][1]]
    t = cs.htype[card]
    if not any(cs.htype[out.get(c, c)] == t for c in near):
        return None
    return out


def _relabelling(present, p: int, hidden: set[int], owed, barred, rng: np.random.Generator) -> dict[int, int]:
    """Step 2: a permutation of the never-seen cards ``hidden`` keeping what ``p`` could tell about
    them (module docstring), hats owed included."""
    cs = present.game.cs
    finals = set(present.finals)
    for attempt in range(HAT_TRIES + 1 if owed else 1):
        kept = hidden
        if attempt == HAT_TRIES:  # no luck: the largest hats stay where they are (module docstring)
            kept = hidden - _hats_being_paid(present, p, hidden)
        need_hand = [c for q in range(present.num_players) if q != p for c in present.hands[q] if c in kept]
        need_other = [present.fm_keep] if present.fm_keep in kept else []
        free = sorted(c for c in kept if c not in finals and c not in need_hand and c not in need_other)
        sigma = _assign(cs, need_hand, need_other, free, barred, rng)
        if owed is None or attempt == HAT_TRIES or _pays(cs, present.hands[owed[0]], owed[1], sigma):
            break
    unseen_finals = sorted(c for c in kept if c in finals)
    for c, j in zip(unseen_finals, rng.permutation(len(unseen_finals))):
        sigma[c] = unseen_finals[j]
    return sigma


# Hidden steps of one seat at most this many steps apart form one run (one gift's cards, with
# the recipient's view of each between them; a Forest Magic keep and its put-back order).
RUN_GAP = 3


def _runs_to_rechoose(steps: list[tuple[int, bool, int]]) -> tuple[list[int], list[int]]:
    """The hidden steps to draw again, and for each the index of its run's first step: every
    step of each run (steps of one seat close together) where some step chose among cards the
    seat had seen. A run among never-seen cards only is varied by the relabelling already."""
    out: list[int] = []
    starts: list[int] = []
    run: list[int] = []
    flagged = False
    last_mover = None
    for k, saw, mover in steps + [(-10, False, None)]:
        if run and (k - run[-1] > RUN_GAP or k < run[-1] or mover != last_mover):
            if flagged:
                first = len(out)
                out += run
                starts += [first] * len(run)
            run, flagged = [], False
        run.append(k)
        flagged = flagged or saw
        last_mover = mover
    return out, starts


def _start_world(game, origin, fields, new_start):
    world = origin.__class__.__new__(origin.__class__)
    world.__dict__.update(_deep(fields))
    world.game = game
    world.rng = np.random.Generator(np.random.PCG64(0))
    world.rng.bit_generator.state = new_start["rng"]
    world.start = new_start
    world._reset_caches()
    return world


def _relabelled(world, game, a: int, card: int, sigma: dict[int, int]) -> int:
    """The history's move ``a`` in the relabelled world (a hidden choice names its card's type)."""
    from kabenvs.games.alakazum.rules import GIVE_CARD

    if card >= 0:
        d = sigma.get(card, card)
        if d != card:
            cs = game.cs
            return game.give_id[cs.htype[d]] if world.pending["k"] == GIVE_CARD else game.forest_id[cs.cls[d]]
    return a


def _follow(world, game, actions, taken, sigma, lo: int, hi: int) -> None:
    """Apply the history's steps ``lo..hi-1`` (relabelled) to a world that follows the real game:
    legal there by construction (the shared kit replays resampled worlds with every check), so a
    real move is applied without the legality check."""
    for k in range(lo, hi):
        a, card = actions[k], taken[k]
        b = _relabelled(world, game, a, card, sigma)
        if b != a:
            world.apply(b)  # a rewritten choice: checked
            continue
        world.history.append(a)
        world._apply(a)
        world._forget_legal()


# How many history steps re-choosing may replay in all (times the history's length, plus a
# floor) before the real choices (relabelled) are kept instead. 4 (was 2), with the second pass:
# in a 3-player game of search:sims=2 seats, 8 of 196 re-drawn worlds fall back where 28 did
# (docs: Resampling). The floor (was 200) matters early in a game, where four times a short
# history left two chained Forest Magic runs or a Halloween gift of four cards too few tries:
# with 2000, over 128 positions of six 5-player games 0 of 384 draws fell back instead of 8 and
# over 99 of ten 3-player games 3 of 297 instead of 11, at the same mean cost a draw (a draw
# that finds its world stops there; only a fallback spends the whole budget).
RECHOOSE_BUDGET = 4
RECHOOSE_FLOOR = 2000


def _rechoose(game, origin, fields, new_start, actions, taken, sigma, rng, p, hidden_steps, run_start,
              observed, chance, share: float = 1.0):
    """The world with each of ``hidden_steps`` (another seat's choice hidden from ``p``) drawn
    again among the moves the world allows there that leave ``p``'s observation as the real one
    did, every later step checked (legal, and ``p`` sees what it saw). A choice that a later step
    contradicts (the recipient plays the card the giver kept) is undone and the next one tried,
    the latest first (backtracking); None when the budget runs out."""
    from kabenvs.core.errors import IllegalActionError

    # the pruning facts the analysis replay found (``_Chance``)
    seen_at, keep_needs, gift_to = chance.seen_at, chance.keep_needs, chance.gift_to
    first = hidden_steps[0]
    world = _start_world(game, origin, fields, new_start)
    _follow(world, game, actions, taken, sigma, 0, first)
    budget = int(share * resample_budget(RECHOOSE_BUDGET * len(actions) + RECHOOSE_FLOOR))
    ends = hidden_steps[1:] + [len(actions)]
    # hidden step -> the latest earlier one of the same sequence of gifts to the same player
    same_gift: dict[int, int] = {}
    last_of: dict[tuple[int, int], int] = {}
    for j, k in enumerate(hidden_steps):
        key = gift_to.get(k)
        if key is not None:
            if key in last_of:
                same_gift[j] = last_of[key]
            last_of[key] = j

    keeps, wants = _gift_needs(game, hidden_steps, run_start, actions, chance)
    give_type = {a: t for t, a in enumerate(game.give_id)}
    type_of = game.cs.htype
    # hidden step -> the gifts of its run to its recipient from it on (it included)
    gifts_left: dict[int, int] = {}
    for j, k in enumerate(hidden_steps):
        if k in gift_to:
            gifts_left[j] = sum(1 for j2 in range(j, len(hidden_steps))
                                if run_start[j2] == run_start[j]
                                and gift_to.get(hidden_steps[j2]) == gift_to[k])

    def options_at(w, j: int) -> list[int]:
        """The moves at hidden step ``j`` in random order. Every legal move there is offered: a
        move that reads differently to ``p`` is caught by the check right after it (``p`` sees
        its observation then), which costs one observation per move tried, not per move."""
        legal = w.legal_actions()
        k = hidden_steps[j]
        # A Forest Magic put-back place whose card the seat later saw drawn holds that class in
        # every world (``_Chance.seen_at``): only it is offered there, and a keep is offered only
        # if the rest of the pool still holds every such class of its spell.
        if k in seen_at:
            want = game.forest_id[seen_at[k]]
            return [want] if want in legal else []
        # The hidden cards one sequence of gifts sends to one player end in the same hands
        # whatever their order, what the seat sees on the way does not depend on them, and no
        # rule reads the order of a hand: one order (by type) is offered, not each of the k!
        # orders of a set of k cards.
        if j in same_gift:
            prev = w.history[hidden_steps[same_gift[j]]]
            legal = [a for a in legal if a >= prev]
        keep = owed = None
        if k in gift_to and run_start[j] in keeps:
            keep = _owed(w, keeps[run_start[j]][1], k)
            owed = {q: need for q, t in wants[run_start[j]].items() if (need := _owed(w, t, k))}
        if k in gift_to and (keep or owed):
            # The giver keeps what it must still play and what its later gifts must still bring
            # a recipient (``_gift_needs``): a gift of type t is refused when it would leave
            # fewer t than both need, unless it is one of those gifts.
            to = gift_to[k][1]
            keep = keep or Counter()
            held_by = {q: Counter(type_of[c] for c in w.hands[q]) for q in owed or ()}
            lacking = Counter()
            for q, need in (owed or {}).items():
                for t, n in need.items():
                    lacking[t] += max(0, n - held_by[q][t])
            mine = Counter(type_of[c] for c in w.hands[w.current_player])

            def leaves_enough(a: int) -> bool:
                t = give_type.get(a)
                if t is None:
                    return True
                brings = owed is not None and to in owed and owed[to][t] > held_by[to][t]
                return mine[t] - 1 >= keep[t] + lacking[t] - brings

            legal = [a for a in legal if leaves_enough(a)]
        want = owed.get(gift_to[k][1]) if owed and k in gift_to else None
        if want:  # a recipient gets what it must still play, while enough gifts are left for it
            held = Counter(type_of[c] for c in w.hands[gift_to[k][1]])
            lacks = {t: n - held[t] for t, n in want.items() if n > held[t]}
            if sum(lacks.values()) > gifts_left[j]:
                return []
            if lacks:
                # gifts to one recipient come in one order, by type (above): a type it still
                # lacks must come now or later, so nothing after it may come before it
                lowest = min(game.give_id[t] for t in lacks)
                legal = [a for a in legal if a <= lowest]
                if sum(lacks.values()) == gifts_left[j]:
                    legal = [a for a in legal if give_type.get(a) in lacks]
        needs = keep_needs.get(k)
        if needs:
            cls = game.cs.cls
            pool = Counter(cls[c] for c in w.fm)
            legal = [a for a in legal if not needs - (pool - Counter([game.move_of[a][0]]))]
        return [legal[i] for i in rng.permutation(len(legal))]

    # A run of hidden steps (the cards of one gift, a Forest Magic keep and its put-back order)
    # is one choice seen from outside: when it fails, the run starts again with its first step's
    # next option rather than trying every order of its later steps (backjumping).

    # The trail running out without a world means backjumping skipped the world there is (the
    # relabelled real choices always are one): the first pass starts again in new random orders
    # while half the budget is left (it gave up after a dozen tries at a ten-card gift, when the
    # first step's options ran out), then a second pass tries every order of every run's steps
    # (plain chronological backtracking) with the rest.
    restart_until = budget // 2
    backjump = True
    while True:
        j = 0
        # per hidden step reached: (the world before it, the options left to try)
        trail = [(world, options_at(world, 0))]
        while trail:
            before, left = trail[-1]
            if not left:
                trail.pop()
                j -= 1
                continue
            w = before.clone()
            w.apply(left.pop())
            k = hidden_steps[j]
            ok = _seen(w, p) == observed[k - first]
            step = k + 1
            end = ends[j]
            short = None  # (player, hand types) of a later move refused for want of such a card
            while ok and step < end:
                budget -= 1
                a = _relabelled(w, game, actions[step], taken[step], sigma)
                try:
                    w.apply(a)
                except IllegalActionError:
                    ok = False
                    needed = _hand_types_needed(game, a)
                    if needed:
                        short = (w.current_player, needed)
                    break
                step += 1
                # What p sees, at every step: a difference can show for a few steps and be gone
                # by the next hidden choice (checking only there let inconsistent worlds through).
                ok = _seen(w, p) == observed[step - 1 - first]
            if budget < 0:
                return None
            if not ok:
                if backjump:
                    # A player later short of a card type it gave away at a hidden step: that
                    # gift is the choice to change (the latest such one), not only the run's
                    # first step (conflict-directed backjumping); otherwise the run's start.
                    back = None
                    for lacked in short[1] if short else ():
                        one = (short[0], lacked)
                        b = _gave_away(game, trail, w, hidden_steps, j, one)
                        if b is None:
                            b = _not_given(game, w, hidden_steps, j, one, gift_to)
                        if b is not None and (back is None or b > back):
                            back = b
                    back = run_start[j] if back is None else back
                    del trail[back + 1:]
                    j = back
                continue
            if j + 1 == len(hidden_steps):
                return w
            j += 1
            trail.append((w, options_at(w, j)))
        budget -= 1  # a restart costs at least a step (options that run out at once)
        if not backjump:
            return None
        if budget <= restart_until:
            backjump = False
    return None


# Moves that use a card of the mover's hand, whose type is the first field of the move: a hand
# without that type refuses them.
_HAND_CARD_KINDS = frozenset({"potion", "hat", "market", "food", "give"})


def _hand_types_needed(game, a: int) -> tuple[int, ...]:
    """The hand types one of which move ``a`` needs in the mover's hand (empty: it needs no
    particular card). A broom is given with whichever broom card the hand holds, so its move
    names no type: every broom type. (Missing here, a re-chosen Halloween gift of the broom
    showed only when the giver's broom was refused three steps on, and the search went back to
    the first gift of the run instead of to the one that gave the broom away: a late 5-player
    position of ``KIT_SEED=27`` fell back in every draw, patient ones too.)"""
    kind = game.kind_of[a]
    if kind in _HAND_CARD_KINDS:
        return (game.move_of[a][0],)
    if kind == "broom":
        cs = game.cs
        return tuple(t for t in range(cs.num_htypes) if cs.ht_effect[t] == "broom")
    return ()


def _gift_needs(game, hidden_steps: list[int], run_start: list[int], actions: list[int],
                chance: "_Chance") -> tuple[dict[int, tuple[int, list]], dict[int, dict[int, list]]]:
    """What the hands of a run of hidden gifts must hold: per run (the index of its first step)
    its giver's *timeline* from the run's first step on, and each recipient's. A timeline lists,
    by step, each card that hand loses in the seat's view (played, paid, shown for the market,
    given to the seat: the card must be in the hand then; a cancelled action's card, which stays,
    is no loss), each card it gains in the seat's view, and each card it draws from the deck (by
    depth below the deck's top at the run's end, counting everyone's draws), up to the step where
    it gains a card the seat does not see, or draws one after the deck changed otherwise (a
    reshuffle, a Forest Magic take); ``_owed`` reads it against a world. Cards that moved unseen
    ask nothing (a world draws those choices again, or relabels them).

    A re-chosen gift that leaves the giver without a card it still loses in view, or a recipient
    short of one with too few gifts to come, is then refused at once rather than found out when
    the card is missing: a Halloween's ten gifts from a 20-card hand had to leave the giver its
    broom and send two recipients a Food and a Double potion they played up to 25 steps later,
    one after drawing a card, and backtracking from those steps did not find such gifts within
    its budget (a late 5-player position of ``KIT_SEED=27`` fell back in every draw). An earlier
    try of this pruning (2026-12-05, docs/games/alakazum.md) counted a move's named card as a
    use, which a cancelled action does not use up, and stopped at any growth of a hand."""
    key = (tuple(hidden_steps), tuple(run_start))
    if key in chance.needs_memo:  # (the same for every draw at a position: a search draws many)
        return chance.needs_memo[key]
    movers = chance.movers
    hidden = chance.unseen_moves  # (the re-chosen ones among them; the rest a world relabels)

    def timeline(q: int, after: int, deck_from: int, run: set[int]) -> list:
        out: list = []
        depth = 0
        known = True  # the deck still lies as at the run's end, less the cards drawn since
        for k in range(after + 1, len(actions)):
            # what left the hand first (a card shown for the market leaves as the others come);
            # a card it lost unseen (a gift drawn again, or relabelled, in a world) asks nothing
            for who, sign, t in chance.changes[k]:
                if who == q and sign < 0 and t is not None and k not in hidden:
                    out.append((k, "play", t))
            for who, sign, t in chance.changes[k] if k not in run else ():  # (this run's gifts:
                if who == q and sign > 0:                                    # the world's own)
                    if t is None:
                        return out  # a card it may play next, unknown to the seat
                    out.append((k, "gain", t))
            if k <= deck_from:
                continue
            known = known and not chance.stirred_at[k]
            for d in chance.step_draws[k]:
                if d == q:
                    if not known:
                        return out  # a card from a deck that changed otherwise: no knowing
                    out.append((k, "draw", depth))
                depth += 1
        return out

    givers: dict[int, tuple[int, list]] = {}
    takers: dict[int, dict[int, list]] = {}
    for j0 in sorted(set(run_start)):
        if hidden_steps[j0] not in chance.gift_to:
            continue  # a Forest Magic run: the caster keeps its hand
        steps = [hidden_steps[j] for j in range(len(hidden_steps)) if run_start[j] == j0]
        last = max(steps)
        giver = movers[hidden_steps[j0]]
        run = set(steps)
        givers[j0] = (giver, timeline(giver, hidden_steps[j0], last, run))
        takers[j0] = {q: timeline(q, hidden_steps[j0], last, run)
                      for q in {chance.gift_to[k][1] for k in steps if k in chance.gift_to}}
    chance.needs_memo[key] = givers, takers
    return givers, takers


def _owed(w, timeline: list, now: int) -> Counter:
    """The hand types a timeline's hand must hold at step ``now`` (``_gift_needs``), in world
    ``w``: each card it plays or gives after ``now``, less those it will have drawn or gained by
    then (the world's deck, as it lies now, says which cards are drawn: the run's gifts do not
    touch it)."""
    cs = w.game.cs
    deck = w.forest
    came: Counter = Counter()
    need: Counter = Counter()
    for k, kind, x in timeline:
        if k <= now:
            continue
        if kind == "draw":
            if x >= len(deck):
                break  # past the deck's bottom (a reshuffle comes first): no knowing
            card = deck[len(deck) - 1 - x]
            if cs.is_hand[card]:
                came[cs.htype[card]] += 1
        elif kind == "gain":
            came[x] += 1
        elif came[x]:
            came[x] -= 1
        else:
            need[x] += 1
    return need


def _not_given(game, w, hidden_steps: list[int], j: int, short: tuple[int, int], gift_to) -> int | None:
    """A player later short of a card type that a re-chosen sequence of gifts to it could have
    brought: the step of the latest such sequence (up to ``j``) where a gift of that type would
    have gone, in the one order by type (its first gift of a later type, else its last), or None."""
    player, htype = short
    give = game.give_id[htype]
    at: dict = {}  # sequence -> where its gift of that type would have gone, so far
    for i in range(j + 1):
        key = gift_to.get(hidden_steps[i])
        if key is None or key[1] != player:
            continue
        first_later = at.get(key, (None, False))
        if not first_later[1]:  # no later type met yet: its last gift so far, or this one
            at[key] = (i, w.history[hidden_steps[i]] > give)
    return max((i for i, _ in at.values()), default=None)


def _gave_away(game, trail, w, hidden_steps: list[int], j: int, short: tuple[int, int]) -> int | None:
    """The latest hidden step up to ``j`` where ``short``'s player gave away a card of
    ``short``'s type (``w`` is the world after step ``j``'s choice), or None."""
    player, htype = short
    give = game.give_id[htype]
    for i in range(j, -1, -1):  # (``w`` descends from every earlier choice: its history has them)
        if w.history[hidden_steps[i]] == give and trail[i][0].current_player == player:
            return i
    return None


def _seen(state: "AlakazumState", p: int) -> tuple:
    """What ``p`` saw at this step, for checking a world against the real game: its observation,
    and the order in which the cards of its hand and of its Forest Magic came to it (by type).
    The observation holds those by type only; the narration tells the order (``p`` found Food,
    then a Die potion), which a re-drawn put-back order of another caster could otherwise change."""
    cls = state.game.cs.cls
    fm = [cls[c] for c in state.fm] if state.pending is not None and state.pending.get("p") == p else []
    return state.observation(p).tobytes(), [cls[c] for c in state.hands[p]], fm


def _observed(state, p, origin, actions, first):
    """What ``p`` saw (``_seen``) after every step from ``first`` on, in the real game (a cache)."""
    memo = state._resample_memo
    key = (p, len(state.history), "obs", first)  # the same [1] as _history_facts keys: cleared with them
    if key not in memo:
        # a longer record of the same views will do (one a chain's source handed on, ``_hand_on``)
        for k, seen in list(memo.items()):
            if k[:3] == key[:3] and k[3] <= first:
                memo[key] = seen[first - k[3]:]
                return memo[key]
        replay = origin.clone()
        out = []
        for k, a in enumerate(actions):
            replay.history.append(a)
            replay._apply(a)
            replay._forget_legal()
            if k >= first:
                out.append(_seen(replay, p))
        memo[key] = out
    return memo[key]


def _history_facts(state: "AlakazumState", p: int, origin: "AlakazumState", actions: list[int]):
    """Replay the real game: every card ``p`` ever saw, the card behind each hidden choice, and
    the cards an Alakazum showed not to be amulets or objects of its culture. Kept on the state
    (a cache, dropped by ``_reset_caches``) since a search resamples one position many times.

    Which copy of a type a hidden gift sends is decided by what the seat sees next of that type
    (``_gift_plan``), which the replay learns only later: a first pass sends seen copies, and
    where the plan says otherwise a second pass replays it that way."""
    memo = state._resample_memo
    key = (p, len(state.history))
    if key in memo:
        return memo[key]
    if any(k[1] != key[1] for k in memo):
        memo.clear()  # the state moved on: only the current position's facts are kept
    facts = _analyse(state, p, origin, actions, set())
    # (only gifts where the first pass sent a seen copy and an unseen one was there to send: the
    # plan changes nothing elsewhere, so it is neither worked out there nor replayed again)
    plan = _gift_plan(state.game, facts[1], facts[5], facts[5].copy_choice)
    if plan:
        facts = _analyse(state, p, origin, actions, plan)
    memo[key] = facts
    return facts


def _gift_plan(game, taken: list[int], chance: "_Chance", gifts: set[int]) -> set[int]:
    """The hidden gifts among ``gifts`` (another seat's card to a third, unseen by the seat) that
    should send a copy the seat never saw rather than one it saw (``_route_copies``): those whose
    type the giver is the next of the two to lose in the seat's view (not counting a copy it gained in view
    since, which the seat knows of and which leaves first). Then the copy the giver shows is
    the seen one and the gift's card stays unseen, so the gift, which a world chooses again, is
    not tied to a card seen later (the shared kit's ``KIT_SEED=25``: a world whose gift sent the
    seen Magic hat 1 held the seen Barretina in the recipient's hand in 2 of 100 worlds, the
    truth in 46). Where the recipient is next to lose one in view, the seen copy goes: the card
    it plays is then one already seen, and the copy left behind stays unseen (``KIT_SEED=33``:
    sending the unseen Double potion instead left the giver holding a Double potion in 0.77 of a
    world's worlds, in 0.28 of the truth's, 60 draws each). Types are the seat's to know whatever
    copies moved, so the first pass's record of losses in view (``_Chance.changes``) serves."""
    htype = game.cs.htype
    plan: set[int] = set()
    for k in sorted(gifts):
        to = chance.gift_to[k][1]
        giver, t = chance.movers[k], htype[taken[k]]
        gained = {giver: 0, to: 0}  # copies each gained in view since: the first to leave again
        first = None
        for j in range(k + 1, len(chance.changes)):
            for q, sign, u in chance.changes[j]:
                if u != t or q not in gained:
                    continue
                if sign > 0:
                    gained[q] += 1
                elif gained[q]:
                    gained[q] -= 1
                else:
                    first = q
                    break
            if first is not None:
                break
        if first == giver:
            plan.add(k)
    return plan


def _analyse(state: "AlakazumState", p: int, origin: "AlakazumState", actions: list[int],
             plan: set[int]):
    """One pass of ``_history_facts``; ``plan``: the hidden gifts that send a never-seen copy."""
    from kabenvs.games.alakazum.rules import FM_KEEP, FM_ORDER, GIVE_CARD, GIVE_TO

    game = state.game
    seen = visible(origin, p)
    taken = []
    secret = []  # steps where another seat made a choice hidden from p among cards p saw
    # An Alakazum shows every amulet and every object of its culture in the hand: the other
    # cards held then are none of those (card -> cultures announced while it was held).
    barred: dict[int, set[int]] = {}
    replay = origin.clone()
    moved: set[int] = set()
    hiding = [False]  # (whether the step being replayed is a hidden gift sending a never-seen copy)
    _route_copies(replay, p, seen, moved, hiding, _routing_rng(origin, p, actions))
    chance = _track_chance(replay)
    unexposed = set().union(*_hidden_now(origin, p).values())  # (``_Chance.exposed``)
    kind_of, move_of = game.kind_of, game.move_of
    cls, htype = game.cs.cls, game.cs.htype
    put_back: dict[int, int] = {}  # card -> the step another caster put it back on the deck
    keep_of: dict[int, int] = {}  # put-back step -> the step of its spell's keep
    keep = -1
    gifts = 0  # numbers each sequence of gifts (one Halloween's half of a hand)
    giving = False
    for k, a in enumerate(actions):
        pend = replay.pending
        hiding[0] = k in plan
        taken.append(_taken(replay, a))
        if (pend is not None and pend["k"] == GIVE_CARD and pend["p"] != p and pend["to"] != p
                and taken[k] in seen):  # a seen copy given face down where an unseen one could go
            t = htype[taken[k]]
            if any(htype[c] == t and c not in seen for c in replay.hands[pend["p"]]):
                chance.copy_choice.add(k)
        now_giving = pend is not None and pend["k"] in (GIVE_TO, GIVE_CARD)
        gifts += now_giving and not giving
        giving = now_giving
        if pend is not None and pend["p"] != p and pend["k"] == FM_KEEP:
            keep = k
        fm_left = None  # the pool before a put-back step
        if pend is not None and pend["p"] != p and pend["k"] == FM_ORDER:
            put_back[taken[k]] = k
            keep_of[k] = keep
            fm_left = replay.fm[:]
        # Another seat's choice hidden from p, among cards p has seen at some point: relabelling
        # the never-seen cards cannot vary those, so the world re-chooses it (resample). Among
        # never-seen cards only, the relabelling already varies the choice.
        if pend is not None and pend["p"] != p:
            if pend["k"] == GIVE_CARD and pend["to"] != p:
                pool = replay.hands[pend["p"]]
            elif pend["k"] in (FM_KEEP, FM_ORDER):
                pool = replay.fm + replay.fm_order
            else:
                pool = ()
            if pool:
                secret.append((k, any(c in seen for c in pool), pend["p"]))
                chance.pools[k] = (pend["to"] if pend["k"] == GIVE_CARD else pend["p"], list(pool))
                chance.unseen_moves.add(k)
                if pend["k"] == GIVE_CARD:
                    chance.gift_to[k] = (gifts, pend["to"])
        if kind_of[a] == "alakazum" and replay.pending["p"] != p:
            for c in replay.hands[replay.pending["p"]]:
                barred.setdefault(c, set()).add(move_of[a][0])
        chance.movers.append(replay.current_player)
        held_before = [set(h) for h in replay.hands]
        shuffles_before = len(chance.orders)
        # the real game's own moves: legal by construction, so the legality check is skipped
        chance.drawn.clear()
        chance.drawers.clear()
        replay.history.append(a)
        replay._apply(a)
        replay._forget_legal()
        if secret and secret[-1][0] == k:
            moved.add(taken[k])  # (after the step: its own find must take the card ``taken`` names)
        chance.step_draws.append(chance.drawers[:])
        chance.stirred_at.append(bool(chance.stirred) or len(chance.orders) != shuffles_before)
        drawn = set(chance.drawn)
        now = visible(replay, p)
        # The cards each hand lost and gained at the step (not the deck's draws): by hand type
        # where the seat saw the card (it left all hands in view, or it sees it where it went;
        # a card gained in its view), else None: a world may have another card there.
        held_after = [set(h) for h in replay.hands]
        in_hands = set().union(*held_after)
        chance.changes.append(
            [(q, -1, htype[c] if c not in in_hands or c in now else None)
             for q in range(replay.num_players) for c in held_before[q] - held_after[q]]
            + [(q, 1, htype[c] if c in now else None)
               for q in range(replay.num_players) for c in held_after[q] - held_before[q] - drawn])
        seen |= now
        if unexposed:
            # (only cards that left another hand, or that the seat now knows of in one, can have
            # left its hidden places out of a hand: the full hidden set is counted only for those)
            out = [(c, q) for q in range(replay.num_players) if q != p for c in held_before[q]
                   if c in unexposed and (c in now or c not in held_after[q])]
            if out:
                still = set().union(*_hidden_now(replay, p).values())
                for c, q in out:
                    if c not in still:
                        chance.exposed[c] = (k, q, sorted(held_before[q] - {c}))
                        unexposed.discard(c)
            unexposed -= now
        if chance.calm:
            _follow_calm(chance, replay, p, now, taken[k], barred)
        if fm_left is not None and keep >= 0 and not replay.fm and not replay.fm_order:
            # the spell resolved: the card no step chose went under the others by rule
            for c in fm_left:
                if c != taken[k]:
                    put_back[c] = -1 - keep  # (a keep's need, not a step's)
        if put_back:
            # (A reshuffle does not unpin: a world replays the real reshuffle orders, all but the
            # last one's bottom cards, which no later draw reaches, so a place's card still comes
            # out at the same draw in every world, and a draw the seat sees still fixes its class.
            # Clearing the places there left 9 of 10 usual draws falling back at late 5-player
            # positions where two put-back cards came out in view after three reshuffles.)
            for c in chance.drawn:
                if c in put_back and c in now:
                    at = put_back.pop(c)
                    if at >= 0:
                        chance.seen_at[at] = cls[c]
                    else:
                        chance.keep_needs.setdefault(-1 - at, Counter())[cls[c]] += 1
            waiting = set(replay.fm_order) | set(replay.forest)  # (put back when the order is done)
            for c in [c for c in put_back if c not in waiting]:
                del put_back[c]  # left unseen, or taken by a Forest Magic (the seat sees a set)
    for k, c in chance.seen_at.items():
        chance.keep_needs.setdefault(keep_of[k], Counter())[c] += 1
    for name in ("_find", "_roll", "_shuffle_order", "_draw_forest", "_fm_sets"):
        delattr(replay, name)  # the engine's own methods again (the replay is kept as the present)
    return seen, taken, barred, secret, replay, chance


class _Chance:
    """The chance of a replay, as it fell: every die, every reshuffle's order, and the fewest cards
    the forest deck has held since the last reshuffle (``low``: its bottom ``low`` cards have not
    moved since, and nobody has seen them)."""

    def __init__(self) -> None:
        self.rolls: list[int] = []
        self.orders: list[list[int]] = []
        self.low = 0
        self.drawn: list[int] = []  # the cards drawn during the step being replayed
        # Put-back steps of another caster's Forest Magic whose card later left the deck in a
        # single draw the seat saw (into its own hand, or turned up to be fought), with no
        # Forest Magic take in between: step -> the card's class. Deck sizes are public and a
        # world replays the real reshuffle orders (``_rearrange_deck``), so in every world the
        # card at that place comes out at that draw: any other class there fails the replay.
        self.seen_at: dict[int, int] = {}
        # For each Forest Magic keep of another caster: the classes its later put-back steps must
        # place (``seen_at``), so a keep that leaves the pool without them is refused at once.
        self.keep_needs: dict[int, Counter] = {}
        # Each hidden gift step: (which sequence of gifts, the recipient), both public (the
        # giver names the recipient before the card).
        self.gift_to: dict[int, tuple[int, int]] = {}
        # Per step, for what the hands of a gift must hold (``_gift_needs``): who moved, who drew
        # each card drawn from the deck, whether the deck changed otherwise (a reshuffle, a
        # Forest Magic take), and each card a hand lost (-1) or gained (+1) otherwise, with its
        # hand type where the seat saw it, else None. All the seat's to know.
        self.movers: list[int | None] = []  # (who moved at each step)
        self.unseen_moves: set[int] = set()  # steps whose choice the seat did not see
        self.needs_memo: dict = {}  # ``_gift_needs`` per (hidden steps, runs)
        # hidden gifts that sent a seen copy while the giver held one the seat never saw
        self.copy_choice: set[int] = set()
        self.step_draws: list[list[int]] = []
        self.stirred_at: list[bool] = []
        self.changes: list[list[tuple[int, int, int | None]]] = []
        # Each reshuffle's deck as it came out: card -> its place (0 the bottom).
        self.places: list[dict[int, int]] = []
        # Cards *calm* since a reshuffle (its index): nobody has seen them since and no step has
        # moved them but a draw face down into another hand, which still holds them; such a card
        # and another calm one since the same reshuffle could have swapped places in it as far as
        # the seat can tell (``_rearrange_deck``). ``held``: the calm cards in a hand, card ->
        # (the hand, what ``barred`` held for the card when it was drawn).
        self.calm: dict[int, int] = {}
        self.held: dict[int, tuple[int, set[int]]] = {}
        self.drawers: list[int] = []  # who drew each card of ``drawn``
        self.stirred: list[int] = []  # the cards a Forest Magic took during the step being replayed
        # Cards hidden from the seat at the start that left its hidden places later out of another
        # player's hand (played, paid, given to the seat or into view, or known there): card ->
        # (the step, that player, the hand's other cards). Until then the seat could not tell
        # which card it was (``_swap_before_sighting``).
        self.exposed: dict[int, tuple[int, int, list[int]]] = {}
        # Each step where another seat chose unseen among cards: the hand the chosen card goes to
        # (a gift's recipient, a Forest Magic caster), and the cards it chose among.
        self.pools: dict[int, tuple[int, list[int]]] = {}


def _track_chance(replay: "AlakazumState") -> _Chance:
    """Follow ``replay``'s chance (instance overrides of the engine's methods, which the caller
    removes): every card leaves the deck through a draw (``_draw_forest``) or a Forest Magic
    spell's take (``_fm_sets`` just before it)."""
    out = _Chance()
    roll, order_of, draw, fm_sets = replay._roll, replay._shuffle_order, replay._draw_forest, replay._fm_sets

    def die() -> int:
        out.rolls.append(roll())
        return out.rolls[-1]

    def shuffle_order(n: int) -> list[int]:
        order = order_of(n)
        out.orders.append(order)
        out.low = n
        deck = replay.forest  # (before the shuffle: the character going back is on it already)
        out.places.append({deck[i]: j for j, i in enumerate(order)})
        for c in deck:
            out.calm.setdefault(c, len(out.orders) - 1)
        return order

    def draw_forest(q: int) -> int:
        card = draw(q)
        out.low = min(out.low, len(replay.forest))
        out.drawn.append(card)
        out.drawers.append(q)
        return card

    def take_for_forest_magic(q: int, take: int) -> None:
        fm_sets(q, take)
        out.stirred += replay.forest[len(replay.forest) - take:]
        out.low = min(out.low, len(replay.forest) - take)

    replay._roll = die
    replay._shuffle_order = shuffle_order
    replay._draw_forest = draw_forest
    replay._fm_sets = take_for_forest_magic
    return out


def _follow_calm(chance: _Chance, replay: "AlakazumState", p: int, now: set[int], took: int,
                 barred: dict[int, set[int]]) -> None:
    """After a step: the cards that stopped being calm (``_Chance.calm``) at it, and those another
    player drew face down."""
    calm, held = chance.calm, chance.held
    is_hand = replay.game.cs.is_hand
    for c, q in zip(chance.drawn, chance.drawers):
        if c in calm:
            if q != p and is_hand[c]:
                held[c] = (q, set(barred.get(c, ())))
            else:  # drawn in view
                del calm[c]
    gone = [c for c in chance.stirred if c in calm]
    chance.stirred.clear()
    if took in calm:
        gone.append(took)
    gone += [c for c in now if c in calm]
    gone += [c for c, (q, _) in held.items() if c not in replay.hands[q]]
    for c in gone:
        calm.pop(c, None)
        held.pop(c, None)


def _rearrange_deck(present: "AlakazumState", p: int, seen: set[int], barred: dict[int, set[int]],
                    chance: _Chance, rng: np.random.Generator, trade: bool = True):
    """The world's reshuffle orders, with the places of cards ``p`` cannot follow drawn again.

    A reshuffle loses the order ``p`` knew, not the cards. The last reshuffle's bottom
    ``chance.low`` cards, which nothing has moved and nobody has seen since, lie in a new random
    order among themselves. And a card ``p`` saw go into the deck before a reshuffle (a Forest
    Magic's put-back card, a character a lost fight returned) and has not seen since, *calm*
    (``_Chance.calm``), could be any other card calm since that reshuffle as far as ``p`` can
    tell: still in the deck, or drawn face down by another player who still holds it. Kept by id
    at its real place it would tell a search which hand holds it (at a 5-player position of
    issue 13's probe, seat 2's worlds left a Txapela in the hand that really drew it 20 times in
    20, and no world held it elsewhere). So each such card trades places, in that reshuffle's
    order, with a random calm card of it (itself included) whose place it can take: a place in
    a hand needs a hand card its holder could hold (an Alakazum the holder showed since the draw
    allows it). A never-seen card fits any place (the relabelling gives it a label that fits), so
    the choices do not hang on where the seen card really is; should the relabelling then find
    too few never-seen hand cards for the hands, the caller deals again without trades
    (``trade=False``). From that reshuffle on the two cards follow each other's path, which
    no one saw and no step chose, so every step of the history replays and reads to ``p`` as it
    did. A never-seen card is relabelled afterwards anyway (``_relabelling``, which sees the
    hands as dealt here); what this adds is that the seen ones move. The odds are those of a
    uniform choice among the places that fit, not the seat's exact ones (what a place's later
    history tells is not weighed).

    Returns the orders, the position as dealt (``present`` itself when no card moved) and the
    ``barred`` map to relabel with (what an Alakazum showed of a hand since a draw belongs to
    the place, so it goes with the card now there)."""
    orders = [order[:] for order in chance.orders]
    here, bars = present, barred
    if trade:
        orders, here, bars = _trade_calm_places(orders, present, p, seen, barred, chance, rng)
    if orders and chance.low > 1:  # (after the trades: they read the places as the real orders left them)
        low = chance.low
        orders[-1] = [orders[-1][i] for i in rng.permutation(low).tolist()] + orders[-1][low:]
    return orders, here, bars


def _trade_calm_places(orders: list[list[int]], present: "AlakazumState", p: int, seen: set[int],
                       barred: dict[int, set[int]], chance: _Chance, rng: np.random.Generator):
    """The trades of ``_rearrange_deck``, made in ``orders`` (the real ones, copied)."""
    calm, held = chance.calm, chance.held
    # While another player pays a spell, its choosing the spell showed its hand holds hats worth
    # what is left to pay (``_hats_owed``, counted on the hand as it stands): its calm cards stay.
    pend = present.pending
    paying = pend["p"] if pend is not None and pend["k"] == "pay_spell" and pend["p"] != p else None
    if paying is not None:
        calm = {c: j for c, j in calm.items() if c not in held or held[c][0] != paying}
    movable = sorted(c for c in calm if c in seen)
    if not movable:
        return orders, present, barred
    cs = present.game.cs
    places = [dict(at) for at in chance.places]
    # a calm card's place now: the hand holding it or the deck; ``occupant``: place (named by
    # the card really there) -> the card there in the world
    place_of = {c: c for c in calm}
    occupant = {c: c for c in calm}
    shown = {c: barred.get(c, set()) - snap for c, (_, snap) in held.items()}

    def fits(card: int, place: int) -> bool:
        if place not in held or card not in seen:  # (a never-seen card is relabelled to fit)
            return True
        if not cs.is_hand[card]:
            return False
        bar = shown[place]
        e = cs.effect[card]
        return not bar or not (e == "amulet" or (e == "culture_object" and cs.cards[card].culture in bar))

    for s_card in [movable[i] for i in rng.permutation(len(movable)).tolist()]:
        j = calm[s_card]
        at = places[j]
        mine = place_of[s_card]
        options = [c for c in calm if calm[c] <= j and c in at
                   and fits(s_card, place_of[c]) and fits(c, mine)]
        other = options[int(rng.integers(len(options)))] if options else s_card
        if other == s_card:
            continue
        # the two trade places in reshuffle j, and so every later deck holds one where the other was
        o, i, k = orders[j], at[s_card], at[other]
        o[i], o[k] = o[k], o[i]
        for later in places[j:]:
            x, y = later.pop(s_card, None), later.pop(other, None)
            if x is not None:
                later[other] = x
            if y is not None:
                later[s_card] = y
        yours = place_of[other]
        place_of[s_card], place_of[other] = yours, mine
        occupant[yours], occupant[mine] = s_card, other
    moved = {place: c for place, c in occupant.items() if c != place}
    if not moved:
        return orders, present, barred
    here = present.clone()
    bars = dict(barred)
    for place, c in moved.items():
        if place in held:
            hand = here.hands[held[place][0]]
            hand[hand.index(place)] = c
            rest = barred.get(place, set()) - shown[place]
            if rest:
                bars[place] = rest
            else:
                bars.pop(place, None)
        else:
            here.forest[here.forest.index(place)] = c
    for place, c in moved.items():
        if place in held and shown[place]:
            bars[c] = bars.get(c, set()) | shown[place]
    here._reset_caches()
    return orders, here, bars


def _routing_rng(origin: "AlakazumState", p: int, actions: list[int]) -> np.random.Generator:
    """The generator of ``_route_copies``' chance choices: seeded by the position itself (its start
    and history, the seat), so the analysis, kept per position (``_history_facts``), is the same
    for every copy of a state, and a seeded draw does not depend on which draws came before it."""
    key = repr((p, origin.start.get("rng") if origin.start else None, actions)).encode()
    return np.random.default_rng(zlib.crc32(key))


def _route_copies(replay: "AlakazumState", p: int, seen: set[int], moved: set[int],
                  hiding: list[bool], rng: np.random.Generator) -> None:
    """Make ``replay`` choose, whenever another hand gives up a card of a type (played, paid,
    given away), which of its identical copies goes, by what ``p`` saw rather than by the
    engine's order (the last copy of the hand).

    Which copy leaves is no information (copies are identical, knowledge is by type), but the
    resampler keeps every card ``p`` ever saw by id, on the route its source gave it: a choice of
    copies that differs between two histories the seat cannot tell apart leaves different cards
    pinned, and the worlds drawn from the two differ. So every such history is routed by one rule:

    - a card leaving *in view* (played, paid, shown) is a copy ``p`` knows is in that hand, else
      one it has seen that no hidden choice of another seat moved (the seen ones go first, so
      fewer stay pinned: 2026-12-04), else one drawn by chance among the rest, copies it never
      saw and copies a hidden choice may have moved alike (``_routing_rng``). Each fixed rule
      there pinned one kind of world: paying a copy a hidden gift brought tied the gift, which a
      world chooses again, to the route of a card seen later (the shared kit's ``KIT_SEED=25``: a
      world whose gift had sent player 0 the Magic hat 1 it paid later held the seen Barretina in
      that hand in 2 of 100 worlds, the truth, whose hat had reached player 0 another way, in 46),
      and keeping it kept that seen copy in a hand where the truth's hidden copy was a never-seen
      one, free to lie in the deck (``KIT_SEED=49``: a world's worlds held it in the deck in 0 of
      300 draws, the truth's in 0.64). By chance, each kind of world leads to the other (0.23
      against 0.64 since; docs/games/alakazum.md, Known gaps);
    - a card another seat gives *face down* goes as one leaving in view, unless the giver is the
      next of the two to lose that type in view (``_gift_plan``; ``hiding[0]``, set by the caller
      for the step): then it is a copy ``p`` never saw, else any, so the copy the giver shows later
      is the seen one (at the same position, the gift had sent a Magic hat 1 the seat knew of,
      which the truth's player 1 showed at the market later), and the gift's card stays unseen.

    ``seen`` and ``moved`` (the cards another seat's hidden choice took) are the caller's sets,
    grown as the replay goes."""
    ht = replay.game.cs.htype
    engine_find = replay._find
    # a chance choice, kept: ``_taken`` asks which card a gift takes before the step, the engine
    # asks again within it, and both must get the same copy
    chosen: dict = {}

    def find(q: int, t: int) -> int:
        if q == p:
            return engine_find(q, t)
        if not hiding[0]:
            # A copy p knows is in that hand first: seeing a card of the type leave, p forgets
            # the first known copy of it (rules ``_row_loses``), so the analysis has that one
            # leave. Sending another seen copy instead kept the known one in the hand, unknown
            # now and pinned by id, where a history with one copy there pins none (the shared
            # kit, KIT_SEED=19: a world's worlds held a second Combat potion +2 in that hand 40
            # times in 40, the truth's once).
            for c in replay.known[p][q]:
                if ht[c] == t:
                    return c
        best, rank = -1, 3
        hand = replay.hands[q]
        ties = []
        for i in range(len(hand) - 1, -1, -1):
            c = hand[i]
            if ht[c] == t:
                if hiding[0]:
                    r = 0 if c not in seen else 1
                else:
                    r = 0 if c in seen and c not in moved else 1
                if r < rank:
                    best, rank, ties = c, r, [c]
                elif r == rank:
                    ties.append(c)
        if rank == 1 and not hiding[0] and len(ties) > 1:
            key = (q, t, tuple(hand))
            if key not in chosen:
                chosen[key] = ties[int(rng.integers(len(ties)))]
            return chosen[key]
        return best if best >= 0 else engine_find(q, t)

    replay._find = find


# Greedy tries of _assign before the complete matching (none of 874 resamples over five random
# 5-player games needed it; the matching is the guarantee, not the usual path).
ASSIGN_TRIES = 8


def _assign(cs, need_hand: list[int], need_other: list[int], free: list[int], barred: dict[int, set[int]],
            rng: np.random.Generator) -> dict[int, int]:
    """A random bijection of the never-seen cards onto themselves: a card in another hand gets a
    hand card (and none an Alakazum would have shown), a kept Forest Magic card a non-hand card,
    the rest any. Most constrained positions first, greedily; after ``ASSIGN_TRIES`` unlucky
    tries, a complete random matching (``_random_matching``). Never the identity for lack of
    luck: that would be the real deal, a world that tells a search where every card is."""
    cards = need_hand + need_other + free
    hand_set = set(need_hand)
    other_set = set(need_other)

    def allowed(c: int, d: int) -> bool:
        if c in hand_set:
            return bool(cs.is_hand[d]) and not _shown_absent(cs, barred.get(c), d)
        if c in other_set:
            return not cs.is_hand[d]
        return True

    options = {c: [d for d in cards if allowed(c, d)] for c in cards}
    for _ in range(ASSIGN_TRIES):
        order = sorted(cards, key=lambda c: (len(options[c]), rng.random()))
        left = set(cards)
        sigma: dict[int, int] = {}
        for c in order:
            choice = [d for d in options[c] if d in left]
            if not choice:
                break
            d = choice[int(rng.integers(len(choice)))]
            sigma[c] = d
            left.discard(d)
        else:
            return sigma
    return _random_matching(cards, options, rng)


def _shown_absent(cs, bar: set[int] | None, d: int) -> bool:
    """Whether card ``d`` is one an Alakazum of the hand would have shown (an amulet, an object of
    a culture in ``bar``: the cultures conjured while the hand held the place's card)."""
    if not bar:
        return False
    e = cs.effect[d]
    return e == "amulet" or (e == "culture_object" and cs.cards[d].culture in bar)


def _random_matching(cards: list[int], options: dict[int, list[int]], rng: np.random.Generator) -> dict[int, int]:
    """A perfect matching of ``cards`` onto themselves within ``options``, at random: augmenting
    paths (Kuhn's algorithm) taken in random orders, then random swaps of two cards' labels that
    both still allow, to move away from where the paths landed. One exists (the identity), so
    the paths always complete."""
    match: dict[int, int] = {}  # label -> card
    allowed = {c: set(options[c]) for c in cards}

    def augment(c: int, seen: set[int]) -> bool:
        for j in rng.permutation(len(options[c])):
            d = options[c][int(j)]
            if d in seen:
                continue
            seen.add(d)
            if d not in match or augment(match[d], seen):
                match[d] = c
                return True
        return False

    for i in rng.permutation(len(cards)):
        if not augment(cards[int(i)], set()):  # pragma: no cover - the identity is a matching
            raise RuntimeError("Alakazum! resampling: no relabelling keeps what the seat saw")
    sigma = {c: d for d, c in match.items()}
    n = len(cards)
    for _ in range(20 * n if n > 1 else 0):
        a, b = cards[int(rng.integers(n))], cards[int(rng.integers(n))]
        if a != b and sigma[b] in allowed[a] and sigma[a] in allowed[b]:
            sigma[a], sigma[b] = sigma[b], sigma[a]
    return sigma


# Relabellings drawn, while another player pays a spell, before its largest hats are kept in place
HAT_TRIES = 64


def _hats_owed(state: "AlakazumState", p: int, hidden: set[int]) -> tuple[int, int] | None:
    """While another player ``q`` pays a spell: (``q``, the hat value its never-seen cards must
    still hold). Choosing the spell showed ``q`` holds hats worth what is left to pay; which hats
    is hidden, so the relabelling must leave ``q`` enough of them, whichever they are."""
    pend = state.pending
    if pend is None or pend["k"] != "pay_spell" or pend["p"] == p:
        return None
    cs = state.game.cs
    q = pend["p"]
    need = pend["rem"] - sum(cs.value[c] for c in state.hands[q] if cs.effect[c] == "hat" and c not in hidden)
    return (q, need) if need > 0 else None


def _pays(cs, hand: list[int], need: int, sigma: dict[int, int]) -> bool:
    """Whether ``hand``'s never-seen cards, relabelled by ``sigma``, hold hats worth ``need``."""
    worth = 0
    for c in hand:
        d = sigma.get(c)
        if d is not None and cs.effect[d] == "hat":
            worth += cs.value[d]
    return worth >= need


def _hats_being_paid(state: "AlakazumState", p: int, hidden: set[int]) -> set[int]:
    """The fallback when ``HAT_TRIES`` relabellings all left a paying player too few hats (see
    ``_hats_owed``): enough of its never-seen hats stay where they are (the largest first)."""
    pend = state.pending
    if pend is None or pend["k"] != "pay_spell" or pend["p"] == p:
        return set()
    cs = state.game.cs
    q = pend["p"]
    hats = [c for c in state.hands[q] if cs.effect[c] == "hat"]
    need = pend["rem"] - sum(cs.value[c] for c in hats if c not in hidden)
    out = set()
    for c in sorted((c for c in hats if c in hidden), key=lambda c: (-cs.value[c], c)):
        if need <= 0:
            break
        out.add(c)
        need -= cs.value[c]
    return out


def _deep(v):
    if isinstance(v, dict):
        return {k: _deep(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_deep(x) for x in v]
    return v
