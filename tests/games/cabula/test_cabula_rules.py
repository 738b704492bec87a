"""Cábula rules: the rulebook's worked examples, every card alone and in pairs, and each rules decision."""

from __future__ import annotations

import numpy as np
import pytest

from kabenvs.core.errors import ConfigError, IllegalActionError
from kabenvs.games.cabula import CabulaGame
from kabenvs.games.cabula.cards import CURSES, DOUBLE, NECRO, SKULL, STAR, WAND, WITCH
from tests.games.cabula.cabula_helpers import ID, act, counts, legal_names, rig


def hand(state, p):
    return {k: state.hands[p][c] for k, c in ID.items() if state.hands[p][c]}


# -- the rulebook's worked examples -----------------------------------------------------------------
def test_charlie_wand_saves_his_fourth_star_then_he_wins():
    """Charlie: 4 stars, 6 cards; parchment draws a wand then a Thieving Witch; the wand cancels it."""
    s = rig(2, hands=[{"parchment": 1, "star": 1, "dragon": 1, "cyclops": 1, "cauldron": 1, "kraken": 1}, {}],
            display=[(4, 0), (0, 0)], top=["magic_wand", "thieving_witch", "dragon"])
    deck_before = len(s.deck)
    act(s, "play +2 parchment")
    assert s.current_player == 0 and "hit by Thieving Witch" in s.decision()
    assert legal_names(s) == {"take the curse", "cancel the curse with 1 magic wand"}
    act(s, "cancel the curse with 1 magic wand")
    assert s.display[0] == [4, 0]
    assert sum(s.hands[0]) == 5 and s.hands[0][WAND] == 0
    # two parchment draws + the next player's draw: the cancelled curse is not replaced
    assert len(s.deck) == deck_before - 3 and hand(s, 1) == {"dragon": 1}
    assert s.discard[WITCH] == 1 and s.discard[WAND] == 1
    # opponent's turn: draws, passes; Charlie draws and lays his fifth star
    assert s.current_player == 1
    act(s, "pass")
    act(s, "play a star")
    assert s.current_player is None and s.winners() == [0] and s.returns() == [1.0, -1.0]


def test_charlie_reverse_order_curse_first_then_wand_kept():
    s = rig(2, hands=[{"parchment": 1, "star": 1, "dragon": 1, "cyclops": 1, "cauldron": 1, "kraken": 1}, {}],
            display=[(4, 0), (0, 0)], top=["thieving_witch", "magic_wand"])
    act(s, "play +2 parchment")
    assert legal_names(s) == {"take the curse"}  # asked anyway: no tell that he holds no wand
    act(s, "take the curse")
    assert s.display[0] == [3, 0]  # no wand in hand when the witch came: a star lost (only singles)
    assert s.hands[0][WAND] == 1 and sum(s.hands[0]) == 6
    assert s.current_player == 1


def test_alicia_parchments_necromancy_skull_turned_on_charlie():
    """The rulebook's complicated example, card for card (Alicia 0, Bob 1, Charlie 2)."""
    s = rig(3, hands=[{"parchment": 2, "cauldron": 1, "crystal_ball": 1}, {}, {}],
            display=[(1, 0), (0, 0), (4, 0)],
            top=["necromancy", "star", "minotaur", "magic_wand", "magic_wand", "cyclops", "skull"])
    deck_before = len(s.deck)
    act(s, "play 2 +2 parchments")
    assert "hit by Necromancy" in s.decision() and legal_names(s) == {"take the curse"}
    act(s, "take the curse")
    # necromancy first: two cards in hand, drawn up to five (star, minotaur, wand); then the three
    # remaining parchment draws: wand, cyclops, skull -> a wand window with two wands
    assert s.current_player == 0 and "hit by Skull" in s.decision()
    assert hand(s, 0) == {"star": 1, "minotaur": 1, "magic_wand": 2, "cyclops": 1,
                          "cauldron": 1, "crystal_ball": 1}
    assert len(s.deck) == deck_before - 7
    assert legal_names(s) == {"take the curse", "cancel the curse with 1 magic wand",
                              "cancel and turn the curse with 2 magic wands"}
    act(s, "cancel and turn the curse with 2 magic wands")
    assert "choose who receives the Skull" in s.decision()
    act(s, "target the player 2 seats clockwise")  # Charlie
    assert s.current_player == 2 and legal_names(s) == {"take the curse"}  # no wand to answer with
    act(s, "take the curse")
    assert s.display == [[1, 0], [0, 0], [0, 0]]  # Charlie lost every star, Alicia kept hers
    assert hand(s, 0) == {"star": 1, "minotaur": 1, "cyclops": 1, "cauldron": 1, "crystal_ball": 1}
    assert s.discard[NECRO] == 1 and s.discard[SKULL] == 1 and s.discard[WAND] == 2 and s.discard[STAR] == 4
    assert s.turn == 1 and s.current_player == 1  # Alicia's turn ended with the draws


