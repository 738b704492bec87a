"""Perfect recall and hidden moves: histories a seat can tell apart give it different observations,
moves it cannot tell apart read the same to it, and resampled worlds replay its whole history."""

from __future__ import annotations

import numpy as np
import pytest

from kabenvs.games.alakazum import AlakazumGame

from tests.core.kit import swapped_truth, worlds_distribution_gap

from .helpers import Table, do


def obs(s, p):
    return s.observation(p)


def block(s, p, name):
    return s.game.layout.split(s.observation(p))[name]


def cid(t, name):
    return next(c.id for c in t.cs.cards if c.name == name)


def replays_for_every_seat(s, tries=6, seed=0):
    """Every seat's resampled worlds replay from their own start to themselves, showing it the
    same observations at every step (the kit's check, on a rigged position)."""
    rng = np.random.default_rng(seed)
    past = [s.replay_start()]
    for a in s.replay_actions():
        nxt = past[-1].clone()
        nxt.apply(a)
        past.append(nxt)
    for p in range(s.num_players):
        for _ in range(tries):
            world = s.resample_hidden(p, rng)
            replay = world.replay_start()
            for i, a in enumerate(world.replay_actions()):
                np.testing.assert_array_equal(replay.observation(p), past[i].observation(p))
                replay.apply(a)
            np.testing.assert_array_equal(replay.observation(p), s.observation(p))
            assert world.render(p) == s.render(p)


# ---------------------------------------------------------------- the combat table's order
def combat(order):
    t = Table(2)
    t.arrange(teams={0: [("Olentzero", 0), ("Moura", 0)], 1: [("Penitente", 0), ("Pilotari", 0)]},
              hands={0: ["Combat potion +1", "Combat potion +2"], 1: ["Steal potion"]})
    s = t.at_action(0)
    do(s, "fight and hypnotise", "character Penitente", "character Olentzero")
    do(s, f"play {order[0]}", "pass", f"play {order[1]}")
    return t, s


def test_the_order_of_potions_on_the_table_is_seen_a_steal_takes_the_last():
    (ta, a), (tb, b) = combat(["Combat potion +1", "Combat potion +2"]), combat(["Combat potion +2", "Combat potion +1"])
    # the same sums and counts: only the order tells which potion a steal would take
    assert a._combat_total(0) == b._combat_total(0)
    for p in (0, 1):
        assert not np.array_equal(obs(a, p), obs(b, p))
    top = block(a, 1, "combat_table")[0]
    assert top[a.game.cs.htype[cid(ta, "Combat potion +2")]] == 1 and top[-2] == 0  # the attacker's +2
    do(a, "play Steal potion")
    do(b, "play Steal potion")
    assert [ta.cs.cards[c].name for c in a.hands[1]] == ["Combat potion +2"]
    assert [tb.cs.cards[c].name for c in b.hands[1]] == ["Combat potion +1"]
    row = block(a, 0, "combat_table")[0]  # the steal itself now lies on top, played by the defender
    assert row[a.game.cs.htype[cid(ta, "Steal potion")]] == 1 and row[-2] == 1
    replays_for_every_seat(a)


# ---------------------------------------------------------------- spells
def spell(name, hats=("Magic hat 2",), dolls=False):
    t = Table(2)
    t.arrange(teams={0: [("Moura", 0), ("Basajaun", 0)], 1: [("Olentzero", 0), ("Trasno", 0)]},
              hands={0: list(hats)}, graveyard=["Pilotari"], dolls_boxed=not dolls)
    s = t.at_action(0)
    do(s, name)
    return t, s


def test_the_spell_being_paid_for_is_seen():
    # Forest Magic and Levitation both cost 3: Moura's energy 1 leaves 2 to pay either way
    (_, fm), (_, lev) = spell("cast Forest Magic"), spell("cast Levitation")
    assert fm.pending["k"] == lev.pending["k"] == "pay_spell" and fm.pending["rem"] == lev.pending["rem"]
    for p in (0, 1):
        assert not np.array_equal(obs(fm, p), obs(lev, p))
    assert block(fm, 1, "spell_paid").argmax() == 3 and block(lev, 1, "spell_paid").argmax() == 4


def test_the_hats_paid_are_seen_during_the_voodoo_window():
    hats = ("Magic hat 2", "Magic hat 3")
    (t, two), (_, three) = spell("cast Clairvoyance", hats, dolls=True), spell("cast Clairvoyance", hats, dolls=True)
    do(two, "pay with Magic hat 2")
    do(three, "pay with Magic hat 3")  # overpaid: no change is given back
    assert two.pending["k"] == three.pending["k"] == "voodoo_window"
    for p in (0, 1):
        assert not np.array_equal(obs(two, p), obs(three, p))
    paid = block(three, 1, "hats_paid")
    assert paid[t.cs.htype[cid(t, "Magic hat 3")]] > 0 and paid.sum() > 0
    do(three, "pass")  # resolved: the hats go to the market, where they are seen in order
    assert block(three, 1, "hats_paid").sum() == 0


def test_a_play_that_changes_nothing_on_the_table_is_still_remembered():
    # a food for a culture with no character: either culture leaves the same table
    t = Table(2)
    t.arrange(teams={0: [("Moura", 0)], 1: [("Olentzero", 0)]}, hands={0: ["Food VAL/CAT"]})
    worlds = []
    for culture in ("VAL", "CAT"):
        s = t.at_action(0).clone()
        do(s, f"give Food VAL/CAT to the {culture} characters")
        worlds.append(s)
    for p in (0, 1):
        assert not np.array_equal(obs(worlds[0], p), obs(worlds[1], p))


def test_the_whole_market_pile_is_seen_in_order():
    # two piles that differ only below the eighth card from the top
    piles = []
    for bottom in (["Magic hat 1", "Broom"], ["Broom", "Magic hat 1"]):
        t = Table(2)
        top = ["Combat potion +1"] * 4 + ["Die potion +1"] * 4
        t.arrange(teams={0: [("Moura", 0)], 1: [("Olentzero", 0)]}, market=bottom + top)
        piles.append(t.at_action(0))
    assert not np.array_equal(obs(piles[0], 1), obs(piles[1], 1))
    rows = block(piles[0], 1, "market")
    assert rows[:10].sum() == 10 and rows[10:].sum() == 0


# ---------------------------------------------------------------- hidden moves
def test_hidden_moves_read_as_hidden_to_those_who_did_not_see_them():
    t = Table(3)
    t.arrange(teams={0: [("Moura", 0)], 1: [("Olentzero", 0)], 2: [("Trasno", 0)]},
              hands={0: ["Broom", "Traca", "Magic hat 1", "Steal potion"]}, forest_top=["Black Friday's Discount"])
    s = t.begin_turn(0)
    do(s, "to the player 1 seat(s) to the left")
    give = next(a for a in s.legal_actions() if s.action_name(a) == "give Broom")
    assert s.action_name_for(give, 0) == s.action_name_for(give, 1) == "give Broom"
    assert s.action_name_for(give, 2) == "give a card (hidden)"
    assert s.action_name_for(give, None) == "give Broom"


def test_forest_magic_choices_are_hidden_and_resampling_keeps_the_public_count():
    t = Table(3)
    six = ["Combat potion +2", "Vicentica", "Die potion +2", "Magic hat 1", "Broom", "Steal potion"]
    t.arrange(teams={0: [("Basajaun", 2)], 1: [("Olentzero", 0)], 2: [("Trasno", 0)]},
              hands={0: ["Magic hat 3"], 1: ["Combat potion +1", "Magic hat 2"]}, forest_top=six)
    s = t.at_action(0)
    do(s, "cast Forest Magic", "pay with Magic hat 3")
    keep = next(a for a in s.legal_actions() if s.action_name(a) == "forest card Vicentica")
    assert s.action_name_for(keep, 1) == "keep a Forest Magic card (hidden)"
    assert s.action_name_for(keep, 0) == "forest card Vicentica"
    do(s, "forest card Vicentica", "forest card Broom")
    out = block(s, 1, "piles")[2]
    for p in (1, 2):
        for seed in range(20):
            world = s.resample_hidden(p, np.random.default_rng(seed))
            assert block(world, p, "piles")[2] == out  # the count of Forest Magic cards out
            assert world.fm_keep >= 0 and not world.game.cs.is_hand[world.fm_keep]
    replays_for_every_seat(s)
    zones = s.hidden_zones(1)
    assert len(zones["Forest Magic cards"]) == 6 and "hand of player 0" in zones and "final enemy 0" in zones


