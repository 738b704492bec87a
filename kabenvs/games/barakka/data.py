"""Every printed value of Barakka in one place: colours, deck make-up, tiles, scoring tables.

Sources: the rulebook (the published rules) for the scoring tables and the tile rules, and
the printed component list for the deck make-up and tile counts. Values the printed texts leave
open carry a ``# project default`` comment and are listed in docs/games/barakka.md.
"""

from __future__ import annotations

# The five colours of the base game, in the rulebook's order.
BASE_COLOURS: tuple[str, ...] = ("orange", "green", "purple", "red", "blue")
# Names of the promo colours (the texts give no colour name: project default).
BASR_COLOUR = "basr"  # Promo I, The Balance of El-Basr
PORTUGUES_COLOUR = "portugues"  # Promo II, The Intrigue of the Portugues

JOKER = 0  # rank 0 is the joker; numbered cards are ranks 1-5
RANKS = 6  # joker, 1, 2, 3, 4, 5
MAX_SEQUENCE = 5  # "a colour sequence can consist of five cards at most"

# Deck make-up per colour: rank -> copies (the printed component list).
BASE_COLOUR_CARDS: dict[int, int] = {JOKER: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2}  # 12 per colour, 60 in all
BASR_CARDS: dict[int, int] = dict(BASE_COLOUR_CARDS)  # 12 cards, "the same make-up"
PORTUGUES_CARDS: dict[int, int] = {1: 1, 2: 1, 3: 1, 4: 1, 5: 1}  # 5 cards, no joker

# Barakka tiles (the printed component list): 2 per base colour, 2 El-Basr, 1 El Portugues token, 1 Desert Rose.
BASE_TILES_PER_COLOUR = 2
SADID_TILES_PER_COLOUR = 1  # Sadid Al-Aziz: "prepare only 5 Barakka tiles (1 of each colour)"
BASR_TILES = 2

# Scoring tables: index = length of the unbroken run 1..k (0 = no number 1).
BASE_TABLE: tuple[int, ...] = (0, 1, 2, 5, 8, 10)
BASR_TABLE: tuple[int, ...] = (0, 1, 2, 5, 8, 20)
PORTUGUES_TABLE: tuple[int, ...] = (0, -10, -5, 0, 5, 20)
LONE_JOKER_POINTS = 1  # "1 single Joker card: 1 point" (plus its joker bonus of 1, see docs)

DESERT_ROSE_PENALTY = -10  # its holder's base sequences are not all complete and flawless

# Two-player start: the two topmost cards of the deck become the two discard piles.
DISCARD_PILES = 2
SOLO_DECKS = 2  # one-player variant: two draw decks of equal size (30 + 30 with the base deck)

# Rewards with reward="score" (and every solo game): score (difference) / SCORE_SCALE.
SCORE_SCALE = 100.0  # project default: "a total of 100 points may be scored" in the base game

# Turn cap of the two-player game (a turn = draw + play/discard). Drawing from a discard pile
# and discarding again never empties the deck, so the game has no natural bound.
DEFAULT_MAX_TURNS = 500  # project default; reaching it truncates the game (rewards 0)