# -- stars and the double-star rule ---------------------------------------------------------------
def test_double_star_never_wins_on_its_turn_but_wins_at_the_next_start():
    s = rig(2, hands=[{"double_star": 1, "star": 1}, {}], display=[(3, 0), (0, 0)])
    act(s, "play a double star")
    assert s.total(0) == 5 and s.current_player == 1 and s.winner is None
    act(s, "pass")
    deck = len(s.deck)
    assert s.current_player is None and s.winners() == [0]
    assert len(s.deck) == deck  # the check comes before the winner's draw


def test_double_star_win_is_lost_if_the_stars_are_gone_by_then():
    s = rig(2, hands=[{"double_star": 1}, {"dragon": 2}], display=[(3, 0), (0, 0)])
    act(s, "play a double star")
    act(s, "play 2 dragons")  # prank: player 0 holds both kinds and chooses
    assert s.current_player == 0 and legal_names(s) == {"choose a star", "choose a double star"}
    act(s, "choose a star")
    assert s.total(0) == 4 and s.current_player == 0 and s.winner is None


def test_single_star_on_two_plus_double_wins_at_once():
    s = rig(2, hands=[{"star": 1}, {}], display=[(2, 1), (0, 0)])
    act(s, "play a star")
    assert s.winners() == [0]


def test_stars_are_played_one_at_a_time():
    s = rig(2, hands=[{"star": 3, "double_star": 2}, {}])
    names = legal_names(s)
    assert "play a star" in names and "play a double star" in names
    assert not any(n.startswith("play 2 stars") or n.startswith("play 2 double") for n in names)


# -- monsters ---------------------------------------------------------------------------------------
def test_one_monster_goes_for_supplies():
    s = rig(2, hands=[{"dragon": 1}, {}], top=["cauldron"])
    act(s, "play dragon")
    assert hand(s, 0) == {"cauldron": 1} and s.discard[ID["dragon"]] == 1 and s.current_player == 1


def test_monsters_never_mix_and_sets_need_the_count():
    s = rig(2, hands=[{"dragon": 1, "cyclops": 1, "minotaur": 1, "kraken": 1}, {}])
    names = legal_names(s)
    assert {"play dragon", "play cyclops", "play minotaur", "play kraken"} <= names
    assert not any(n.startswith(("play 2", "play 3", "play 4")) for n in names)


def test_prank_victim_chooses_and_star_is_discarded():
    s = rig(3, hands=[{"kraken": 2}, {}, {}], display=[(0, 0), (1, 1), (0, 0)])
    act(s, "play 2 krakens")
    act(s, "target the player 1 seat clockwise")
    assert s.current_player == 1  # the victim chooses
    act(s, "choose a double star")
    assert s.display[1] == [1, 0] and s.discard[DOUBLE] == 1


def test_robbery_wins_at_once():
    s = rig(2, hands=[{"minotaur": 3}, {}], display=[(4, 0), (1, 0)])
    act(s, "play 3 minotaurs")
    assert s.winners() == [0] and s.display == [[5, 0], [0, 0]]


def test_robbery_victim_chooses_which_star_to_give():
    s = rig(3, hands=[{"minotaur": 3}, {}, {}], display=[(0, 0), (0, 0), (1, 1)])
    act(s, "play 3 minotaurs")
    act(s, "target the player 2 seats clockwise")
    assert s.current_player == 2
    act(s, "choose a star")
    assert s.display[0] == [1, 0] and s.display[2] == [0, 1] and s.current_player == 1