def test_an_alakazum_shows_every_object_of_its_culture_so_the_rest_of_the_hand_has_none():
    t = Table(2)
    t.arrange(teams={0: [("Vicentica", 2), ("Dolçainer", 2), ("Pilotari", 2)], 1: [("Olentzero", 0)]},
              hands={0: ["Multicolour amulet", "Combat potion +1", "Magic hat 1"]})
    s = t.at_alakazum(0)
    do(s, "conjure an Alakazum with VAL")
    hidden = [c for c in s.hands[0] if c not in s.known[1][0]]
    assert len(hidden) == 2
    for seed in range(30):
        world = s.resample_hidden(1, np.random.default_rng(seed))
        held = [world.game.cs.effect[c] for c in world.hands[0]]
        assert held.count("amulet") == 1
        assert not any(world.game.cs.cards[c].effect == "culture_object" and world.game.cs.cards[c].culture == 0
                       for c in world.hands[0])
    replays_for_every_seat(s)


@pytest.mark.slow
def test_search_seats_rarely_get_a_world_that_falls_back_to_the_real_choices(monkeypatch):
    """The docs' measure (Resampling): a 3-player game of ``search:sims=2`` seats; a re-drawn world
    that finds no choices of its own keeps the real ones, which tells a search bot what really
    went. 9 of 219 fell back when this was written (37 of 196 with one backjumping pass and half
    the budget). The game has since changed under it (the search plays differently): at step 408
    player 0 falls into Black Friday's Discount and gives 11 of its 23 cards away, ten of them
    unseen by seat 2, whose draws after it mostly fall back (docs/games/alakazum.md, "Known
    gaps"): 651 of 963 before the Forest Magic places stayed pinned through reshuffles, 147 of
    680 after (2026-12-05), nearly all of them after that gift. With the backjumping to the
    gift a player later lacks (the same evening) the searches play a 422-step game: 1 of 407
    re-drawn worlds fell back (replaced)."""
    from kabenvs.agents.base import Decision
    from kabenvs.agents.search import SearchAgent
    from kabenvs.games.alakazum import resample

    counts = {"worlds": 0, "fell back": 0}
    rechoose = resample._rechoose

    def counted(*args, **kwargs):
        world = rechoose(*args, **kwargs)
        counts["worlds"] += 1
        counts["fell back"] += world is None
        return world

    monkeypatch.setattr(resample, "_rechoose", counted)
    game = AlakazumGame(num_players=3)
    state = game.new_state(np.random.default_rng(3))
    agents = [SearchAgent(seed=10 + p, sims=2) for p in range(3)]
    followed = replaced = skipped = 0
    while state.current_player is not None:
        agent = agents[state.current_player]
        agent.last_worlds = None
        state.apply(agent.act(Decision(state.current_player, state)))
        if agent.last_worlds is not None:  # the search's own count (search.tree.Worlds)
            followed += agent.last_worlds.followed_truth
            replaced += agent.last_worlds.replaced
            skipped += agent.last_worlds.skipped
    assert counts["worlds"] > 100
    assert counts["fell back"] <= counts["worlds"] // 4, counts
    # every fallback a search drew was marked, and none was walked: each was replaced by a world
    # drawn again at once (with 2 simulations there is rarely a kept one): 8 of 8, the resampler's
    # ninth fallback being one of those retries; one with no replacement would be skipped
    assert followed <= counts["fell back"] and replaced + skipped == followed > 0, (followed, replaced, counts)
    assert replaced > 0


@pytest.mark.slow
def test_searches_walk_no_world_that_fell_back_where_they_drew_a_usual_one():
    """docs/search.md's measure: a 3-player game of ``search:sims=10`` seats (seed 3) drew 1,360
    worlds when this was written; 5 fell back to the real choices and each was replaced by an
    earlier usual world. The game has since changed under it and meets the Black Friday gift of
    the test above: on 2026-12-05 2,496 worlds, 96 fell back, 42 replaced by an earlier usual
    world and 54 simulations skipped, at decisions where no usual world had been drawn (none of
    them walked: a fallback is never walked). Since patient draws try a new relabelling each
    time (later that day) the searches play another game (a usual draw is what it was; which
    patient draws succeed changed): player 0 gives ten cards away unseen by seat 2 at steps
    330-348, and of 2,861 worlds 331 fell back (260 of them at steps 350-449), 22 replaced, 309
    simulations skipped; with the backjumping to the gift a player later lacks (the same
    evening) a 287-step game: of 1,780 worlds 25 fell back, all 25 replaced, none skipped. With
    the chained draws (2026-12-05, late) a 396-step game that meets a large hidden gift from
    step 309 on: of 2,450 worlds 205 fell back (nearly all at steps 309-387), all 205 replaced,
    none skipped (about 5 minutes). The bound below is those games' with room, not a claim that
    such gifts are rare (docs/games/alakazum.md, "Known gaps")."""
    from kabenvs.agents.base import Decision
    from kabenvs.agents.search import SearchAgent

    game = AlakazumGame(num_players=3)
    state = game.new_state(np.random.default_rng(3))
    agents = [SearchAgent(seed=10 + p, sims=10) for p in range(3)]
    worlds = followed = replaced = skipped = 0
    while state.current_player is not None:
        agent = agents[state.current_player]
        agent.last_worlds = None
        state.apply(agent.act(Decision(state.current_player, state)))
        if agent.last_worlds is not None:
            worlds += agent.last_iterations
            followed += agent.last_worlds.followed_truth
            replaced += agent.last_worlds.replaced
            skipped += agent.last_worlds.skipped
    assert worlds > 1000 and followed > 0
    assert replaced + skipped == followed and replaced > 0, (worlds, followed, replaced, skipped)
    assert followed <= worlds // 6, (worlds, followed)


def test_a_world_that_keeps_the_real_choices_for_lack_of_budget_is_marked(monkeypatch):
    """Seat 2 saw player 0's hand, then a card went unseen: its worlds re-draw which. Built the
    usual way a world is unmarked; when the re-drawing gives up (forced here) the world keeps the
    real choice and says so (``_followed_truth``), so a search walks another in its place."""
    from kabenvs.games.alakazum import resample

    from .test_recall import gift, others_turns, two_known

    _, s = two_known()
    others_turns(s)
    gift(s)
    assert not s.resample_hidden(2, np.random.default_rng(0))._followed_truth
    assert not s.resample_hidden(1, np.random.default_rng(0))._followed_truth  # it received the card
    monkeypatch.setattr(resample, "_rechoose", lambda *args, **kwargs: None)
    world = s.resample_hidden(2, np.random.default_rng(0))
    assert world._followed_truth
    assert not world.clone()._followed_truth  # the mark is the resampler's word on this world only


def test_each_patient_try_draws_its_own_relabelling(monkeypatch):
    """Some relabellings leave the re-chosen steps no world at all, so a patient draw's tries
    each draw a new one (more tries of one relabelling cannot help there); the usual draw makes
    one. With re-choosing forced to fail, every try is seen and the last one's relabelling is the
    fallback's."""
    from kabenvs.core.patience import PATIENT_TRIES, patient
    from kabenvs.games.alakazum import resample

    from .test_recall import gift, others_turns, two_known

    _, s = two_known()
    others_turns(s)
    gift(s)
    sigmas = []

    def fail(game, origin, fields, new_start, actions, taken, sigma, *rest):
        sigmas.append(dict(sigma))
        return None

    monkeypatch.setattr(resample, "_rechoose", fail)
    monkeypatch.setattr(resample, "CHAIN", 1)  # one draw's tries (a chain makes CHAIN draws)
    assert s.resample_hidden(2, np.random.default_rng(0))._followed_truth
    assert len(sigmas) == 1
    sigmas.clear()
    with patient():
        assert s.resample_hidden(2, np.random.default_rng(0))._followed_truth
    assert len(sigmas) == PATIENT_TRIES > 1
    assert len({tuple(sorted(x.items())) for x in sigmas}) > 1  # not one relabelling tried again


