"""Alakazum!'s information state: observation vector, text, invariants (resampling: resample.py).

Hidden from a seat: the other hands (except cards it saw go in, and what it still knows of them
after they gave cards away unseen: groups and their joint count, rules note 15), the forest
deck's order and content (except the top cards it put back itself with Forest Magic, in order,
or as a set once another caster's Forest Magic took them, rules note 18), the final enemies it
has not seen, and another caster's Forest Magic cards. Everything else is public.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kabenvs.core.observation import ObservationLayout
from kabenvs.games.alakazum.cards import CULTURES, MULTI, SPELLS, TRAP_EFFECTS

# A module-level import (rules.py imports this module only inside functions, so there is no
# cycle): the import statement that stood inside encode cost ~1 us on every observation.
from kabenvs.games.alakazum.rules import (
    ANNOUNCED,
    DECISION_INDEX,
    DECISIONS,
    MAX_FINALS,
    MAX_GROUPS,
    MAX_PLAYS,
    SANTA_ROWS,
)

if TYPE_CHECKING:
    from kabenvs.games.alakazum.rules import AlakazumGame, AlakazumState

FOREST_KNOWN = 5  # Forest Magic puts back at most 5 cards
POTIONS = ("combat_potion", "die_potion", "double_potion", "steal_potion")
STAGE_INDEX = {"setup": 0, "explore": 1, "action": 2, "alakazum": 3}  # the stage block's one-hot
ANNOUNCED_INDEX = {a: i for i, a in enumerate(ANNOUNCED)}  # ANNOUNCED.index, without the scan
TRAP_INDEX = {e: i for i, e in enumerate(TRAP_EFFECTS)}
# the blocks of what is known of the hands, adjacent in the layout (public_hands: 3+ players only)
KNOWLEDGE_RUN = ("known_hands", "hand_groups", "hand_joint", "hand_capped", "mine_known", "mine_groups",
                 "mine_joint", "mine_capped", "public_hands")


def table_rows(game: AlakazumGame) -> int:
    """Every potion in play could lie on one combat table, so each gets a row (exact recall)."""
    return sum(1 for c in game.in_play_cards() if game.cs.effect[c] in POTIONS)


def market_rows(game: AlakazumGame) -> int:
    """The market pile can hold every hand card in play, so every position gets a row."""
    return sum(1 for c in game.in_play_cards() if game.cs.is_hand[c])


def build_layout(game: AlakazumGame) -> ObservationLayout:
    cs = game.cs
    n = game.config.num_players
    nch, nht, ncls = cs.num_chars, cs.num_htypes, cs.num_classes
    nfin = len(cs.finals)
    lay = ObservationLayout()
    lay.add("current", n, "one-hot, seat-relative (0 = me): who decides now")
    lay.add("turn_player", n, "one-hot, seat-relative: whose turn it is")
    lay.add("decision", len(DECISIONS), "one-hot: the decision being asked (rules.DECISIONS)")
    lay.add("stage", 4, "one-hot: setup, explore, action (phase 2), alakazum (phase 3)")
    lay.add("turn_info", 3, "turns played / max_turns, phase-2 actions left / 2, inside Deja Vu")
    lay.add("hand", nht, "my hand: cards of each hand-card type / 3")
    lay.add("hand_size", n, "hand sizes, seat-relative, / 10")
    lay.add("known_hands", (n, nht), "cards of each type I know each player holds (seat-relative; row 0 empty) / 3")
    lay.add("hand_groups", (n, MAX_GROUPS, nht + 2),
            "what I know is still in each hand after it gave cards away unseen (seat-relative): "
            "per group, its cards M by type / 3, at least r of them are there (/5), "
            "the hand's size before the first of those gifts (/10)")
    lay.add("hand_joint", (n, nht + 1),
            "the groups of each hand together (seat-relative): their cards U by type / 3 (with the "
            "copies of a type that both groups lost only once), at least J of them are there (/5); "
            "zero while J says no more than the groups' r added up")
    lay.add("hand_capped", (n, len(CULTURES) + 1),
            "since each hand's last Alakazum showed them and no card went in unseen: I account for "
            "every culture object of that culture (5) / every amulet (1) it holds")
    # the same four tables the other way round: what each other player knows of MY hand; every
    # event that changes them is one I see (docs/games/alakazum.md, "What the others know")
    lay.add("mine_known", (n - 1, nht), "what each other player knows of my hand (row i: the player "
            "i+1 seats to my left): cards of each type it knows I hold / 3")
    lay.add("mine_groups", (n - 1, MAX_GROUPS, nht + 2),
            "its groups on my hand after I gave cards away out of its sight (as hand_groups): cards M "
            "by type / 3, at least r of them are still here (/5), my hand size before the first gift (/10)")
    lay.add("mine_joint", (n - 1, nht + 1), "its joint count of those groups (as hand_joint): cards U "
            "by type / 3, at least J of them are still here (/5)")
    lay.add("mine_capped", (n - 1, len(CULTURES) + 1),
            "since my last Alakazum showed them and no card came in out of its sight: it accounts "
            "for every culture object of that culture (5) / every amulet (1) I hold")
    if n >= 3:
        # what EVERY player knows of each hand from the events all see (the public rows): the part
        # of another player's knowledge of a third hand I can follow (docs/games/alakazum.md)
        lay.add("public_hands", (n, public_width(nht)), "per hand (seat-relative, row 0 = mine), what "
                "every player knows of it from the events all players saw: cards of each type it surely "
                "holds (/3), its groups (as hand_groups), their joint count (as hand_joint), what its "
                "last Alakazum accounted for (as hand_capped)")
    lay.add("team", (n, nch, 3), "one-hot level A/B/C of each character in each team (seat-relative)")
    lay.add("broom", (n, nch), "1 where the character in that team has a broom")
    lay.add("culture_points", (n, 5), "culture points of each team's characters per culture / 10")
    lay.add("energy", n, "very-magical energy of each team / 4")
    lay.add("graveyard", nch, "1 for each character in the forest graveyard")
    lay.add("display", nch, "1 for each initial character still on display (setup)")
    lay.add("market", (market_rows(game), nht), "the whole market pile in order: one-hot type of each card "
            "(row 0 = top; as many rows as hand cards in play)")
    lay.add("market_count", nht, "market pile cards of each type / 4")
    lay.add("piles", 3, "market size / 20, forest deck size / 90, Forest Magic cards out / 6")
    lay.add("forest_known", (FOREST_KNOWN, ncls), "one-hot class of the forest deck's top cards I know (row 0 = top)")
    lay.add("forest_set", 3, "the deck top I knew, after another caster's Forest Magic took it or a "
            "reshuffle mixed it into the deck: how many top cards hold it (/6; 1 for the whole deck), "
            "at least r of the 'some' cards are there (/5), 1 when it is the whole deck (more than 6)")
    lay.add("forest_set_cards", (2, ncls),
            "those top cards hold: the 'sure' cards, and r of the 'some' cards (class counts)")
    lay.add("forest_magic", ncls, "my Forest Magic cards still to place (class counts) while I cast it")
    lay.add("forest_magic_placed", (FOREST_KNOWN, ncls), "my Forest Magic cards put back so far, in order (row 0 = top)")
    lay.add("forest_magic_kept", ncls, "the character or trap I kept with Forest Magic, until it strikes")
    lay.add("finals_known", (MAX_FINALS, nfin), "one-hot identity of each final-enemy position I know")
    lay.add("finals_state", (MAX_FINALS, 3), "per position: in play, revealed, seen by me")
    lay.add("finals_seen", (MAX_FINALS, n), "per position: how many times each player looked at it with "
            "Clairvoyance (seat-relative; a second look at a known card is public too)")
    lay.add("boxed", len(TRAP_EFFECTS) + 1, "traps in the box (one per kind) and voodoo dolls in the box / 2")
    lay.add("combat_kind", 2, "one-hot: forest combat, combat between players")
    lay.add("combat_seats", (2, n), "one-hot seats of attacker (row 0) and defender (row 1)")
    lay.add("combat_chars", (4, nch), "fighter, attacker's helper, target/forest character, defender's helper")
    lay.add("combat_points", 6, "attacker base, defender base, attacker potions, defender potions (/10), "
            "attacker potion count, defender potion count (/5)")
    lay.add("combat_table", (table_rows(game), nht + 2), "potions on the combat table, last played first: one-hot "
            "type, played by the defender, played on the die (a steal takes the rival's last potion)")
    lay.add("combat_die", 4, "roll, die potions, resistance to beat (/6), winner is attacker")
    lay.add("announced", (MAX_PLAYS, len(ANNOUNCED) + 2),
            "the plays announced this turn, in order (kept after they resolve): one-hot play; "
            "its voodoo window is open; it was cancelled")
    lay.add("announced_detail", (MAX_PLAYS, len(SPELLS) + len(CULTURES) + nht + nch),
            "each play's spell, culture, card shown, target")
    lay.add("cancelled_by", (MAX_PLAYS, n), "who cancelled each play with a voodoo doll (seat-relative)")
    lay.add("santa_chain", (SANTA_ROWS, n + 1),
            "Santa Claus' rolls this turn, latest first (kept after the chain ends): one-hot holder "
            "(seat-relative), roll / 6 (a 3+ passed the die to the holder of the row above; under 3 ended "
            "that chain)")
    lay.add("santa_rolls", 1, f"Santa Claus' rolls this turn / {SANTA_ROWS} (more than {SANTA_ROWS}: "
            "the earliest have no row)")
    lay.add("spell_paid", len(SPELLS), "one-hot: the spell being paid for (announced before the hats)")
    lay.add("hats_paid", nht, "hats paid for the spell so far, on the table until it resolves (types) / 3")
    lay.add("pending_misc", 6, "cards left to give /5, energy left to pay /4, Santa Claus roll /6, "
            "Unlucky Witch takes left /2, bidding passes /2, voodoo players still to ask /4")
    lay.add("give_to", n, "recipient chosen for the card being given (seat-relative)")
    lay.add("levitation", nch, "my character chosen for Levitation")
    # encode copies each of these runs of blocks in one piece (_knowledge_section, _team_group,
    # _finals_rows, which compute the offsets inside a run from the blocks' starts or shapes): a
    # layout edit that splits a run must fail here, not shift entries silently
    for run in (KNOWLEDGE_RUN[:-1] if n < 3 else KNOWLEDGE_RUN,
                ("team", "broom", "culture_points", "energy", "graveyard", "display"),
                ("finals_known", "finals_state", "finals_seen")):
        assert all(lay[a].stop == lay.offset(b) for a, b in zip(run, run[1:])), f"blocks {run} must be adjacent"
    return lay


def _scratch(size: int) -> memoryview:
    """``size`` zeroed float32 entries for a memoised section, as a memoryview: on a bytearray it
    costs ~0.7 us against ~1.2 us on a numpy array, and writes through it are the same float32
    conversions (the observation's own vector is written through a memoryview of format 'f' too)."""
    return memoryview(bytearray(4 * size)).cast("f")


def _knowledge(mv: memoryview, ht, nht: int, known: list, groups: list, joint: list, capped: list,
               known0: int, groups0: int, joint0: int, capped0: int) -> None:
    """Write what one seat knows of one hand (rules note 15: certain cards, groups, their joint
    count, what an Alakazum showed) at the given offsets, through the observation's memoryview
    ``mv`` (see encode); groups take ``nht + 2`` floats each."""
    for c in known:
        mv[known0 + ht[c]] += 1 / 3
    gw = nht + 2
    for j, (cards_m, r_m, n0) in enumerate(groups):
        base = groups0 + j * gw
        for c in cards_m:
            mv[base + ht[c]] += 1 / 3
        mv[base + nht] = r_m / 5
        mv[base + nht + 1] = n0 / 10
    if joint:
        for c in joint[0]:
            mv[joint0 + ht[c]] += 1 / 3
        mv[joint0 + nht] = joint[1] / 5
    for u in capped:
        mv[capped0 + u] = 1


def public_width(nht: int) -> int:
    """Floats per hand in the ``public_hands`` block: certain cards, the groups, the joint count,
    the Alakazum cap (the same parts as a seat's rows on a hand, side by side)."""
    return nht + MAX_GROUPS * (nht + 2) + nht + 1 + len(CULTURES) + 1


def _public_rows(state: AlakazumState, nht: int) -> memoryview:
    """What everyone knows of each hand, one row of ``public_width`` floats per hand in absolute
    order, flattened. Every seat reads the same rows, only rotated: they are encoded once per state
    (``state._public_enc``; the rules put a hand in ``state._public_dirty`` whenever its public row
    changes, and only those rows are encoded again)."""
    enc = state._public_enc
    if enc is None:
        enc = state._public_enc = np.zeros((state.num_players, public_width(nht)), dtype=np.float32)
        state._public_flat = memoryview(enc.reshape(-1))
        state._public_dirty = set(range(state.num_players))
    dirty = state._public_dirty
    if dirty:
        ht = state.game.cs.htype
        groups0 = nht
        joint0 = groups0 + MAX_GROUPS * (nht + 2)
        capped0 = joint0 + nht + 1
        for q in dirty:
            row = enc[q]
            row[:] = 0.0
            _knowledge(memoryview(row), ht, nht, state.public_known[q], state.public_groups[q],
                       state.public_joint[q], state.public_capped[q], 0, groups0, joint0, capped0)
        dirty.clear()
    return state._public_flat


_ZEROS = _scratch(1024)  # never written: the source _hand_rows clears rows from (grown on demand)


def _zeros(size: int) -> memoryview:
    """``size`` zero floats to copy over a row (a slice of one kept vector: allocating a fresh
    one for each row cost ~0.7 us)."""
    global _ZEROS
    if size > len(_ZEROS):
        _ZEROS = _scratch(size)
    return _ZEROS[:size]


def _section_geometry(state: AlakazumState) -> tuple:
    """The offsets _hand_rows writes at, relative to the start of the knowledge section, with the
    widths it needs: worked out once per kept section instead of on every rewrite."""
    g = state.game
    at, nht = g.at, g.cs.num_htypes
    base = at.known_hands
    n = state.num_players
    # the public rows: one per hand (no block with 2 players: width 0)
    pub0, pw = (at.public_hands - base, public_width(nht)) if state.public_known else (0, 0)
    return (n, nht, g.cs.htype, nht + 2, len(CULTURES) + 1,
            at.known_hands - base, at.hand_groups - base, at.hand_joint - base, at.hand_capped - base,
            at.mine_known - base, at.mine_groups - base, at.mine_joint - base, at.mine_capped - base,
            pub0, pw)


def _hand_rows(state: AlakazumState, player: int, sec: memoryview, q: int, extra: list, geom: tuple) -> None:
    """(Re)write in ``player``'s knowledge section ``sec`` (_knowledge_section) every row about
    hand ``q``: another hand's rows of known_hands, hand_groups, hand_joint and hand_capped (what
    ``player`` knows of it), or for ``player``'s own hand all the mine_* rows (what each other seat
    knows of it); then the hand's public_hands row. Rows are cleared and then written as the
    observation used to write them into its zeroed vector, so the float32 sums are the same.
    ``extra[q]``: the groups, joint or capped rows about hand q hold something (most stay empty,
    and only a row that holds something needs clearing). ``geom``: _section_geometry."""
    n, nht, ht, gw, ncap, kh0, hg0, hj0, hc0, mk0, mg0, mj0, mc0, pub0, pw = geom
    r = (q - player) % n
    if r:
        kh, hg, hj, hc = kh0 + r * nht, hg0 + r * MAX_GROUPS * gw, hj0 + r * (nht + 1), hc0 + r * ncap
        sec[kh:kh + nht] = _zeros(nht)
        for c in state.known[player][q]:
            sec[kh + ht[c]] += 1 / 3
        if extra[q]:
            sec[hg:hg + MAX_GROUPS * gw] = _zeros(MAX_GROUPS * gw)
            sec[hj:hj + nht + 1] = _zeros(nht + 1)
            sec[hc:hc + ncap] = _zeros(ncap)
        gr, jt, cap = state.groups[player][q], state.joint[player][q], state.capped[player][q]
        extra[q] = bool(gr or jt or cap)
        if extra[q]:
            _knowledge(sec, ht, nht, (), gr, jt, cap, kh, hg, hj, hc)
    else:
        sec[mk0:mg0] = _zeros(mg0 - mk0)
        if extra[q]:  # the mine_groups, mine_joint and mine_capped blocks, one after the other
            end = mc0 + (n - 1) * ncap
            sec[mg0:end] = _zeros(end - mg0)
        known, groups, joint, capped = state.known, state.groups, state.joint, state.capped
        extra[q] = False
        for i in range(n - 1):
            o = (player + i + 1) % n
            row = mk0 + i * nht
            for c in known[o][player]:
                sec[row + ht[c]] += 1 / 3
            gr, jt, cap = groups[o][player], joint[o][player], capped[o][player]
            if gr or jt or cap:
                extra[q] = True
                _knowledge(sec, ht, nht, (), gr, jt, cap, row, mg0 + i * MAX_GROUPS * gw,
                           mj0 + i * (nht + 1), mc0 + i * ncap)
    if pw:  # three players or more: the public row, copied from the shared rows
        lo = pub0 + r * pw
        sec[lo:lo + pw] = _public_rows(state, nht)[q * pw:(q + 1) * pw]


def _knowledge_section(state: AlakazumState, player: int) -> memoryview:
    """``player``'s rows of known_hands through public_hands (KNOWLEDGE_RUN, adjacent in the
    layout) as one float32 memoryview, kept per viewer in ``state._know_memo`` with the version of
    each hand it was written at: the rules count every change of what anyone knows of hand p in
    ``state._know_ver[p]``, and only the rows about hands whose count moved are written again.
    Writing all rows was the largest part of a 5-player observation (~2 x 4 rows of ~7 cards, one
    item write per card)."""
    memo = state._know_memo.get(player)
    ver = state._know_ver
    if memo is None:
        lay = state.game.layout
        last = KNOWLEDGE_RUN[-1] if state.public_known else KNOWLEDGE_RUN[-2]
        sec = _scratch(lay[last].stop - lay.offset(KNOWLEDGE_RUN[0]))
        extra = [False] * state.num_players
        geom = _section_geometry(state)
        for q in range(state.num_players):
            _hand_rows(state, player, sec, q, extra, geom)
        state._know_memo[player] = (sec, ver[:], extra, geom)
        return sec
    sec, seen, extra, geom = memo
    if seen != ver:
        for q, v in enumerate(ver):
            if seen[q] != v:
                _hand_rows(state, player, sec, q, extra, geom)
                seen[q] = v
    return sec


def _team_blocks(state: AlakazumState) -> tuple:
    """The team, broom and culture_points blocks and the energy entries of every seat in seat
    order, twice over (rows 0..n-1, then the same rows again), as float32 memoryviews: a
    viewer's seat-relative rows are then one contiguous slice of each (``player`` to
    ``player + n``), four copies an observation instead of three slices and a write per seat.
    Each seat's entries are the same writes, in the same order, as the observation used to make
    in place, so the culture points add up to the same float32 values. Last, the graveyard and
    display blocks (every seat reads them alike). A team changes on a few events only (rules.py
    clears ``state._team_memo`` on each, and on every change of the graveyard or the display)."""
    cs = state.game.cs
    n, nch = state.num_players, cs.num_chars
    team_entry, level, broom = cs.team_entry, state.level, state.broom
    nch3 = nch * 3
    # the four doubled blocks in one scratch vector: team 2n x nch3, broom 2n x nch, points 2n x 5,
    # energy 2n
    br0, cp0, en0 = 2 * n * nch3, 2 * n * (nch3 + nch), 2 * n * (nch3 + nch + 5)
    gy0 = en0 + 2 * n
    mv = _scratch(gy0 + 2 * nch)
    for q in range(n):
        t0, b0, p0 = q * nch3, br0 + q * nch, cp0 + q * 5
        energy = 0
        for c in state.teams[q]:
            k, culture, points, en = team_entry[c]
            lv = level[c]
            mv[t0 + k * 3 + lv] = 1
            if broom[c] >= 0:
                mv[b0 + k] = 1
            pts = points[lv]
            if culture == MULTI:
                for u in range(5):
                    mv[p0 + u] += pts
            else:
                mv[p0 + culture] += pts
            energy += en
        mv[en0 + q] = energy / 4
    # the second copy of every block's rows
    for start, width in ((0, nch3), (br0, nch), (cp0, 5), (en0, 1)):
        half = n * width
        mv[start + half:start + 2 * half] = mv[start:start + half]
    ci = cs.char_index
    for c in state.graveyard:
        mv[gy0 + ci[c]] = 1
    for c in state.display:
        mv[gy0 + nch + ci[c]] = 1
    return mv[:br0], mv[br0:cp0], mv[cp0:en0], mv[en0:gy0], mv[gy0:]


def _team_group(state: AlakazumState, player: int) -> memoryview:
    """``player``'s rows of the team, broom, culture_points and energy blocks, then the graveyard
    and display blocks (all six adjacent in the layout) as one float32 memoryview: a slice of each
    of the doubled blocks and the graveyard and display rows (_team_blocks, memoised under
    "blocks" next to the viewers' groups, so the rules' clear() drops both; copying them is cheaper
    than the loops over the characters were, and a clear makes every viewer rebuild). Every rules
    write to the graveyard or the display is in a method that clears the memo too (a character
    goes there from a team, comes back into one, or is picked from the display)."""
    team_memo = state._team_memo
    blocks = team_memo.get("blocks")
    if blocks is None:
        blocks = team_memo["blocks"] = _team_blocks(state)
    team, broom, points, energy, graveyard_display = blocks
    n, nch = state.num_players, state.game.cs.num_chars
    w = nch * 3
    br0, cp0, en0 = n * w, n * (w + nch), n * (w + nch + 5)
    gy0 = en0 + n
    d0 = gy0 + nch
    mv = _scratch(d0 + nch)
    mv[:br0] = team[player * w:(player + n) * w]
    mv[br0:cp0] = broom[player * nch:(player + n) * nch]
    mv[cp0:en0] = points[player * 5:(player + n) * 5]
    mv[en0:gy0] = energy[player:player + n]
    mv[gy0:] = graveyard_display
    return mv


def _market_sections(market: list, ht: list, nht: int) -> tuple:
    """The market pile's rows (top first, as many as it holds) and its count per type, as float32
    memoryviews, written as the observation used to write them in place. The pile is public and
    changes on a minority of moves; its loop was 2.0 us of a 2-player observation. The memo is
    keyed by the pile itself (a tuple compare), so it needs no hook in the rules."""
    size = len(market)
    mv = _scratch(size * nht + nht)
    mc0 = size * nht
    top = size - 1
    for i, c in enumerate(market):
        t = ht[c]
        mv[(top - i) * nht + t] = 1
        mv[mc0 + t] += 0.25
    return mv[:mc0], mv[mc0:]


def _boxed_row(boxed: list, effect: list) -> memoryview:
    """The boxed block, written as the observation used to write it in place. The box is public
    and changes on few moves; its loop ran on nearly every observation. The memo is keyed by the
    box itself (a tuple compare), so it needs no hook in the rules."""
    mv = _scratch(len(TRAP_EFFECTS) + 1)
    for c in boxed:
        e = effect[c]
        if e == "voodoo":
            mv[len(TRAP_EFFECTS)] += 0.5
        else:
            mv[TRAP_INDEX[e]] = 1
    return mv


def _finals_rows(state: AlakazumState, player: int):
    """``player``'s finals_known, finals_state and finals_seen blocks (adjacent in the layout) as
    one float32 memoryview, written as the observation used to write them in place."""
    g = state.game
    cs, at, n = g.cs, g.at, state.num_players
    nfin = len(cs.finals)
    fin_index = cs.final_index
    fk0, fs0, fsn0 = 0, at.finals_state - at.finals_known, at.finals_seen - at.finals_known
    mv = _scratch(fsn0 + MAX_FINALS * n)
    seen, revealed, looks = state.seen, state.revealed, state.looks
    my_seen = seen[player]
    for i, f in enumerate(state.finals):
        mine, shown = my_seen[i], revealed[i]
        row = fs0 + i * 3
        mv[row] = 1
        if shown:
            mv[row + 1] = 1
        if mine:
            mv[row + 2] = 1
        if mine or shown:
            mv[fk0 + i * nfin + fin_index[f]] = 1
        for q, looks_q in enumerate(looks):
            if looks_q[i]:  # how many times q looked at it
                mv[fsn0 + i * n + (q - player) % n] = looks_q[i]
    return mv


def encode(state: AlakazumState, player: int) -> np.ndarray:
    g = state.game
    cs = g.cs
    lay = g.layout
    n = state.num_players
    nch, nht = cs.num_chars, cs.num_htypes
    ci = cs.char_index
    ht = cs.htype
    buf = np.zeros(lay.size, dtype=np.float32)
    # every write below is of one item: through a memoryview it costs half of one on the numpy
    # array (no numpy scalar is made); float32 either way
    mv = memoryview(buf)
    # the same view for the item stores: a typed buffer (float[::1]) in the compiled build
    # (encoding.pxd), so each store is a C write; the section copies stay on ``mv``
    fv = mv
    at = g.at  # the blocks' starts (rules.BlockStarts)
    pend = state.pending
    if state.current_player is not None:
        fv[at.current + (state.current_player - player) % n] = 1
    fv[at.turn_player + (state.turn_player - player) % n] = 1
    if pend is not None:
        fv[at.decision + DECISION_INDEX[pend["k"]]] = 1
    fv[at.stage + STAGE_INDEX[state.stage]] = 1
    t0 = at.turn_info
    fv[t0] = state.turn / g.config.max_turns
    fv[t0 + 1] = state.actions_left / 2
    fv[t0 + 2] = state.in_dejavu
    h0 = at.hand
    for c in state.hands[player]:
        fv[h0 + ht[c]] += 1 / 3
    i = at.hand_size
    hands = state.hands
    for h in hands[player:] + hands[:player]:  # seat-relative: mine first, then to my left
        fv[i] = len(h) / 10
        i += 1
    # what I know of each hand, what each other seat knows of mine and what everyone knows of each
    # (known_hands through public_hands): one copy of this viewer's kept rows (_knowledge_section)
    sec = _knowledge_section(state, player)
    kh0 = at.known_hands
    mv[kh0:kh0 + len(sec)] = sec
    # the team, broom, culture_points, energy, graveyard and display blocks lie one after the
    # other: this viewer's rows of all six in one copy (_team_group)
    group = state._team_memo.get(player)
    if group is None:
        group = state._team_memo[player] = _team_group(state, player)
    mv[at.team:at.team + len(group)] = group
    mt0, mc0 = at.market, at.market_count
    market = state.market
    key = tuple(market)
    memo = state._market_memo
    if memo is None or memo[0] != key:
        memo = state._market_memo = (key, *_market_sections(market, ht, nht))
    rows_seg = memo[1]
    mv[mt0:mt0 + len(rows_seg)] = rows_seg
    mv[mc0:mc0 + nht] = memo[2]
    p0 = at.piles
    fv[p0] = len(market) / 20
    fv[p0 + 1] = len(state.forest) / 90
    fv[p0 + 2] = (len(state.fm) + len(state.fm_order) + (state.fm_keep >= 0)) / 6
    fk = state.forest_known[player]
    if fk:
        f0 = at.forest_known
        for i in range(fk):
            fv[f0 + i * cs.num_classes + cs.cls[state.forest[-1 - i]]] = 1
    fs = state.forest_sets[player]
    if fs[0]:
        f0 = at.forest_set
        fv[f0] = min(fs[0], 6) / 6
        fv[f0 + 1] = fs[3] / 5
        fv[f0 + 2] = fs[0] > 6  # (then it is the whole deck, whose size is in ``piles``)
        f0 = at.forest_set_cards
        for c in fs[1]:
            fv[f0 + cs.cls[c]] += 1
        for c in fs[2]:
            fv[f0 + cs.num_classes + cs.cls[c]] += 1
    if pend is not None and pend["p"] == player and state.fm:
        m0 = at.forest_magic
        for c in state.fm:
            fv[m0 + cs.cls[c]] += 1
        m0 = at.forest_magic_placed
        for i, c in enumerate(state.fm_order):
            fv[m0 + i * cs.num_classes + cs.cls[c]] = 1
        if state.fm_keep >= 0:
            fv[at.forest_magic_kept + cs.cls[state.fm_keep]] = 1
    # finals_known, finals_state and finals_seen lie one after the other and change only when a
    # final is looked at or revealed (rules.py clears the memo there): one copy of this viewer's
    # rows (the loop over positions and seats cost ~2.5-4.5 us an observation)
    rows = state._finals_memo.get(player)
    if rows is None:
        rows = state._finals_memo[player] = _finals_rows(state, player)
    mv[at.finals_known:at.finals_known + len(rows)] = rows
    boxed = state.boxed
    if boxed:
        key = tuple(boxed)
        memo = state._boxed_memo
        if memo is None or memo[0] != key:
            memo = state._boxed_memo = (key, _boxed_row(boxed, cs.effect))
        bx0 = at.boxed
        mv[bx0:bx0 + len(TRAP_EFFECTS) + 1] = memo[1]
    cb = state.combat
    if cb is not None:
        fv[at.combat_kind + (0 if cb["t"] == "forest" else 1)] = 1
        s0 = at.combat_seats
        fv[s0 + (cb["a"] - player) % n] = 1
        if cb["d"] >= 0:
            fv[s0 + n + (cb["d"] - player) % n] = 1
        # (written out and summed in plain loops: a combat is on in a third of the decisions, and
        # the tuple loop and generator sums cost ~1 us of those observations)
        c0 = at.combat_chars
        if cb["fighter"] >= 0:
            fv[c0 + ci[cb["fighter"]]] = 1
        if cb["helper"] >= 0:
            fv[c0 + nch + ci[cb["helper"]]] = 1
        if cb["target"] >= 0:
            fv[c0 + 2 * nch + ci[cb["target"]]] = 1
        if cb["dh"] >= 0:
            fv[c0 + 3 * nch + ci[cb["dh"]]] = 1
        pts = at.combat_points
        fv[pts] = cb["ab"] / 10
        fv[pts + 1] = cb["db"] / 10
        both = cb["pots"]
        for side in (0, 1):
            pots = both[side]
            on_combat = 0  # potion values are ints: the same sum in any order
            for _, v, m in pots:
                if m == 0:
                    on_combat += v
            fv[pts + 2 + side] = on_combat / 10
            fv[pts + 4 + side] = len(pots) / 5
        ct0 = at.combat_table
        table = cb["table"]
        last = len(table) - 1
        for i in range(len(table)):
            card, side, mode = table[i]
            row = ct0 + (last - i) * (nht + 2)
            fv[row + ht[card]] = 1
            fv[row + nht] = side
            fv[row + nht + 1] = mode
        di = at.combat_die
        if cb["win"] >= 0:
            fv[di] = cb["roll"] / 6
            on_die = 0
            for _, v, m in both[cb["win"]]:
                if m == 1:
                    on_die += v
            fv[di + 1] = on_die / 6
            fv[di + 2] = cb["resist"] / 6
            fv[di + 3] = cb["win"] == 0
    if state.santa:
        # the whole chain, not only the pending roll: after a present explodes on a player with no
        # character to lose nothing else shows whom the die went to
        sc0, w = at.santa_chain, n + 1
        chain = state.santa
        for i, (q, roll) in enumerate(chain[:-SANTA_ROWS - 1:-1]):
            fv[sc0 + i * w + (q - player) % n] = 1
            fv[sc0 + i * w + n] = roll / 6
        fv[at.santa_rolls] = len(chain) / SANTA_ROWS
    if pend is not None:
        k = pend["k"]
        plays = state.plays
        if plays:
            an0, a0 = at.announced, at.announced_detail
            na = len(ANNOUNCED)
            aw, dw = na + 2, len(SPELLS) + len(CULTURES) + nht + nch
            cul0, card0 = len(SPELLS), len(SPELLS) + len(CULTURES)
            target0 = card0 + nht
            # the window flag of the last play and the cancelled flag (bools) are written only
            # when set: a False would store the 0 already there
            window = len(plays) - 1 if k == "voodoo_window" else -1
            for i, ann in enumerate(plays):
                row, det = an0 + i * aw, a0 + i * dw
                fv[row + ANNOUNCED_INDEX[ann["a"]]] = 1
                if i == window:
                    fv[row + na] = 1
                if ann["cancelled"]:
                    fv[row + na + 1] = 1
                if "s" in ann:
                    fv[det + ann["s"]] = 1
                if "cul" in ann:
                    fv[det + cul0 + ann["cul"]] = 1
                if "card" in ann:
                    fv[det + card0 + ht[ann["card"]]] = 1
                if "target" in ann:
                    fv[det + target0 + ci[ann["target"]]] = 1
                if "by" in ann:
                    fv[at.cancelled_by + i * n + (ann["by"] - player) % n] = 1
        pm = at.pending_misc
        if "left" in pend:
            if k in ("give_card", "give_recipient"):
                fv[pm] = pend["left"] / 5
            else:
                fv[pm + 3] = pend["left"] / 2
        if "rem" in pend:
            fv[pm + 1] = pend["rem"] / 4
        if k == "pay_spell":
            fv[at.spell_paid + pend["s"]] = 1
        if state.staged:
            hp0 = at.hats_paid
            for c in state.staged:
                fv[hp0 + ht[c]] += 1 / 3
        if "roll" in pend:
            fv[pm + 2] = pend["roll"] / 6
        if cb is not None:
            fv[pm + 4] = cb["passes"] / 2
        if "rest" in pend and k == "voodoo_window":
            fv[pm + 5] = len(pend["rest"]) / 4
        if "to" in pend:
            fv[at.give_to + (pend["to"] - player) % n] = 1
        if "mine" in pend:
            fv[at.levitation + ci[pend["mine"]]] = 1
    return buf


def _char_text(ch: dict) -> str:
    """A character with its stats at its level, from the table view's record."""
    extra = "".join(f", {x}" for x in (ch["trait"], "broom" if ch["broom"] else None) if x)
    return (f"{ch['name']} ({ch['culture']}, level {ch['level']}: combat {ch['combat']}, "
            f"resistance {ch['resistance']}, culture {ch['culture_points']}{extra})")


def _points_text(points: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in points.items())


def render(state: AlakazumState, player: int | None = None) -> str:
    """The table as text for ``player`` (None: everything). Every character shows its combat
    points, resistance and culture points at its level; each player their culture points per
    culture against the Alakazum threshold (the own seat also with the hand's culture objects and
    amulets, which the others cannot see)."""
    from kabenvs.core.game import winners_line
    from kabenvs.games.alakazum import table as tv

    cs = state.game.cs
    cards = cs.cards
    n = state.num_players
    lines = []
    head = "game over" if state.current_player is None else state.decision()
    lines.append(f"Alakazum!, {n} players, turn {state.turn + 1} (player {state.turn_player}'s turn) - {head}")
    lines.append(f"  an Alakazum needs {tv.ALAKAZUM_THRESHOLD} culture points of one culture")

    def chars(title: str, cs_list, indent: str) -> None:
        """One character a line under its title (a team of many reads down, not across)."""
        if not cs_list:
            lines.append(f"{indent}{title}: -")
            return
        lines.append(f"{indent}{title}:")
        lines.extend(f"{indent}  {_char_text(tv._character(state, c))}" for c in cs_list)

    for q in range(n):
        me = " (you)" if player == q else ""
        team_points = {CULTURES[k]: state._culture_points(q, k, False) for k in range(len(CULTURES))}
        line = f"  player {q}{me}: magic energy {state._energy(q)}; culture points {_points_text(team_points)}"
        if player is None or player == q:
            with_hand = {CULTURES[k]: state._culture_points(q, k) for k in range(len(CULTURES))}
            if with_hand != team_points:
                line += f" (with the hand: {_points_text(with_hand)})"
        lines.append(line)
        chars("team", state.teams[q], "    ")
        if player is None or player == q:
            hand = ", ".join(sorted(cards[c].name for c in state.hands[q])) or "-"
        else:
            known = [cards[c].name for c in state.known[player][q]]
            size = len(state.hands[q])
            hand = f"{size} card{'s' if size != 1 else ''}" + (f" (known: {', '.join(sorted(known))})" if known else "")
            for cards_m, r, n0 in state.groups[player][q]:
                names = ", ".join(sorted(cards[c].name for c in cards_m))
                hand += f" (at least {r} of: {names}; gave cards away from {n0})"
            if state.joint[player][q]:
                u, j = state.joint[player][q]
                names = ", ".join(sorted(cards[c].name for c in u))
                hand += f" (at least {j} of these together: {names})"
        lines.append(f"    hand: {hand}")
    market = ", ".join(cards[c].name for c in reversed(state.market)) or "-"
    lines.append(f"  market (top first): {market}")
    lines.append(f"  forest deck: {len(state.forest)} cards; graveyard: "
                 + (", ".join(cards[c].name for c in state.graveyard) or "-"))
    if player is not None and state.forest_known[player]:
        fk = state.forest_known[player]
        lines.append("  forest top I know (top first): "
                     + ", ".join(cards[c].name for c in reversed(state.forest[len(state.forest) - fk:])))
    if player is not None and state.forest_sets[player][0]:
        w, sure, some, r = state.forest_sets[player]
        sure_names = ", ".join(sorted(cards[c].name for c in sure)) or "-"
        some_names = ", ".join(sorted(cards[c].name for c in some))
        where = "the forest deck holds" if w >= len(state.forest) else f"the top {w} forest cards hold"
        lines.append(f"  {where}: {sure_names}"
                     + (f"; at least {r} of: {some_names}" if some else ""))
    if state.display:
        chars("display", state.display, "  ")
    fin = []
    for i, f in enumerate(state.finals):
        if state.revealed[i] or player is None or state.seen[player][i]:
            fin.append(cards[f].name + ("" if state.revealed[i] else " (face down)"))
        else:
            fin.append("face down")
    lines.append("  final enemies: " + "; ".join(fin))
    cb = tv._combat(state)
    if cb is not None:
        rival = "the forest" if cb["defender"] is None else f"player {cb['defender']}"
        lines.append(f"  combat ({cb['kind']}): player {cb['attacker']} against {rival}")
        for label, ch in (("fighter", cb["fighter"]), ("helper", cb["helper"]), ("against", cb["target"]),
                          ("defender's helper", cb["defender_helper"])):
            if ch is not None:
                lines.append(f"    {label}: {_char_text(ch)}")
        lines.append(f"    combat points: player {cb['attacker']} {cb['attacker_total']} (base "
                     f"{cb['attacker_base']}) against {rival} {cb['defender_total']} (base {cb['defender_base']})")
        pots = "; ".join(f"{x['card']} by player {x['by']} " + ("on the die" if x["on"] == "die" else "on combat")
                         for x in cb["potions"]) or "-"
        lines.append(f"    potions on the table (first played first): {pots}")
        if cb["winner"] is not None:
            won = "the forest" if cb["winner"] == "forest" else f"player {cb['winner']}"
            lines.append(f"    won by {won}" + (f"; hypnosis roll {cb['roll']} (die total {cb['die_total']}) "
                                                f"against resistance {cb['resistance']}" if cb["roll"] is not None else ""))
    if state.santa:
        lines.append("  Santa Claus' die this turn: "
                     + ", ".join(f"player {q} rolled {roll}" for q, roll in state.santa))
    if state.current_player is not None and (player is None or player == state.current_player):
        legal = [state.action_name(a) for a in state.legal_actions()]
        lines.append("  choices: " + "; ".join(legal))
    if state.current_player is None:
        lines.append(f"  {winners_line(state)}")
    return "\n".join(lines)


def _counts(cards, key) -> dict[int, int]:
    out: dict[int, int] = {}
    for c in cards:
        out[key[c]] = out.get(key[c], 0) + 1
    return out


def _category_count(cs, cards, u: int) -> int:
    """Amulets (u = 5) or culture objects of culture u among ``cards``."""
    if u == len(CULTURES):
        return sum(1 for c in cards if cs.effect[c] == "amulet")
    return sum(1 for c in cards if cs.effect[c] == "culture_object" and cs.cards[c].culture == u)


def _overlap(have: dict[int, int], want: dict[int, int]) -> int:
    """How many of the multiset ``want`` the multiset ``have`` holds."""
    return sum(min(have.get(k, 0), m) for k, m in want.items())


def _row_problems(cs, h: list[int], p: int, kn, groups, jt, capped, at: str, who: str, own: bool,
                  problems: list[str], prefix: str = "") -> None:
    """One row of knowledge about ``p``'s hand ``h`` (``who``'s: a player's, or everyone's) makes
    only true claims: its certain cards are held, at least r of each group and J of the joint
    count are there, and a cap accounts for every card of its category (``own``: a row about the
    viewer's own hand, which must be empty)."""
    if kn and (own or len(set(kn)) != len(kn) or not set(h).issuperset(kn)):
        problems.append(f"{prefix}known{at}: {who} 'knows' cards {kn} that player {p} does not hold")
    rest = _counts([c for c in h if c not in kn], cs.htype)
    for j, (cards, r, _) in enumerate(groups):
        if own or _overlap(rest, _counts(cards, cs.htype)) < r:
            problems.append(f"{prefix}groups{at}[{j}]: player {p} holds fewer than {r} of the cards {cards}")
    if jt and (own or _overlap(rest, _counts(jt[0], cs.htype)) < jt[1]):
        problems.append(f"{prefix}joint{at}: player {p} holds fewer than {jt[1]} of the cards {jt[0]}")
    counted = kn + (jt[0] if jt else [c for g in groups for c in g[0]])
    for u in capped:
        if own or _category_count(cs, h, u) > _category_count(cs, counted, u):
            problems.append(f"{prefix}capped{at}: player {p} holds more cards of category {u} than "
                            f"{who} accounts for")


def invariants(state: AlakazumState) -> list[str]:
    """The rules' conditions between fields (after check_fields' types and ranges)."""
    from kabenvs.games.alakazum.validate import check_zones, santa_chain_problems

    cs = state.game.cs
    problems = check_zones(state) + santa_chain_problems(state)
    for p, h in enumerate(state.hands):
        bad = [c for c in h if not cs.is_hand[c]]
        if bad:
            problems.append(f"hands[{p}]: {cs.cards[bad[0]].name} is not a hand card")
        for o in range(state.num_players):
            _row_problems(cs, h, p, state.known[o][p], state.groups[o][p], state.joint[o][p],
                          state.capped[o][p], f"[{o}][{p}]", f"player {o}", o == p, problems)
        if state.public_known:  # what everyone knows of the hand holds too
            _row_problems(cs, h, p, state.public_known[p], state.public_groups[p], state.public_joint[p],
                          state.public_capped[p], f"[{p}]", "everyone", False, problems, "public_")
    if not state.fm and not state.fm_order and state.fm_keep < 0:
        for o, (w, sure, some, r) in enumerate(state.forest_sets):
            top = _counts(state.forest[len(state.forest) - w:], cs.cls) if w <= len(state.forest) else {}
            need = _counts(sure, cs.cls)
            if w > len(state.forest) or _overlap(top, need) < len(sure):
                problems.append(f"forest_sets[{o}]: the top {w} cards of the deck do not hold {sure}")
                continue
            for k, m in need.items():
                top[k] -= m
            if _overlap(top, _counts(some, cs.cls)) < r:
                problems.append(f"forest_sets[{o}]: the top {w} cards of the deck hold fewer than {r} "
                                f"of {some}")
    if state.stage != "setup":
        for p, t in enumerate(state.teams):
            if not t:
                problems.append(f"teams[{p}]: player {p} has no character")
    for c in state.graveyard:
        if state.level[c] != 0:
            problems.append(f"level[{c}]: {cs.cards[c].name} in the graveyard above level A")
    in_teams = {c for t in state.teams for c in t}
    for c, b in enumerate(state.broom):
        if b >= 0 and (c not in in_teams or cs.effect[b] != "broom"):
            problems.append(f"broom[{c}]: card {b} under {cs.cards[c].name} must be a broom under a team's character")
    if any(cs.effect[c] == "voodoo" for c in state.market):
        problems.append("market: a voodoo doll on the market pile")
    if any(state.forest_known[p] > len(state.forest) for p in range(state.num_players)):
        problems.append("forest_known: more top cards known than the forest deck holds")
    return problems