def test_chaos_attacker_picks_lost_and_stolen_star_and_wins():
    s = rig(3, hands=[{"cyclops": 4}, {}, {}], display=[(1, 1), (2, 1), (0, 0)])
    act(s, "play 4 cyclopes")
    act(s, "target the player 1 seat clockwise")
    assert s.current_player == 0 and "chaos_lose" in s.decision()
    act(s, "choose a star")  # lost
    assert "chaos_give" in s.decision()
    act(s, "choose a double star")  # stolen: 1 + 2 + 2 = 5
    assert s.display[1] == [1, 0] and s.winners() == [0]
    assert s.discard[STAR] == 1


def test_chaos_on_a_single_displayed_card_only_discards_it():
    s = rig(2, hands=[{"cyclops": 4}, {}], display=[(0, 0), (0, 1)])
    act(s, "play 4 cyclopes")
    assert s.display == [[0, 0], [0, 0]] and s.discard[DOUBLE] == 1


# -- spells -------------------------------------------------------------------------------------------
def test_one_crystal_ball_takes_a_random_card_to_the_hand():
    s = rig(3, hands=[{"crystal_ball": 1}, {"star": 1}, {}])
    act(s, "play crystal ball")
    act(s, "target the player 1 seat clockwise")
    assert hand(s, 0) == {"star": 1} and s.display[0] == [0, 0]  # a star goes to the hand
    assert s.known_cards(1, 0)[STAR] == 1  # the victim saw which card went
    assert s.known_cards(2, 0)[STAR] == 0


def test_two_crystal_balls_look_and_choose():
    s = rig(3, hands=[{"crystal_ball": 2}, {"star": 1, "dragon": 2, "magic_wand": 1}, {}])
    act(s, "play 2 crystal balls")
    act(s, "target the player 1 seat clockwise")
    assert legal_names(s) == {"take a star", "take a dragon", "take a magic wand"}
    obs = s.observation(0)
    lay = s.game.layout
    known = lay.split(obs)["known_hands"][1]
    assert known[ID["dragon"]] == pytest.approx(0.4)  # the seen hand is in my observation
    act(s, "take a magic wand")
    # player 1's turn began with a draw (a wand from the rigged deck) that player 0 did not see
    assert hand(s, 0) == {"magic_wand": 1} and hand(s, 1) == {"star": 1, "dragon": 2, "magic_wand": 1}
    assert s.known_cards(0, 1) == counts({"star": 1, "dragon": 2})  # remembered while they stay there
    act(s, "play dragon")  # one of the seen dragons leaves
    assert s.known_cards(0, 1) == counts({"star": 1, "dragon": 1})


def test_cauldron_one_victim_returns_a_star_to_hand_all_see_it():
    s = rig(3, hands=[{"cauldron": 1}, {}, {}], display=[(0, 0), (2, 1), (0, 0)])
    act(s, "play cauldron")
    act(s, "target the player 1 seat clockwise")
    assert s.current_player == 1
    act(s, "choose a double star")
    assert s.display[1] == [2, 0] and s.hands[1][DOUBLE] == 1
    assert s.known_cards(0, 1)[DOUBLE] == 1 and s.known_cards(2, 1)[DOUBLE] == 1


def test_cauldron_pair_returns_every_star():
    s = rig(2, hands=[{"cauldron": 2}, {}], display=[(0, 0), (3, 1)])
    act(s, "play 2 cauldrons")
    assert s.display[1] == [0, 0] and s.hands[1][STAR] == 3 and s.hands[1][DOUBLE] == 1


@pytest.mark.parametrize("cards,name,drawn", [
    ({"parchment": 1}, "play +2 parchment", 2),
    ({"parchment": 2}, "play 2 +2 parchments", 4),
    ({"spell_book": 1}, "play +3 spell book", 3),
    ({"spell_book": 2}, "play 2 +3 spell books", 6),
])
def test_draw_spells(cards, name, drawn):
    s = rig(2, hands=[cards, {}])
    deck = len(s.deck)
    act(s, name)
    assert sum(s.hands[0]) == drawn and len(s.deck) == deck - drawn - 1  # and the next turn's draw


def test_spell_book_pairs_can_be_switched_off():
    s = rig(2, hands=[{"spell_book": 2}, {}], spell_book_pairs=False)
    assert "play 2 +3 spell books" not in legal_names(s) and "play +3 spell book" in legal_names(s)


def test_magic_wand_is_never_played_in_turn():
    s = rig(2, hands=[{"magic_wand": 2}, {}])
    assert legal_names(s) == {"pass"}