def test_the_complete_relabelling_keeps_every_constraint_and_is_not_the_real_deal(monkeypatch):
    """With the greedy relabelling switched off (``ASSIGN_TRIES`` 0), the complete random matching
    alone relabels the never-seen cards: the worlds replay for every seat, and they vary (it used
    to return the identity, the real deal, after eight unlucky greedy tries)."""
    import random

    from kabenvs.games.alakazum import resample

    monkeypatch.setattr(resample, "ASSIGN_TRIES", 0)
    moved = 0
    for players in (2, 5):
        game = AlakazumGame(num_players=players)
        s = game.new_state(np.random.default_rng(players))
        rnd = random.Random(players)
        for step in range(160):
            if s.current_player is None:
                break
            if step % 40 == 39:
                replays_for_every_seat(s, tries=2, seed=step)
                p = s.current_player
                world = s.resample_hidden(p, np.random.default_rng(step))
                moved += world.hands != s.hands or world.forest != s.forest
            s.apply(rnd.choice(s.legal_actions()))
    assert moved >= 6


def test_what_another_player_knows_of_a_third_hand_is_the_one_named_summary():
    """``recall_gap`` names it only where the two states differ in nothing but rows ``[j][k]``
    about a third hand (neither row nor hand the seat's), at three players or more."""
    import random

    game = AlakazumGame(num_players=3)
    s = game.new_state(np.random.default_rng(1))
    rnd = random.Random(1)
    for _ in range(40):
        s.apply(rnd.choice(s.legal_actions()))
    card = s.hands[2][0]
    t = s.clone()
    t.known[1][2] = t.known[1][2] + [card] if card not in t.known[1][2] else []
    t.touch()
    assert s.recall_gap(t, 0) == "what another player knows of a third hand"
    assert s.recall_gap(t, 1) is None and s.recall_gap(t, 2) is None  # its own row / its own hand
    u = t.clone()
    u.forest_known = [x + 1 for x in u.forest_known]
    u.touch()
    assert s.recall_gap(u, 0) is None  # another field differs too
    two = AlakazumGame(num_players=2).new_state(np.random.default_rng(1))
    assert two.recall_gap(two.clone(), 0) is None


def test_what_another_player_knows_of_the_forest_deck_is_named_too():
    """Found by the recall probe at 5 players once a reshuffle kept what a seat knew of the deck
    (24 merges in 150 games): player 4's Forest Magic puts Santa Compaña or Costalero on top,
    player 0 draws it in view and loses to it, the deck is shuffled. Every other seat saw which
    came up; afterwards the states differ only in player 4's set (the other character, which only
    player 4 knows is in the deck) and the deck's order. At any table size, ``recall_gap`` names
    that for the seats whose own deck knowledge is equal, and nothing when more differs."""
    for players in (2, 5):
        s = AlakazumGame(num_players=players).new_state(np.random.default_rng(3))
        j = players - 1
        a, b = s.forest[-1], s.forest[-2]
        s.forest_sets[j] = [len(s.forest), [a], [], 0]
        s.touch()
        t = s.clone()
        t.forest_sets[j] = [len(t.forest), [b], [], 0]
        t.forest[-1], t.forest[-2] = b, a
        t.touch()
        assert s.recall_gap(t, 0) == "what another player knows of the forest deck"
        assert s.recall_gap(t, j) is None  # its own set
        u = t.clone()
        u.forest[0] = u.hands[0][0]  # the deck holds another card: not only its order differs
        u.touch()
        assert s.recall_gap(u, 0) is None


def test_another_casters_forest_magic_cards_vary_in_the_worlds_of_a_seat_that_knows_part_of_the_deck():
    """While another player places its Forest Magic cards, a seat that knows some cards of the
    deck (a set over the whole deck after a reshuffle, or the top it knew) still cannot see the
    six. Until 2026-12-06 its worlds kept them all as they really are (8 of 8 worlds, six unseen
    cards, 3 players, seed 4): the resampler left the six out of the seat's hidden zones. Now the
    cards it never saw vary, and every world shows it the same observation."""
    import random

    from kabenvs.games.alakazum import resample

    s = AlakazumGame(num_players=3).new_state(4)
    rnd = random.Random(4)
    while not (s.fm and any(o != s.pending["p"] and (s.forest_sets[o][0] or s.forest_known[o])
                            for o in range(3))):
        s.apply(rnd.choice(s.legal_actions()))
    seat = next(o for o in range(3) if o != s.pending["p"] and (s.forest_sets[o][0] or s.forest_known[o]))
    origin, actions = resample._start_of(s)
    seen = resample._history_facts(s, seat, origin, actions)[0]
    assert len([c for c in s.fm if c not in seen]) >= 4  # the premise: most of the six never seen
    assert "Forest Magic cards" in resample.hidden_zones(s, seat)
    worlds = [s.resample_hidden(seat, np.random.default_rng(k)) for k in range(8)]
    assert sum(sorted(w.fm) == sorted(s.fm) for w in worlds) <= 1
    for w in worlds:
        assert w.observation(seat).tobytes() == s.observation(seat).tobytes()
        assert [c for c in w.fm if c in seen] == [c for c in s.fm if c in seen]


# -- worlds drawn from a world are drawn like worlds of the truth (issue 13, open) ---------------
def _position(players: int, seed: int, fraction: float):
    import random

    state = AlakazumGame(num_players=players).new_state(seed)
    rnd = random.Random(seed)
    states = []
    while state.current_player is not None:
        state.apply(rnd.choice(state.legal_actions()))
        states.append(state.clone())
    return states[int(len(states) * fraction)]


def test_worlds_drawn_from_a_world_are_drawn_like_worlds_of_the_truth():
    """Seat 2 of a 3-player game, a third of the way in (seed 1): the real state and a world of it
    (seed 999) are the same to the seat, so the worlds it draws from either must follow one
    distribution. Before the resampler routed seen copies out first, the world pinned player 1's
    one hidden card (the world's replay had sent the other copy of a Double potion to the table,
    keeping the one the seat saw under its id): every world of it kept that card, against 4% of
    the truth's worlds keeping the truth's (z about 40)."""
    state = _position(3, 1, 0.3)
    seat = state.current_player
    other = state.resample_hidden(seat, np.random.default_rng(999))
    assert not other._followed_truth
    z, key = worlds_distribution_gap(state, seat, other, 150)
    assert z < 6, f"{key}: z = {z:.1f}"


def test_chained_draws_forget_the_source_where_gifts_are_re_chosen(monkeypatch):
    """Seat 1 of a 3-player game (seed 2) at 0.6, after four hidden gifts among cards it had seen
    (re-chosen in every world): the truth holds one Double potion in the forest deck, and a world
    of it drawn with seed 999 by a single draw none. Worlds of each, 80 draws, should hold the same
    number of Double potions in the deck on average, with a single draw and with the chain of
    three. Before seen cards calm since a reshuffle moved (``resample._rearrange_deck``) a single
    draw leaned towards its source here (z about 4.6, and 10.6 with 400 draws): that is what the
    chain was added for; one draw is the default since (``CHAIN`` 1). This passed until
    2026-12-07, by the luck of seed 999: of the worlds drawn with seeds 990-999, four give worlds
    holding 0.42-0.63 Double potions in the deck on average (60 draws each) against the truth's
    1.0, with the resampler of then and with the one after the gifts' forward checks (whose seed
    999 is now one of them: 0.48). It was a strict xfail until the copies a hidden gift sends
    were routed (``resample._route_copies``, 2026-12-07, later): the worlds of those ten worlds
    now hold 0.50-0.63 Double potions in the deck on average, the truth's 0.42 (60 draws each).
    The chain of three is the default again since (``CHAIN`` 3; a card drawn face down and seen
    later needs it: ``test_a_card_drawn_face_down_and_seen_later_does_not_pin_its_draw``). Since a
    draw may swap a card before its sighting (``resample._swap_before_sighting``, 2026-12-08) it
    draws its random numbers in another order, and seed 999's world holds one Double potion in
    the deck; seed 997's, the nearest below that holds none, is the world now."""
    from kabenvs.games.alakazum import resample as R

    chain = R.CHAIN
    assert chain == 3
    state = _position(3, 2, 0.6)
    seat = state.current_player
    monkeypatch.setattr(R, "CHAIN", 1)
    other = state.resample_hidden(seat, np.random.default_rng(997))
    key = ("forest deck", "Double potion")
    assert state.hidden_zones(seat)[key[0]].count(key[1]) == 1 and other.hidden_zones(seat)[key[0]].count(key[1]) == 0

    def deck_gap(draws: int) -> float:
        counts = [[sum(1 for x in src.resample_hidden(seat, np.random.default_rng(off + i)).hidden_zones(seat)
                       [key[0]] if x == key[1]) for i in range(draws)]
                  for src, off in ((state, 0), (other, 10**6))]
        a, b = (np.array(c, dtype=float) for c in counts)
        return abs(a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / draws + b.var(ddof=1) / draws)

    assert deck_gap(80) < 3  # a single draw
    monkeypatch.setattr(R, "CHAIN", chain)
    assert deck_gap(80) < 3


