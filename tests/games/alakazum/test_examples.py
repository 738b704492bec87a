"""The rulebook's worked examples, on rigged tables."""

from __future__ import annotations

from .helpers import Table, do, legal_names, script_dice


def names(t: Table, cards) -> list[str]:
    return sorted(t.cs.cards[c].name for c in cards)


def test_uxia_exploration_stops_at_a_character():
    """Uxía has 3 characters: draws a hand card (keeps it), then a character (must fight it)."""
    t = Table(2)
    t.arrange(teams={0: [("Moura", 0), ("Trasno", 0), ("Pilotari", 0)], 1: [("Olentzero", 0)]},
              forest_top=["Magic hat 2", "Vicentica", "Combat potion +2"])
    s = t.begin_turn(0)
    assert names(t, s.hands[0]) == ["Magic hat 2"]
    assert s.combat["t"] == "forest" and t.cs.cards[s.combat["target"]].name == "Vicentica"
    assert s.pending["k"] == "choose_fighter" and s.current_player == 0
    assert t.cs.cards[s.forest[-1]].name == "Combat potion +2"  # the third card was never drawn
    assert s.explore_left == 0


def test_jordi_die_potion_hypnotises_castanyera():
    """Castanyera has 1 resistance; Jordi rolls 1, adds a +1 die potion: 2 hypnotises it."""
    t = Table(2)
    t.arrange(teams={0: [("Olentzero", 0)], 1: [("Moura", 0)]}, hands={0: ["Die potion +1"]},
              forest_top=["Castanyera"])
    s = t.begin_turn(0)
    assert s.pending["k"] == "forest_combat_potions"  # one character: it fights, no helper to ask
    script_dice(s, [1])
    do(s, "pass")  # no combat potion: 2 > 1 already
    assert s.level[t.state.teams[0][0]] == 1  # the winner went up a level before the roll
    assert s.pending["k"] == "forest_die_potions"
    do(s, "play Die potion +1")
    assert names(t, s.teams[0]) == ["Castanyera", "Olentzero"]
    castanyera = next(c for c in s.teams[0] if t.cs.cards[c].name == "Castanyera")
    assert s.level[castanyera] == 0  # hypnotised at level A
    assert t.cs.cards[s.market[-1]].name == "Die potion +1"  # the potion went to the market
    assert s.pending["k"] == "choose_action"


def test_ana_against_pep_potion_bidding():
    """Ana's level-B Penitente (1) attacks Pep's level-A Dolçainer (1); the bidding goes 2-2,
    3-4; Pep wins, his Dolçainer goes to B, he rolls 1, adds his last +1 die potion: 2 hypnotises."""
    t = Table(2)
    t.arrange(teams={0: [("Penitente", 1), ("Moura", 0)], 1: [("Dolçainer", 0), ("Olentzero", 0)]},
              hands={0: ["Double potion", "Combat potion +1"],
                     1: ["Double potion", "Combat potion +2", "Die potion +1"]})
    s = t.at_action(0)
    do(s, "fight and hypnotise", "character Dolçainer", "character Penitente")
    assert s.pending["k"] == "potion_bidding" and s.current_player == 0
    assert s.combat["ab"] == 1 and s.combat["db"] == 1
    do(s, "play Double potion on combat")          # Ana 2
    do(s, "play Double potion on combat")          # Pep 2
    do(s, "play Combat potion +1")                 # Ana 3
    do(s, "play Combat potion +2")                 # Pep 4
    script_dice(s, [1])
    do(s, "pass", "pass")                          # both stop: Pep's Dolçainer wins
    dolcainer = next(c for c in s.teams[1] if t.cs.cards[c].name == "Dolçainer")
    assert s.level[dolcainer] == 1
    assert s.pending["k"] == "die_potions" and s.current_player == 1
    do(s, "play Die potion +1")
    assert s.pending["k"] == "steal_reply" and s.current_player == 0  # Ana may answer a die potion
    do(s, "pass")
    assert names(t, s.teams[1]) == ["Dolçainer", "Olentzero", "Penitente"]
    penitente = next(c for c in s.teams[1] if t.cs.cards[c].name == "Penitente")
    assert s.level[penitente] == 1  # a hypnotised character keeps its level
    assert s.hands[0] == [] and s.hands[1] == []
    assert len(s.market) == 5 and s.combat is None


def test_izaskun_failed_alakazum():
    """5 Catalan points + barretina (2) + amulet (1) = 8; Halloween (9) beats her; she loses a
    Catalan character and keeps the barretina and the amulet."""
    t = Table(2)
    t.arrange(teams={0: [("Montserrat", 1), ("Castanyera", 0), ("Casteller", 0), ("Caganer", 0)],
                     1: [("Olentzero", 0)]},
              hands={0: ["Barretina", "Multicolour amulet"]})
    s = t.state
    s.finals = [t.final(x) for x in ("Halloween", "Black Friday", "Fast Food", "Santa Claus", "Saint Valentine")]
    t.at_alakazum(0)
    assert s._culture_points(0, 1) == 8
    assert "conjure an Alakazum with CAT" in legal_names(s)
    do(s, "conjure an Alakazum with CAT", "final enemy card 0")
    assert s.revealed[0] and s.current_player == 0 and s.pending["k"] == "alakazum_lose_character"
    do(s, "character Caganer")
    assert "Caganer" in names(t, s.graveyard)
    assert names(t, s.hands[0]) == ["Barretina", "Multicolour amulet"]
    assert s.turn_player == 1 and not s.over  # the turn passed on
    # the objects were shown: everybody now knows she holds them
    assert names(t, s.known[1][0]) == ["Barretina", "Multicolour amulet"]
    jordi = t.id("Sant Jordi")
    s.forest.remove(jordi)
    s.teams[0].append(jordi)  # back to 8 points
    t.at_alakazum(0)
    do(s, "conjure an Alakazum with CAT")
    assert "final enemy card 0" not in legal_names(s)  # Halloween stays revealed, out of the game


def test_iker_five_player_unlucky_witch():
    """Iker and Jordi have 3 characters, Empar, Sabela and Antonio 1: nobody may cast Unlucky
    Witch. Sabela gets a second one: now Empar and Antonio may (3 players have more)."""
    t = Table(5)
    t.arrange(teams={0: [("Moura", 0), ("Trasno", 0), ("Pilotari", 0)], 1: [("Olentzero", 0)],
                     2: [("Fallera", 0), ("Gegant", 0), ("Tuno", 0)], 3: [("Penitente", 0)],
                     4: [("Tió de Nadal", 0)]}, market=["Combat potion +1", "Magic hat 2"])
    s = t.state

    def can(p):
        t.at_action(p)
        return "cast Unlucky Witch" in legal_names(s)

    assert not any(can(p) for p in range(5))
    s.teams[3].append(t.id("Gaiteiro"))
    s.forest.remove(s.teams[3][-1])
    assert [p for p in range(5) if can(p)] == [1, 4]
    t.at_action(1)
    do(s, "cast Unlucky Witch", "take Combat potion +1 from the market", "take Magic hat 2 from the market")
    assert names(t, s.hands[1]) == ["Combat potion +1", "Magic hat 2"] and s.market == []