# -- curses -----------------------------------------------------------------------------------------
def test_thieving_witch_victim_chooses():
    s = rig(2, hands=[{}, {}], display=[(1, 1), (0, 0)], top=["thieving_witch"], draw_first=True)
    act(s, "take the curse")
    assert s.current_player == 0 and legal_names(s) == {"choose a star", "choose a double star"}
    act(s, "choose a double star")
    assert s.display[0] == [1, 0] and s.discard[DOUBLE] == 1 and s.discard[WITCH] == 1
    assert "play a card" in s.decision()  # a curse does not end the turn


def test_skull_loses_every_star():
    s = rig(2, hands=[{"star": 1}, {}], display=[(2, 1), (0, 0)], top=["skull"], draw_first=True)
    act(s, "take the curse")
    assert s.display[0] == [0, 0] and s.discard[STAR] == 2 and s.discard[DOUBLE] == 1
    act(s, "play a star")  # still plays afterwards
    assert s.display[0] == [1, 0]


def test_necromancy_discards_down_to_five_by_choice():
    s = rig(2, hands=[{"dragon": 4, "star": 2, "cauldron": 1}, {}], top=["necromancy"], draw_first=True)
    act(s, "take the curse")
    assert "Necromancy" in s.decision()
    assert legal_names(s) == {"discard a star", "discard a dragon", "discard a cauldron"}
    act(s, "discard a cauldron")
    act(s, "discard a dragon")
    assert sum(s.hands[0]) == 5 and "play a card" in s.decision()
    assert s.discard[ID["cauldron"]] == 1 and s.discard[ID["dragon"]] == 1


def test_necromancy_draws_up_with_curses_resolved_on_the_way():
    s = rig(2, hands=[{"dragon": 1}, {}], display=[(1, 0), (0, 0)],
            top=["necromancy", "star", "thieving_witch", "kraken", "cauldron", "cyclops", "minotaur"],
            draw_first=True)
    act(s, "take the curse")  # necromancy
    act(s, "take the curse")  # the witch drawn in the middle
    # witch: resolved at once, not a hand card; the draw goes on to five
    assert s.display[0] == [0, 0]
    assert hand(s, 0) == {"dragon": 1, "star": 1, "kraken": 1, "cauldron": 1, "cyclops": 1}
    assert s.deck[-1] == ID["minotaur"]


def test_wand_chain_turned_twice_then_taken():
    s = rig(3, hands=[{"magic_wand": 2}, {"magic_wand": 2}, {}], display=[(1, 0), (2, 0), (3, 0)],
            top=["skull"], draw_first=True)
    act(s, "cancel and turn the curse with 2 magic wands")
    act(s, "target the player 1 seat clockwise")
    assert s.current_player == 1 and "hit by Skull" in s.decision()
    act(s, "cancel and turn the curse with 2 magic wands")
    act(s, "target the player 2 seats clockwise")  # back on player 0, who has no wand left
    assert s.current_player == 0 and legal_names(s) == {"take the curse"}
    act(s, "take the curse")
    assert s.display == [[0, 0], [2, 0], [3, 0]]
    assert s.current_player == 0 and s.discard[WAND] == 4


def test_redirected_necromancy_draws_for_the_new_victim_and_curses_hit_them():
    s = rig(2, hands=[{"magic_wand": 2}, {"dragon": 1}], display=[(0, 0), (1, 0)],
            top=["necromancy", "star", "skull", "kraken", "cauldron", "cyclops", "minotaur"], draw_first=True)
    act(s, "cancel and turn the curse with 2 magic wands")  # two players: the target is implied
    assert s.current_player == 1 and "hit by Necromancy" in s.decision()
    act(s, "take the curse")
    assert "hit by Skull" in s.decision()  # drawn by player 1's necromancy
    act(s, "take the curse")
    assert s.display[1] == [0, 0]  # the skull drawn by player 1's necromancy hit player 1
    assert hand(s, 1) == {"dragon": 1, "star": 1, "kraken": 1, "cauldron": 1, "cyclops": 1}
    assert s.current_player == 0 and hand(s, 0) == {}


def test_one_wand_cancels_and_the_redirect_never_targets_yourself():
    s = rig(3, hands=[{"magic_wand": 3}, {}, {}], display=[(2, 0), (0, 0), (0, 0)],
            top=["thieving_witch"], draw_first=True)
    assert legal_names(s) == {"take the curse", "cancel the curse with 1 magic wand",
                              "cancel and turn the curse with 2 magic wands"}
    act(s, "cancel and turn the curse with 2 magic wands")
    assert legal_names(s) == {"target the player 1 seat clockwise", "target the player 2 seats clockwise"}