def test_a_chain_hands_on_what_the_seat_saw_and_draws_the_same_worlds(monkeypatch):
    """The later draws of a chain take the record of what the seat saw at each step from the draw
    before (``resample._hand_on``; every world of the history replays to the same views), rather
    than replaying and encoding it again: the worlds are the same, bit for bit, either way, and
    the record really is handed on (the second draw finds it in its source's memo)."""
    from kabenvs.games.alakazum import resample as R

    state = _position(3, 2, 0.6)  # four hidden gifts among cards the seat saw: every draw re-chooses
    seat = state.current_player
    handed = []
    real = R._hand_on

    def spy(source, world, p):
        real(source, world, p)
        handed.append(sum(1 for k in world._resample_memo if k[2:3] == ("obs",)))

    monkeypatch.setattr(R, "_hand_on", spy)
    with_record = [state.clone().resample_hidden(seat, np.random.default_rng(i)).to_json() for i in range(3)]
    assert len(handed) == 3 * (R.CHAIN - 1) and all(handed)
    monkeypatch.setattr(R, "_hand_on", lambda source, world, p: None)
    without = [state.clone().resample_hidden(seat, np.random.default_rng(i)).to_json() for i in range(3)]
    assert with_record == without


@pytest.mark.parametrize("marks,followed", [((True, True, True), True), ((True, False, True), False),
                                            ((False, True, True), False), ((False, False, False), False)])
def test_a_chain_follows_the_truth_only_while_every_draw_fell_back(monkeypatch, marks, followed):
    """A fallback follows its source's hidden choices: the truth's while every draw of the chain
    so far fell back; after a usual draw the source is a world, and following it reads nothing."""
    from kabenvs.core.patience import is_patient, patient
    from kabenvs.games.alakazum import resample as R

    monkeypatch.setattr(R, "CHAIN", 3)
    sources, made = [], iter(marks)

    patience = []

    def draw(source, p, rng):
        sources.append(source)
        patience.append(is_patient())
        world = source.clone()
        world._followed_truth = next(made)
        return world, True

    monkeypatch.setattr(R, "_draw", draw)
    state = _position(2, 1, 0.3)
    with patient():  # a patient draw stays patient only while the chain is still at the truth
        world = R.resample(state, state.current_player, np.random.default_rng(0))
    assert len(sources) == 3 and sources[0] is state and sources[1] is not state
    assert world._followed_truth is followed
    assert patience == [True, marks[0], marks[0] and marks[1]]


@pytest.mark.parametrize("players,seed,fraction", [(2, 2, 0.6), (2, 5, 0.9), (5, 12, 0.3)])
def test_worlds_of_a_world_match_the_truths_at_other_positions(players, seed, fraction):
    """More positions where the worlds used to follow the truth's routing of identical copies
    (z 14.2, 9.7 and 12.2 with 60 draws before the fix; 2.5, 2.0 and 2.0 with 100 after)."""
    state = _position(players, seed, fraction)
    seat = state.current_player
    other = state.resample_hidden(seat, np.random.default_rng(999))
    z, key = worlds_distribution_gap(state, seat, other, 100)
    assert z < 6, f"{key}: z = {z:.1f}"


def test_a_card_shuffled_back_into_the_forest_lies_anywhere_in_the_worlds():
    """Seat 0 of a 2-player game (seed 1), 20 moves in: a character it saw fought and lost to was
    shuffled back into the forest deck, among some 80 cards it cannot see. Where it lies is
    hidden, so the worlds put it anywhere among the deck's cards that nobody has drawn or seen
    since the reshuffle (before the worlds' reshuffle script, all 20 kept it at its real place)."""
    import random

    from kabenvs.games.alakazum import resample

    state = AlakazumGame(num_players=2).new_state(1)
    rnd = random.Random(1)
    for _ in range(20):
        state.apply(rnd.choice(state.legal_actions()))
    seat = state.current_player
    origin, actions = resample._start_of(state)
    facts = resample._history_facts(state, seat, origin, actions)
    seen, low = facts[0], facts[5].low
    hidden_deck = resample._hidden_now(state, seat)["forest deck"]
    card = next(c for c in hidden_deck if c in seen)  # the test's premise: such a card is there
    where = state.forest.index(card)
    assert where < low and low > 40  # in the unmoved bottom of the deck, among many
    worlds = [state.resample_hidden(seat, np.random.default_rng(i)) for i in range(20)]
    places = [w.forest.index(card) for w in worlds]
    assert sum(x == where for x in places) <= 2
    assert len(set(places)) >= 12 and max(places) < low  # spread over the bottom, never above it
    for w in worlds:  # and each world is one the seat cannot tell from the truth
        assert w.observation(seat).tobytes() == state.observation(seat).tobytes()


def test_a_copy_the_seat_knows_leaves_first_so_no_seen_copy_stays_pinned_in_that_hand():
    """Seat 4 of a 5-player game met by the shared kit (``KIT_SEED=19``): player 0 held a Combat
    potion +2 the seat knew of, played one in view and took one back from the market. In a world
    the resampler drew, player 0 had also drawn face down a second copy the seat had once seen,
    and the world's own engine played that one. Seeing a card of the type leave, the seat forgets
    its known copy (rules ``_row_loses``); the analysis replay used to send the other seen copy
    out instead, so the known one stayed in the hand, unknown now and pinned by id, and the
    world's worlds held a second Combat potion +2 there 40 times in 40 where the truth's held one
    once (z = 39). The known copy now leaves first; worlds of the two follow one distribution."""
    import json
    from pathlib import Path

    from kabenvs.games.alakazum import resample

    case = json.loads((Path(__file__).parent / "data" / "known_copy_routing_5p.json").read_text())
    game = AlakazumGame(num_players=5)
    truth, world, seat = game.state_from_json(case["truth"]), game.state_from_json(case["world"]), case["seat"]
    assert world.observation(seat).tobytes() == truth.observation(seat).tobytes()
    origin, actions = resample._start_of(world)
    seen = resample._history_facts(world, seat, origin, actions)[0]
    potion = [c for c in world.hands[0] if game.cs.cards[c].name == "Combat potion +2"]
    assert len(potion) == 2 and any(c in seen and c not in world.known[seat][0] for c in potion)  # the premise
    key = ("hand of player 0", "Combat potion +2")
    z, _ = worlds_distribution_gap(truth, seat, world, 40, items=lambda w: [k for k in (
        (z, x) for z, xs in w.hidden_zones(seat).items() for x in xs) if k == key])
    assert z < 4


