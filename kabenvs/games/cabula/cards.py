"""Cábula's card types and the default deck split (data, not logic).

The rulebook gives the totals (26 stars, 6 double stars, 12 curses, 20 monsters, 25 spells) but
not how the curses, monsters and spells split by type. The counts below are the project's
defaults (docs/games/cabula.md); every one of them is a ``CabulaConfig`` field, so a user who
owns the printed deck can put the real split in. Double stars are not a count: the rulebook puts
exactly one per player into the deck.
"""

from __future__ import annotations

# Card type ids (the index used everywhere: hands, piles and observations are count vectors).
(STAR, DOUBLE, WITCH, NECRO, SKULL, DRAGON, CYCLOPS, MINOTAUR, KRAKEN,
 BALL, CAULDRON, PARCHMENT, BOOK, WAND) = range(14)
NUM_TYPES = 14

# id -> (config field / key, readable singular, readable plural)
CARD_NAMES: tuple[tuple[str, str, str], ...] = (
    ("star", "star", "stars"),
    ("double_star", "double star", "double stars"),
    ("thieving_witch", "Thieving Witch", "Thieving Witches"),
    ("necromancy", "Necromancy", "Necromancies"),
    ("skull", "Skull", "Skulls"),
    ("dragon", "dragon", "dragons"),
    ("cyclops", "cyclops", "cyclopes"),
    ("minotaur", "minotaur", "minotaurs"),
    ("kraken", "kraken", "krakens"),
    ("crystal_ball", "crystal ball", "crystal balls"),
    ("cauldron", "cauldron", "cauldrons"),
    ("parchment", "+2 parchment", "+2 parchments"),
    ("spell_book", "+3 spell book", "+3 spell books"),
    ("magic_wand", "magic wand", "magic wands"),
)
KEYS = tuple(k for k, _, _ in CARD_NAMES)
SINGULAR = tuple(s for _, s, _ in CARD_NAMES)
PLURAL = tuple(p for _, _, p in CARD_NAMES)

CURSES = (WITCH, NECRO, SKULL)
MONSTERS = (DRAGON, CYCLOPS, MINOTAUR, KRAKEN)
TARGETED_SPELLS = (BALL, CAULDRON)
DRAW_SPELLS = {PARCHMENT: 2, BOOK: 3}  # cards drawn per card played
IS_CURSE = tuple(c in CURSES for c in range(NUM_TYPES))
HAND_TYPES = tuple(c for c in range(NUM_TYPES) if not IS_CURSE[c])  # a hand never holds a curse

# Project defaults (the printed component list gives no split): config field -> count. Stars are found (26).
DEFAULT_COUNTS: dict[str, int] = {
    "star": 26,
    "thieving_witch": 6,
    "necromancy": 4,
    "skull": 2,
    "dragon": 5,
    "cyclops": 5,
    "minotaur": 5,
    "kraken": 5,
    "crystal_ball": 5,
    "cauldron": 5,
    "parchment": 6,
    "spell_book": 3,
    "magic_wand": 6,
}

HAND_SIZE = 5  # cards dealt, and Necromancy's target
WIN_STARS = 5


def composition(counts: dict[str, int], num_players: int) -> list[int]:
    """The deck as a count per card type: the configured split plus one double star per player."""
    comp = [0] * NUM_TYPES
    for c, key in enumerate(KEYS):
        comp[c] = num_players if c == DOUBLE else counts[key]
    return comp


# Kinds of attack in the per-player record of the last attack each player made (the monster's
# kind is left out: it changes no effect, and the discard pile shows it while it matters).
ATTACK_KINDS = ("prank", "robbery", "chaos", "crystal ball", "2 crystal balls", "cauldron", "2 cauldrons",
                "turned Thieving Witch", "turned Necromancy", "turned Skull")


def attack_kind(card: int, cnt: int) -> int:
    """Index in ATTACK_KINDS of ``cnt`` cards ``card`` played at a victim (a curse: turned)."""
    if card in MONSTERS:
        return cnt - 2
    if card == BALL:
        return 2 + cnt
    if card == CAULDRON:
        return 4 + cnt
    return 7 + CURSES.index(card)