def test_wand_window_is_offered_even_when_the_curse_would_do_nothing():
    s = rig(2, hands=[{"magic_wand": 1}, {}], top=["skull"], draw_first=True)
    assert "hit by Skull" in s.decision() and len(legal_names(s)) == 2


def test_necromancy_discard_is_asked_even_with_one_card_type():
    s = rig(2, hands=[{"star": 7}, {}], top=["necromancy"], draw_first=True)
    act(s, "take the curse")
    assert legal_names(s) == {"discard a star"}
    act(s, "discard a star")
    act(s, "discard a star")
    assert s.hands[0][STAR] == 5 and "play a card" in s.decision()


# -- setup, the deck, limits ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 6])
def test_setup_hands_are_curse_free_and_curses_are_back_in_the_deck(n):
    for seed in range(40):
        s = CabulaGame(num_players=n).new_state(seed)
        for p in range(n):
            assert not any(s.hands[p][c] for c in CURSES)
        # everyone starts with five cards except the first player, who drew one (maybe a curse)
        sizes = sorted(sum(h) for h in s.hands)
        assert sizes[:-1] == [5] * (n - 1) and sizes[-1] in (5, 6)


def test_setup_replaces_curses_even_when_the_deck_is_mostly_curses():
    game = CabulaGame(num_players=6, thieving_witch=150)
    for seed in range(10):
        s = game.new_state(seed)
        assert all(not any(h[c] for c in CURSES) for h in s.hands)
        assert not s.invariants()


def test_config_errors_name_the_field():
    with pytest.raises(ConfigError, match="num_players"):
        CabulaGame(num_players=7)
    with pytest.raises(ConfigError, match="non-curse"):
        CabulaGame(num_players=6, star=0, dragon=0, cyclops=0, minotaur=0, kraken=0, crystal_ball=0)
    with pytest.raises(ConfigError, match="skull"):
        CabulaGame(skull=-1)
    with pytest.raises(ConfigError, match="max_turns"):
        CabulaGame(max_turns=0)


def test_printed_split_can_be_configured():
    game = CabulaGame(num_players=4, thieving_witch=5, necromancy=5, skull=2)
    assert game.composition[WITCH] == 5 and game.composition[NECRO] == 5 and game.composition[DOUBLE] == 4
    assert game.total_cards == 26 + 4 + 12 + 20 + 25


NO_CURSES = {"thieving_witch": 0, "necromancy": 0, "skull": 0}


def test_reshuffle_builds_the_deck_from_the_discard_pile():
    s = rig(2, hands=[{"parchment": 1}, {"star": 2}], top=["kraken"], deck_rest=False, **NO_CURSES)
    assert s.deck == [ID["kraken"]] and not s.deck_cap_known
    pile = s.discard[:]
    pile[ID["parchment"]] += 1  # the parchment is discarded before the draws
    act(s, "play +2 parchment")  # the kraken empties the deck: rebuilt at once, then one more draw
    assert s.deck_cap_known and sum(s.hands[0]) == 2 and s.discard == [0] * 14
    assert len(s.deck) == sum(pile) - 2  # the second parchment draw, then player 1's turn draw
    # everyone knows what the rebuilt deck held (not its order) and each their own draws
    drawn1 = [s.hands[1][c] - (2 if c == STAR else 0) for c in range(14)]
    drawn0 = [s.hands[0][c] - (1 if c == ID["kraken"] else 0) for c in range(14)]
    assert [pile[c] - s.deck_cap[0][c] for c in range(14)] == drawn0
    assert [pile[c] - s.deck_cap[1][c] for c in range(14)] == drawn1
    obs = s.game.layout.split(s.observation(1))
    assert obs["deck_cap_known"][0] == 1.0


def test_reshuffle_with_curses_in_the_pile_fires_them_when_drawn():
    s = rig(2, hands=[{"parchment": 1}, {}], top=[], deck_rest=False)
    act(s, "play +2 parchment")  # the rebuilt deck holds the 12 curses among its cards
    while s.current_player == 0 and s.stack[-1]["k"] != "main":
        act(s, sorted(legal_names(s))[0])
    assert s.deck_cap_known and not s.invariants()
    assert sum(s.deck_floor[1][c] for c in CURSES) + sum(s.discard[c] for c in CURSES) == 12