def test_a_seen_card_another_player_drew_face_down_after_a_reshuffle_moves_in_the_worlds():
    """Seat 2 of a 5-player game of the recall probe (seed 73; the first 290 moves of the first
    game of tests/games/alakazum/data/forest_magic_keep_5p.json) saw a Txapela on the forest deck;
    the deck was reshuffled and player 4 drew the card face down, and holds it, untouched. The seat cannot know which hand drew it, or whether it is
    still in the deck. Before the resampler followed calm cards (``resample._rearrange_deck``)
    every world kept it in player 4's hand (the recall probe met a later position of this game
    where 20 worlds of 20 did); now most put it elsewhere, and each is one the seat cannot tell
    from the truth over its whole history."""
    import json
    from pathlib import Path

    from kabenvs.core.view_history import replayed_digest
    from kabenvs.games.alakazum import resample

    case = json.loads((Path(__file__).parent / "data" / "forest_magic_keep_5p.json").read_text())
    state = AlakazumGame(num_players=5).new_state(np.random.default_rng(case["deal_seed"]))
    for a in (case["common"] + case["a"])[:290]:
        state.apply(a)
    seat, card, holder = 2, 89, 4
    assert card in state.hands[holder] and card not in state.known[seat][holder]
    origin, actions = resample._start_of(state)
    facts = resample._history_facts(state, seat, origin, actions)
    assert card in facts[0] and facts[5].held[card][0] == holder  # seen once, calm in that hand since
    worlds = [state.resample_hidden(seat, np.random.default_rng(i)) for i in range(12)]
    assert sum(card in w.hands[holder] for w in worlds) <= 6
    truth = replayed_digest(state, seat).digest()
    for w in worlds[:4]:
        assert replayed_digest(w, seat).digest() == truth


# -- while another player pays a spell, which hats it holds is hidden (issue 13) ----------------
def _paying(seed: int):
    """The first position of a random 3-player game (``seed``) where a player pays a spell with
    hats the next seat has not seen: (the trajectory up to it, the payer, that seat)."""
    import random

    game = AlakazumGame(num_players=3)
    state = game.new_state(seed)
    rnd = random.Random(seed)
    trajectory = [state.clone()]
    while state.current_player is not None:
        pend = state.pending
        if pend is not None and pend["k"] == "pay_spell":
            q = pend["p"]
            p = (q + 1) % 3
            if any(game.cs.effect[c] == "hat" and c not in state.known[p][q] for c in state.hands[q]):
                return trajectory, q, p
        state.apply(rnd.choice(state.legal_actions()))
        trajectory.append(state.clone())
    raise AssertionError("no such position: the test needs another seed")


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_a_paying_player_holds_enough_hats_but_not_always_the_real_ones(seed):
    """Choosing a spell shows the caster holds hats worth what is left to pay, not which hats. At
    seeds 1, 2 and 4 the payer's one unseen hat (worth 2, 3 and 3; 2, 1 and 1 left to pay) stayed
    in its hand in 30 of 30 worlds before (the resampler kept the largest hats in place); now
    other hats worth enough stand in for it in some worlds. Every world is one the seat cannot
    tell apart: replayed from its start, every move is legal and the seat sees what it saw, and
    the payer can still pay."""
    trajectory, q, p = _paying(seed)
    state = trajectory[-1]
    cs = state.game.cs
    real = {c for c in state.hands[q] if cs.effect[c] == "hat" and c not in state.known[p][q]}
    rem = state.pending["rem"]
    kept = 0
    rng = np.random.default_rng(seed)
    for i in range(30):
        world = state.resample_hidden(p, rng)
        kept += real <= set(world.hands[q])
        assert sum(cs.value[c] for c in world.hands[q] if cs.effect[c] == "hat") >= rem
        assert world.legal_actions()
        if i < 5:
            replay = world.replay_start()
            for k, a in enumerate(world.history):
                np.testing.assert_array_equal(replay.observation(p), trajectory[k].observation(p))
                assert replay.is_legal(a), f"step {k}: {replay.action_name(a)} is not legal in this world"
                replay.apply(a)
            np.testing.assert_array_equal(replay.observation(p), state.observation(p))
    assert kept < 25, f"the payer kept its real hats in {kept} of 30 worlds"


def test_worlds_of_a_world_match_the_truths_while_another_player_pays():
    """Seed 2's position above: the payer holds one unseen 3-hat with 1 left to pay. A world where
    another hat stands in for it is one the seat cannot tell from the truth, so the worlds drawn
    from it and from the truth must follow one distribution (before, the truth's worlds all kept
    the 3-hat, and no world where another hat stood in was ever drawn)."""
    trajectory, q, p = _paying(2)
    state = trajectory[-1]
    cs = state.game.cs
    real = {c for c in state.hands[q] if cs.effect[c] == "hat" and c not in state.known[p][q]}
    rng = np.random.default_rng(999)
    other = next((w for w in (state.resample_hidden(p, rng) for _ in range(30)) if not real <= set(w.hands[q])), None)
    assert other is not None, "no world in 30 lets another hat stand in for the payer's"
    z, key = worlds_distribution_gap(state, p, other, 60)
    assert z < 6, f"{key}: z = {z:.1f}"


# -- a truth with two never-seen cards swapped is another truth (issue 13) -----------------------
def _swapped_pair(state, p: int, rng, choose, tries: int):
    """(a state seat ``p`` cannot tell from ``state``, or None; the swap ``{a: b, b: a}``): the
    kit's ``swapped_truth`` with two cards ``p`` never saw swapped in the real start, ``choose(seen)``
    giving ``pick(rng) -> (a, b)`` (None: no pair this try). The two are of the same kind (both
    hand cards, both forest cards or both final enemies) and of different types; a hidden choice
    that took one of them (a card given away, a Forest Magic keep) names the other instead."""
    from kabenvs.games.alakazum import resample as R

    game = state.game
    cs = game.cs
    origin, actions = R._start_of(state)
    seen, taken, _barred, _secret, _present, chance = R._history_facts(state, p, origin, actions)
    pick = choose(seen)
    finals = set(origin.start["state"]["finals"])
    sigma: dict[int, int] = {}

    def swap(fields, rng):
        pair = pick(rng)
        if pair is None:
            return False
        a, b = pair
        if cs.htype[a] == cs.htype[b] and cs.cls[a] == cs.cls[b]:
            return False
        if (a in finals) != (b in finals) or cs.is_hand[a] != cs.is_hand[b]:
            return False
        sigma.clear()
        sigma.update({a: b, b: a})
        fields.update(R._relabel(fields, sigma))
        fields["shuffles"], fields["rolls"] = [o[:] for o in chance.orders], chance.rolls[:]
        return True

    def rewrite(world, k, action):
        return R._relabelled(world, game, action, taken[k], sigma) if taken[k] >= 0 else action

    return swapped_truth(state, p, rng, swap, rewrite, tries=tries), sigma


def _swapped_truth(state, p: int, rng):
    """``_swapped_pair`` with the two cards drawn from the resampler's hidden zones of ``p``."""
    from kabenvs.games.alakazum import resample as R

    def choose(seen):
        hidden = sorted({c for cards in R._hidden_now(state, p).values() for c in cards} - seen)
        return lambda rng: tuple(hidden[i] for i in rng.choice(len(hidden), 2, replace=False))

    return _swapped_pair(state, p, rng, choose, tries=40)[0]


def _swapped_anywhere(state, p: int, rng):
    """Like ``_swapped_truth``, but the two cards are chosen without the resampler's own list of
    hidden zones: any two cards ``p`` never saw, lying in two different places of the state that
    are not face up to everyone (``validate.card_places``: another hand, the deck, the Forest
    Magic cards out, the final enemies), the first place drawn uniformly. A place that list
    forgot is then swapped too (the replay still rejects a swap the seat could see)."""
    from kabenvs.games.alakazum.validate import card_places

    face_down = {f"hands[{q}]" for q in range(state.num_players) if q != p} | {
        "forest", "fm", "fm_order", "fm_keep", "finals"}

    def choose(seen):
        places: dict[str, list[int]] = {}
        for field, c in card_places(state):
            if field in face_down and c not in seen:
                places.setdefault(field, []).append(c)
        names = sorted(places)

        def pick(rng):
            first = names[int(rng.integers(len(names)))]
            rest = [c for f in names if f != first for c in places[f]]
            if not rest:
                return None
            return places[first][int(rng.integers(len(places[first])))], rest[int(rng.integers(len(rest)))]

        return pick

    return _swapped_pair(state, p, rng, choose, tries=60)