def empty_both_piles(s):
    """Every card not in player 0's hand into player 1's: nothing left to draw."""
    for c in s.deck:
        s.hands[1][c] += 1
    for c in range(14):
        s.hands[1][c] += s.discard[c]
        s.discard[c] = 0
    s.deck = []
    s.deck_floor = [[0] * 14 for _ in s.deck_floor]
    s.deck_cap = [[0] * 14 for _ in s.deck_cap]
    s.deck_cap_known = False
    s.public_cap = [0] * len(s.public_cap)
    s.touch()


def test_both_piles_empty_the_draw_is_lost():
    """Only possible without curses (a curse is always in the deck or the discard pile)."""
    s = rig(2, hands=[{"parchment": 2}, {}], deck_rest=False, **NO_CURSES)
    empty_both_piles(s)
    deck_rebuilt = s.deck_cap_known
    act(s, "play +2 parchment")
    # the played parchment was the whole discard pile: reshuffled and drawn; the second draw (and
    # player 1's turn draw) found both piles empty and was lost
    assert not deck_rebuilt and s.deck_cap_known
    assert hand(s, 0) == {"parchment": 2} and s.deck == [] and s.discard == [0] * 14
    assert s.current_player == 1


def test_necromancy_stops_when_only_curses_are_left():
    s = rig(2, hands=[{}, {}], top=["necromancy"], draw_first=False, deck_rest=False)
    # every non-curse card in player 1's hand; deck: only the necromancy
    for c in range(len(s.discard)):
        if c not in CURSES:
            s.hands[1][c] += s.discard[c]
            s.discard[c] = 0
    s.stack.append({"k": "draw", "p": 0, "n": 1})
    s.touch()
    s._advance()
    act(s, "take the curse")
    assert s.current_player == 0 and sum(s.hands[0]) == 0 and "play a card" in s.decision()
    assert not s.invariants()


def test_turn_limit_truncates():
    game = CabulaGame(num_players=3, max_turns=4)
    s = game.new_state(1)
    while s.current_player is not None:
        legal = s.legal_actions()
        s.apply(game.pass_id if game.pass_id in legal else legal[0])
    assert s.truncated and s.turn_count == 4 and s.returns() == [0.0, 0.0, 0.0] and s.winners() == []


def test_pass_is_always_legal_in_the_main_decision():
    game = CabulaGame(num_players=4)
    rng = np.random.default_rng(0)
    for seed in range(30):
        s = game.new_state(seed)
        while s.current_player is not None:
            if s.stack[-1]["k"] == "main":
                assert game.pass_id in s.legal_actions()
            s.apply(int(rng.choice(s.legal_actions())))


def test_illegal_action_names_the_decision():
    s = rig(2, hands=[{"dragon": 1}, {}])
    with pytest.raises(IllegalActionError, match="play a card or a set"):
        s.apply(s.game.play_ids[(STAR, 1)])


def test_resample_keeps_what_a_seat_knows():
    s = rig(3, hands=[{"crystal_ball": 2}, {"star": 1, "dragon": 2, "magic_wand": 1}, {"kraken": 3}])
    act(s, "play 2 crystal balls")
    act(s, "target the player 1 seat clockwise")
    for seed in range(20):
        w = s.resample_hidden(0, seed)
        assert w.hands[1] == s.hands[1]  # fully seen
        assert sum(w.hands[2]) == 3 and not w.invariants()
        np.testing.assert_array_equal(w.observation(0), s.observation(0))
    other = {tuple(s.resample_hidden(2, seed).hands[1]) for seed in range(20)}
    assert len(other) > 1  # player 2 saw nothing


def test_action_names_and_render():
    game = CabulaGame(num_players=3)
    names = game.catalog.names()
    assert "play 4 krakens" in names and "play 2 crystal balls" in names and "pass" in names
    s = game.new_state(3)
    text = s.render(0)
    assert "player 1" in text and "cards" in text


class _RiggedShuffle(np.random.Generator):
    """A generator whose first shuffles are given (to rig the deal), random afterwards."""

    def __init__(self, orders):
        super().__init__(np.random.PCG64(0))
        self.orders = list(orders)

    def permutation(self, x):
        return np.array(self.orders.pop(0)) if self.orders else super().permutation(x)