def _places_gap(state, p: int, other, draws: int) -> tuple[float, tuple]:
    """``worlds_distribution_gap`` by where each kind of card lies (``card_places``: every place
    of the state, not the game's list of hidden zones)."""
    from kabenvs.games.alakazum.validate import card_places

    name, cls = state.game.cs.class_name, state.game.cs.cls
    return worlds_distribution_gap(state, p, other, draws, items=lambda world: (
        (f, name(cls[c]) if cls[c] >= 0 else c) for f, c in card_places(world)))


def test_worlds_do_not_keep_another_casters_forest_magic_cards_by_any_place():
    """Two never-seen cards swapped between any two places (not only the resampler's own hidden
    zones), while another player places its Forest Magic cards, for every seat but the caster:
    the worlds of the two truths follow one distribution of where each kind of card lies. With
    the six left out of a knowing seat's hidden zones (before 2026-12-06) the swap that moved a
    card into the six gave z = inf (every world kept its source's six)."""
    import random

    s = AlakazumGame(num_players=3).new_state(4)
    rnd = random.Random(4)
    while not (s.fm and any(o != s.pending["p"] and (s.forest_sets[o][0] or s.forest_known[o])
                            for o in range(3))):
        s.apply(rnd.choice(s.legal_actions()))
    compared = 0
    for p in range(3):
        if p == s.pending["p"]:
            continue
        for k in range(3):
            other, sigma = _swapped_anywhere(s, p, np.random.default_rng(100 * p + k))
            if other is None:
                continue
            z, key = _places_gap(s, p, other, 20)
            assert z < 6, f"player {p}, swap {sigma}: {key}: z = {z:.1f}"
            compared += 1
    assert compared >= 4


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2)])
def test_worlds_of_a_swapped_truth_match_the_truths(players, seed):
    """Every seat, not only the one to move, at 60% of a random game: worlds drawn from the truth
    and from the truth with two never-seen cards swapped follow one distribution. A world of the
    truth keeps whatever the resampler pins, so only a truth built by hand can show a pin (the
    payer's hats above were one). (Over 36 seats and positions of five 2- and 3-player games, 40
    draws each, the largest z was 4.0.)"""
    state = _position(players, seed, 0.6)
    for p in range(players):
        other = _swapped_truth(state, p, np.random.default_rng(seed * 100 + p))
        assert other is not None, f"no swap fits for player {p}: the test needs another position"
        z, key = worlds_distribution_gap(state, p, other, 30)
        assert z < 6, f"player {p}: {key}: z = {z:.1f}"


def _pinned_positions(players: int, games: int, every: int = 25):
    """Positions of random games where the seat after the one to move saw a card drawn from a
    place another caster's Forest Magic put back (``_Chance.seen_at`` not empty)."""
    import random

    from kabenvs.games.alakazum import resample

    out = []
    for g in range(games):
        state = AlakazumGame(num_players=players).new_state(np.random.default_rng(1000 + g))
        rnd = random.Random(g)
        k = 0
        last: dict[int, tuple] = {}  # per seat, its latest such position in this game
        while state.current_player is not None:
            if k >= 100 and k % every == 0:
                seat = (state.current_player + 1) % players
                origin, actions = resample._start_of(state)
                chance = resample._history_facts(state, seat, origin, actions)[5]
                if chance.seen_at:
                    last[seat] = (state.clone(), seat, dict(chance.seen_at), dict(chance.keep_needs))
            state.apply(rnd.choice(state.legal_actions()))
            k += 1
        out += last.values()
    return out


def test_forest_magic_places_the_seat_saw_drawn_are_the_same_in_every_world():
    """The resampler offers, at another caster's Forest Magic put-back step whose card the seat
    later saw drawn from that place (into its own hand, or turned up to be fought), only that
    class, and a keep only where the rest of the pool holds those classes (``_Chance.seen_at``,
    ``keep_needs``), also with reshuffles between (a world replays the real reshuffle orders).
    That follows from what the seat saw, not from the truth: the same places and classes come
    out of the replay of every world it cannot tell from the truth, and every world holds the
    class there. (Measured on 2026-12-05 over 100 positions of six 5-player games, three draws
    each: 33 of 300 draws fell back instead of 44, 18.9 ms a draw instead of 23.5; pinning through
    reshuffles too, later that day, over 128 positions: 8 of 384 instead of 62.)"""
    from kabenvs.games.alakazum import resample

    positions = _pinned_positions(5, 4)
    assert len(positions) >= 6  # the premise: such places occur in full-length games
    cls = AlakazumGame(num_players=5).new_state(0).game.cs.cls
    through_reshuffles = 0
    for state, seat, seen_at, keep_needs in positions:
        # each pinned card left the deck into the seat's sight: its own hand, a fight, or a hand
        # where it knows the card (checked on the replay, apart from the resampler's tracking)
        origin, actions = resample._start_of(state)
        taken = resample._history_facts(state, seat, origin, actions)[1]
        replay = origin.clone()
        shuffles = []  # the steps where the forest deck was reshuffled
        shuffle_order = replay._shuffle_order
        replay._shuffle_order = lambda n: shuffles.append(step) or shuffle_order(n)
        left: dict[int, bool] = {}
        watched = {taken[k]: k for k in seen_at}
        for step, a in enumerate(actions):
            in_deck = {c for c, k in watched.items() if k < step and c in replay.forest}
            replay.apply(a)
            for c in in_deck:
                if c not in replay.forest and c not in left:
                    target = replay.combat["target"] if replay.combat is not None else -1
                    left[c] = (c in replay.hands[seat] or c == target
                               or any(c in kn for kn in replay.known[seat]))
                    through_reshuffles += any(watched[c] < k < step for k in shuffles)
        assert all(left.get(c) for c in watched), (seat, seen_at, left)
        for d in range(3):
            world = state.resample_hidden(seat, np.random.default_rng(d))
            if world.followed_truth:
                continue
            origin, actions = resample._start_of(world)
            facts = resample._history_facts(world, seat, origin, actions)
            assert facts[5].seen_at == seen_at and facts[5].keep_needs == keep_needs
            for k, c in seen_at.items():
                assert cls[facts[1][k]] == c  # the card the world's step put back there
    assert through_reshuffles  # some pinned card came out after a reshuffle


def test_the_order_of_hidden_gifts_to_one_player_is_no_information_so_worlds_take_one_order():
    """The resampler offers the hidden cards that one sequence of gifts sends to one player in one
    order (by type), not in each of their k! orders (``_Chance.gift_to``). That loses no world
    only if the order is invisible and changes nothing: here, on a random 3-player game where
    player 0 gives half of its hand (four cards player 2 receives unseen by seat 1, among cards
    seat 1 had seen), the real history with those four gifts in another order is legal, reads the
    same to seat 1 at every step (observation, move names, narration) and ends with the same
    cards in the same hands; and every world drawn there sends them in order."""
    import random

    from kabenvs.games.alakazum import resample

    game = AlakazumGame(num_players=3)
    state = game.new_state(np.random.default_rng(2))
    rnd = random.Random(2)
    for _ in range(300):
        state.apply(rnd.choice(state.legal_actions()))
    seat = 1
    origin, actions = resample._start_of(state)
    chance = resample._history_facts(state, seat, origin, actions)[5]
    groups: dict[tuple, list[int]] = {}
    for k, key in chance.gift_to.items():
        groups.setdefault(key, []).append(k)
    steps = max(groups.values(), key=len)
    assert len(steps) == 4 and len({actions[k] for k in steps}) == 4  # four different cards
    hidden = resample._runs_to_rechoose(resample._history_facts(state, seat, origin, actions)[3])[0]
    assert set(steps) <= set(hidden)  # re-chosen in the worlds

    moved = actions[:]
    for k, a in zip(steps, reversed([actions[k] for k in steps])):
        moved[k] = a
    real, other = origin.clone(), origin.clone()
    for a, b in zip(actions, moved):
        assert real.action_name_for(a, seat) == other.action_name_for(b, seat)
        before_real, before_other = real.clone(), other.clone()
        real.apply(a)
        other.apply(b)  # legal: raises otherwise
        assert real.narrate(before_real, a, seat) == other.narrate(before_other, b, seat)
        np.testing.assert_array_equal(real.observation(seat), other.observation(seat))
    assert real.pending == other.pending
    for q in range(3):
        assert sorted(game.cs.htype[c] for c in real.hands[q]) == sorted(game.cs.htype[c] for c in other.hands[q])

    checked = 0
    for d in range(10):
        world = state.resample_hidden(seat, np.random.default_rng(d))
        if not world.followed_truth:
            sent = [world.history[k] for k in steps]
            assert sent == sorted(sent)
            assert all(world.game.kind_of[a] == "give" for a in sent)
            checked += 1
    assert checked >= 1  # (most draws here fall back: docs, "Known gaps")