def test_setup_curses_dealt_are_replaced_again_and_again_then_shuffled_back():
    game = CabulaGame(num_players=2)
    cards = [c for c, k in enumerate(game.composition) for _ in range(k)]
    # wanted deck, top first: player 0 gets witch + 4 stars, player 1 five stars; player 0's
    # replacement is a skull (a curse again), then a dragon
    top = [WITCH, STAR, STAR, STAR, STAR] + [STAR] * 5 + [SKULL, ID["dragon"]]
    order, used = [], set()
    for card in top:
        i = next(j for j, c in enumerate(cards) if c == card and j not in used)
        used.add(i)
        order.append(i)
    rest = [j for j in range(len(cards)) if j not in used]
    deck_order = rest + order[::-1]  # the end of the list is the top
    remaining = len(cards) - 12 + 2  # after the deal: the deck plus the two set-aside curses
    s = CabulaGame.State.deal(game, _RiggedShuffle([deck_order, list(range(remaining))]))
    first = s.turn
    # the first player has drawn one card already; look at the other hand, or discount the draw
    p0 = s.hands[0][:]
    if first == 0:
        assert sum(p0) == 6
    assert p0[STAR] >= 4 and p0[ID["dragon"]] >= 1 and not any(p0[c] for c in CURSES)
    assert s.hands[1][STAR] >= 5 and not any(s.hands[1][c] for c in CURSES)
    # both set-aside curses went back into the deck (nothing is on the discard pile yet, unless
    # the first player's draw was a curse)
    assert sum(s.deck.count(c) for c in CURSES) + sum(s.discard[c] for c in CURSES) == 12
    assert not s.invariants()


def test_wand_window_out_of_turn_through_the_aec_env():
    """The env hands the step to the cursed player, out of turn; everyone sees the window."""
    import kabenvs

    s = rig(3, hands=[{"magic_wand": 2}, {"magic_wand": 1}, {}], display=[(0, 0), (2, 0), (4, 0)],
            top=["skull"], draw_first=True)
    act(s, "cancel and turn the curse with 2 magic wands")
    act(s, "target the player 1 seat clockwise")  # on player 1, during player 0's turn
    env = kabenvs.make("cabula_v0", num_players=3)
    env.reset(options={"state": s.to_json()})
    assert env.agent_selection == "player_1"
    obs = env.observe("player_1")
    names = {env.unwrapped.state.action_name(a) for a in np.flatnonzero(obs["action_mask"])}
    assert names == {"take the curse", "cancel the curse with 1 magic wand"}
    assert env.observe("player_0")["action_mask"].sum() == 0
    lay = env.game.layout
    seen_by_2 = lay.split(env.observe("player_2")["observation"])
    assert seen_by_2["decision"][2] == 1.0 and seen_by_2["to_move"][2] == 1.0  # player 1 = 2 seats on
    assert seen_by_2["turn"][1] == 1.0  # still player 0's turn
    env.step(env.unwrapped.state.game.wand_ids[1])
    after = env.unwrapped.state
    assert env.agent_selection == "player_0" and after.display[1] == [2, 0] and after.hands[1][WAND] == 0
    assert "play a card" in after.decision()


def test_the_deck_is_rebuilt_the_moment_its_last_card_is_drawn():
    """Decision 11, the rulebook's "at any point ... the deck runs out": not at the next draw."""
    s = rig(2, hands=[{}, {}], top=["star"], deck_rest=False, draw_first=True, **NO_CURSES)
    # player 0's turn draw took the deck's only card; the pile became the deck before they decide
    assert s.current_player == 0 and s.stack[-1]["k"] == "main" and hand(s, 0) == {"star": 1}
    assert s.deck_cap_known and s.discard == [0] * 14
    assert len(s.deck) == sum(s.game.composition) - 1 and s.discard == [0] * 14
    assert s.game.layout.split(s.observation(1))["deck_cap_known"][0] == 1.0


def test_an_empty_deck_is_rebuilt_as_soon_as_the_pile_holds_a_card():
    s = rig(2, hands=[{"dragon": 1}, {}], deck_rest=False, **NO_CURSES)
    empty_both_piles(s)
    assert s.deck == [] and not any(s.discard)
    act(s, "play dragon")  # the dragon reaches the pile, which becomes the deck, and is drawn back
    assert hand(s, 0) == {"dragon": 1} and s.deck_cap_known