def test_a_player_short_of_a_card_it_gave_away_backjumps_to_that_gift():
    """Conflict-directed backjumping (``_gave_away``): the latest re-chosen gift of that type by
    that player is the one to change; a type it did not give, or another giver, finds none."""
    from types import SimpleNamespace

    from kabenvs.games.alakazum import resample

    game = AlakazumGame(num_players=3)
    give = game.give_id
    hidden_steps = [10, 12, 14]
    history = [0] * 15
    history[10], history[12], history[14] = give[3], give[5], give[3]
    world = SimpleNamespace(history=history, current_player=0)
    trail = [(SimpleNamespace(history=history, current_player=0), []) for _ in hidden_steps]
    assert resample._gave_away(game, trail, world, hidden_steps, 2, (0, 3)) == 2
    assert resample._gave_away(game, trail, world, hidden_steps, 1, (0, 3)) == 0  # up to step 1
    assert resample._gave_away(game, trail, world, hidden_steps, 2, (0, 5)) == 1
    assert resample._gave_away(game, trail, world, hidden_steps, 2, (0, 4)) is None
    assert resample._gave_away(game, trail, world, hidden_steps, 2, (1, 3)) is None


def test_a_recipient_short_of_a_card_backjumps_to_where_the_gift_would_have_gone():
    """``_not_given``: gifts to player 1 go in one order by type, so a Double potion (type 3)
    it later lacks would have gone where the sequence first gave a later type; with none later,
    at its last gift. Another recipient, or no sequence to it, finds none."""
    from types import SimpleNamespace

    from kabenvs.games.alakazum import resample

    game = AlakazumGame(num_players=3)
    give = game.give_id
    hidden_steps = [10, 12, 14]
    gift_to = {10: (1, 1), 12: (1, 1), 14: (1, 1)}
    history = [0] * 15
    history[10], history[12], history[14] = give[0], give[5], give[6]
    world = SimpleNamespace(history=history)
    assert resample._not_given(game, world, hidden_steps, 2, (1, 3), gift_to) == 1  # first type > 3
    history[12], history[14] = give[2], give[2]
    assert resample._not_given(game, world, hidden_steps, 2, (1, 3), gift_to) == 2  # none later: the last
    assert resample._not_given(game, world, hidden_steps, 1, (1, 3), gift_to) == 1  # up to step 1
    assert resample._not_given(game, world, hidden_steps, 2, (2, 3), gift_to) is None
    assert resample._not_given(game, world, hidden_steps, 2, (1, 3), {}) is None


def test_a_card_seen_later_does_not_pin_the_route_of_a_re_chosen_gift():
    """Seat 2 of a 5-player game met by the shared kit (``KIT_SEED=25``): the seat had seen the
    only Barretina, and a Magic hat 1, go into player 1's hand when player 1 gave three cards face
    down (two to player 3, one to player 0). In a world the resampler drew, the gift to player 0
    was a Magic hat 1 (player 1 held two), and player 0 later paid a Magic hat 1 in view. The
    analysis replay used to route copies by the engine's order: the gift sent the copy the seat
    had seen, and player 0 paid with it, so that card was kept by id on the route through the
    gift, and a re-chosen gift
    sending the Barretina to player 0 left player 0 to find another Magic hat 1 among its
    never-seen cards, which the relabelling rarely gave: the worlds of the world held the
    Barretina in player 0's hand in 2 of 100 draws, those of the truth (whose hat reached player
    0 another way) in 46 (z = 6.9 with 40 draws). Now a card given face down is a copy the seat
    never saw, and one paid in view a copy no hidden gift brought (``resample._route_copies``):
    the two states, which read the same to the seat, give worlds alike."""
    import json
    from pathlib import Path

    from kabenvs.games.alakazum import resample

    case = json.loads((Path(__file__).parent / "data" / "route_of_a_card_seen_later_5p.json").read_text())
    game = AlakazumGame(num_players=5)
    truth, world, seat = game.state_from_json(case["truth"]), game.state_from_json(case["world"]), case["seat"]
    assert world.observation(seat).tobytes() == truth.observation(seat).tobytes()
    # the premise, on the world's own history: its gift to player 0 (step 92) was a Magic hat 1
    # while player 1 held a copy the seat had seen; the analysis now gives a never-seen copy
    origin, actions = resample._start_of(world)
    seen, taken = resample._history_facts(world, seat, origin, actions)[:2]
    replay = origin.clone()
    for a in actions[:92]:
        replay.apply(a)
    hats = [c for c in replay.hands[1] if game.cs.cards[c].name == "Magic hat 1"]
    assert replay.pending["to"] == 0 and game.cs.cards[taken[92]].name == "Magic hat 1"
    assert any(c in seen for c in hats) and taken[92] not in seen
    key = ("hand of player 0", "Barretina")
    z, _ = worlds_distribution_gap(truth, seat, world, 40, items=lambda w: [k for k in (
        (z, x) for z, xs in w.hidden_zones(seat).items() for x in xs) if k == key])
    assert z < 4


def test_a_hidden_gift_sends_the_seen_copy_where_the_recipient_plays_one_next():
    """Seat 2 of a 5-player game met by the shared kit (``KIT_SEED=33``, step 518 of 648): player
    1 gave player 0 a Double potion face down while it held two, one the seat had seen; player 0
    played a Double potion in view 54 steps later, and player 1 lost none in view before that but
    one it had taken from the market in view meanwhile. Sending the never-seen copy in the
    analysis (the rule that mended ``KIT_SEED=25``, above) had player 0 play that copy, so it was
    kept on its route through the gift, and the seen one stayed in player 1's hand in every
    world of the world: Double potions in player 4's hand z = 8.5 with 40 draws (11.5 with 100).
    The copy a hidden gift sends now follows who loses one in view next (``_gift_plan``): here
    the recipient, so the seen copy goes."""
    import json
    from pathlib import Path

    from kabenvs.games.alakazum import resample

    data = Path(__file__).parent / "data"
    case = json.loads((data / "hidden_gift_of_a_card_played_later_5p.json").read_text())
    game = AlakazumGame(num_players=5)
    truth, world, seat = game.state_from_json(case["truth"]), game.state_from_json(case["world"]), case["seat"]
    assert world.observation(seat).tobytes() == truth.observation(seat).tobytes()
    origin, actions = resample._start_of(world)
    facts = resample._history_facts(world, seat, origin, actions)
    taken, chance = facts[1], facts[5]
    replay = origin.clone()
    for a in actions[:416]:
        replay.apply(a)
    name = game.cs.cards[taken[416]].name
    held = sum(game.cs.cards[c].name == name for c in replay.hands[1])
    assert replay.pending["to"] == 0 and name == "Double potion" and held == 2  # the premise
    assert 416 in chance.gift_to and not resample._gift_plan(game, taken, chance, {416})  # a seen copy goes
    key = ("hand of player 4", "Double potion")
    z, _ = worlds_distribution_gap(truth, seat, world, 40, items=lambda w: [k for k in (
        (z, x) for z, xs in w.hidden_zones(seat).items() for x in xs) if k == key])
    assert z < 4


def test_a_card_drawn_face_down_and_seen_later_does_not_pin_its_draw(monkeypatch):
    """Seat 4 of a 5-player game met by the shared kit (``KIT_SEED=33``, step 615 of 648):
    player 1 gave the Multicolour amulet the seat had seen face down to player 3, drew a card
    face down, and later played a Multicolour amulet in view. In the truth that was the drawn
    card, so one draw keeps its place in the deck in every world of the truth, whose player 1
    then mostly keeps the seen one too (in 0.68 of the draws); in a world that kept the seen one
    and drew another card, the amulet played is the seen one and the drawn card is free (its
    worlds: 0.04; z = 6.8 with 40 draws). The chain of draws (``resample.CHAIN``, 3) mends it: a
    world whose re-chosen gift kept the seen copy plays that one, so the next draw leaves the
    drawn card free (z = 1.2 with 40 draws, 0.4 with 100). Shown both ways: one draw leans."""
    import json
    from pathlib import Path

    from kabenvs.games.alakazum import resample as R

    case = json.loads((Path(__file__).parent / "data" / "drawn_card_seen_later_5p.json").read_text())
    game = AlakazumGame(num_players=5)
    truth, world, seat = game.state_from_json(case["truth"]), game.state_from_json(case["world"]), case["seat"]
    assert world.observation(seat).tobytes() == truth.observation(seat).tobytes()
    key = ("hand of player 1", "Multicolour amulet")

    def gap() -> float:
        z, _ = worlds_distribution_gap(truth, seat, world, 40, items=lambda w: [k for k in (
            (z, x) for z, xs in w.hidden_zones(seat).items() for x in xs) if k == key])
        return z

    assert R.CHAIN == 3
    assert gap() < 4
    monkeypatch.setattr(R, "CHAIN", 1)
    assert gap() > 4


def _paid_copies_case():
    import json
    from pathlib import Path

    path = Path(__file__).parent / "data" / "paid_copies_after_a_hidden_gift_5p.json"
    case = json.loads(path.read_text())
    game = AlakazumGame(num_players=5)
    return game, game.state_from_json(case["truth"]), game.state_from_json(case["world"]), case["seat"]


def test_a_payment_takes_a_copy_a_hidden_gift_may_have_brought_by_chance():
    """The ``KIT_SEED=49`` position (below): in the kit's world, player 2 held the Magic hat 1 the
    seat saw player 0 take wherever a re-chosen gift sent it there, besides two never-seen copies,
    and paid two of the three in view. The analysis used to pay the never-seen ones, so the seen
    copy stayed pinned in a hand and no world of that world held a Magic hat 1 in the forest deck
    (0 of 300 draws; the truth's worlds 0.64). Which of the copies leaves is no information, so the
    analysis now picks among those the seat cannot place for sure (a copy a hidden gift may have
    moved, or one it never saw) by chance, the same chance for the same position
    (``resample._route_copies``): then a never-seen copy stays, which the next draw of the chain
    can put in the deck."""
    from kabenvs.games.alakazum import resample as R

    game, truth, world, seat = _paid_copies_case()
    key = ("forest deck", "Magic hat 1")
    held = sum(world.resample_hidden(seat, np.random.default_rng(i)).hidden_zones(seat)[key[0]].count(key[1])
               for i in range(40))
    assert held >= 2  # 0.23 of the draws since (300 draws); none before
    # the chance is the position's own: another copy of the same state routes the same way
    again = game.state_from_json(world.to_dict())
    facts = [R._history_facts(w, seat, *R._start_of(w)) for w in (world, again)]
    assert facts[0][1] == facts[1][1] and facts[0][4].hands == facts[1][4].hands


def test_the_copy_left_hidden_after_a_payment_does_not_depend_on_the_source():
    """Seat 4 of a 5-player game met by the shared kit (``KIT_SEED=49``, step 134 of 671): player
    0 took a Magic hat 1 from the market in view, gave a card face down to player 2 in its
    Halloween, and player 2 paid two Magic hats 1 in view 14 steps later; one Magic hat 1 is
    hidden from the seat. In the truth the gift sent that hat and player 2 paid it with one it
    drew, so the hidden copy is one the seat never saw, which the relabelling puts anywhere. In
    the world (the kit's draw) the re-chosen gift kept the hat and player 2 paid two copies dealt
    to it, so the hidden copy was the seen one, pinned to a hand: z = 10 with 40 draws, 11 with
    300 on the hat in the forest deck (0.23 against 0.64) after payments took copies by chance.
    A draw may now swap a copy the seat first saw leave player 2's hand with a never-seen card
    over its route before then (``resample._swap_before_sighting``), the re-chosen gift bringing
    the seen hat instead; so the world's worlds reach the truth's kind in one draw. It was a
    strict xfail until then (2026-12-08)."""
    game, truth, world, seat = _paid_copies_case()
    assert world.observation(seat).tobytes() == truth.observation(seat).tobytes()
    z, key = worlds_distribution_gap(truth, seat, world, 40)
    assert z < 4, f"{key}: z = {z:.1f}"
    z, key = worlds_distribution_gap(truth, seat, world, 60, items=lambda w: [
        ("forest deck", x) for x in w.hidden_zones(seat)["forest deck"] if x == "Magic hat 1"])
    assert z < 3, f"{key}: z = {z:.1f}"


def test_a_copy_seen_leaving_a_hand_may_have_come_by_a_re_chosen_gift(monkeypatch):
    """The mechanism of the test above, one draw from the kit's world. Without the swap before a
    sighting, no single draw holds the Magic hat 1 in the forest deck (the seen hat stays on its
    route, the dealt copies are paid); with it, a swapped draw sends the seen hat by the gift,
    deals player 2 a card of another type where its paid copy was, and leaves that copy unseen
    where the never-seen card lay. Every such world replays to what the seat saw at every step."""
    from kabenvs.games.alakazum import resample as R

    game, truth, world, seat = _paid_copies_case()
    monkeypatch.setattr(R, "CHAIN", 1)
    origin, actions = R._start_of(world)
    chance = R._history_facts(world, seat, origin, actions)[5]
    # the copy dealt to player 2 and paid at step 54 left its hand after the gift at step 39
    assert chance.exposed[65][:2] == (54, 2) and chance.gift_to[39][1] == 2

    def deck_hats(share: float, draws: int) -> list[int]:
        monkeypatch.setattr(R, "SWAP_SHARE", share)
        out = []
        for i in range(draws):
            w = world.resample_hidden(seat, np.random.default_rng(i))
            out.append(w.hidden_zones(seat)["forest deck"].count("Magic hat 1"))
            if out[-1]:
                assert w.action_name(w.replay_actions()[39]) == "give Magic hat 1"
                replay = w.replay_start()
                past = world.replay_start()
                for a, b in zip(w.replay_actions(), actions):
                    assert replay.observation(seat).tobytes() == past.observation(seat).tobytes()
                    replay.apply(a)
                    past.apply(b)
                assert replay.observation(seat).tobytes() == world.observation(seat).tobytes()
        return out

    assert sum(deck_hats(0.0, 20)) == 0
    assert sum(deck_hats(1.0, 20)) >= 3


def test_re_chosen_gifts_leave_each_hand_what_it_plays_later():
    """Seat 1 of a 5-player game met by the shared kit (``KIT_SEED=27``, step 614 of 768):
    player 0's Halloween gave ten of its twenty cards, nine face down. Afterwards player 0 gave a
    broom to a character, player 2 gave a Food, and player 4 played a Double potion after
    drawing a card. Re-chosen gifts that gave those away were found out only 1 to 25 steps on,
    and the search went back to the run's first gift (the broom's move names no card type),
    so every usual draw, and every patient one, fell back to the real choices. Now a gift that
    leaves the giver without a card it still plays, or a recipient short of one (reading the
    world's own deck for what it draws meanwhile), is refused at once (``resample._gift_needs``)."""
    import json
    from pathlib import Path

    case = json.loads((Path(__file__).parent / "data" / "halloween_needs_5p.json").read_text())
    state, seat = AlakazumGame(num_players=5).state_from_json(case["state"]), case["seat"]
    worlds = [state.resample_hidden(seat, np.random.default_rng(i)) for i in range(4)]
    assert sum(not w.followed_truth for w in worlds) >= 3
    for world in worlds:  # each one the seat's whole past is consistent with (the kit's replay check)
        past, replay = state.replay_start(), world.replay_start()
        assert replay.history == past.history
        for a_true, a in zip(state.history[len(past.history):], world.history[len(replay.history):]):
            assert replay.current_player == past.current_player and replay.is_legal(a)
            np.testing.assert_array_equal(replay.observation(seat), past.observation(seat))
            replay.apply(a)
            past.apply(a_true)
        np.testing.assert_array_equal(replay.observation(seat), state.observation(seat))
