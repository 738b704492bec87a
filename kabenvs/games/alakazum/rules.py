"""Alakazum!: Witches and Traditions, for 2-5 players.

Players hypnotise characters of five Iberian cultures (VAL, CAT, GAL, EUS, AND) by fighting them
in the forest or in other players' teams, level them up A-B-C, collect potions, hats, foods,
brooms and culture objects, cast seven spells, and win by conjuring an Alakazum: 8+ culture points
of one culture that beat a face-down final enemy.

Every choice is one decision (one AEC step) by whoever decides, also out of turn (voodoo windows,
a defender's potions, a steal in reply to a die potion, Black Friday recipients, Santa Claus'
die); what is pending lives in ``state.pending``. The card list is data (``cards.csv``, see
``cards.py``).

Rulebook points this engine had to interpret (each is in docs/games/alakazum.md and a test):

1. Turn: thrifty characters take their cards from the market top at the start of the turn
   (before exploring), as many as thrifty characters (fewer if the market runs short).
2. An empty forest deck: exploration draws what is left and then stops; nothing is reshuffled
   into it (the graveyard stays put). An empty market pile: a market visit, a thrifty draw or the
   Unlucky Witch take what there is.
3. Setup: cards dealt in seat order; each non-hand card dealt counts as one exchange; ties for
   the most exchanges ("who last touched a broom") are broken at random by the state's generator.
4. Voodoo window: after a player announces a phase-2 action (with its card or target named) or an
   Alakazum, *every* other player is asked in turn, clockwise, whether to cancel it (only a doll
   holder may). Asking everyone, not only holders, keeps who holds a doll secret. No window opens
   once both dolls are in the box. A cancelled action still uses up that action (or one of the two
   Deja Vu actions); its shown card stays in the hand; a spell is announced with its payment
   (the hats lie on the table during the window) and a cancelled spell's hats go back to the
   hand; a cancelled Alakazum keeps the objects and ends the turn.
5. Alakazum: the player names the culture (8+ points); culture objects of that culture (+2) and
   every multicolour amulet (+1) in the hand are revealed and counted; multicolour characters
   count for any culture. On a failure the player sends a character of that culture or a
   multicolour one (the ones that "took part") to the graveyard, chosen by the player, never a
   broomed one nor the last one.
6. Every final enemy revealed without a winner: the game ends as a shared result (everybody is
   listed as winner, every return is 0). The ``max_turns`` option truncates a runaway game; a
   decision cap of ``max_turns * 60 + 60`` bounds even an endless Santa Claus die chain.
7. Combat: die-valued combat points are rolled once, when the fighters are set, before any
   potion. A sociable helper (any one sociable character of the same team, not the fighter)
   adds its combat points, also in forest combat; it never levels up. Only the main character
   levels up, and only from winning.
8. Potion bidding: the attacker bids first; each bid is one potion or a pass; the bidding ends
   after two consecutive passes. Die potions are played by the winner after the roll, one at a
   time; after each one the loser may answer with a steal potion (the loser is always asked, so
   nobody learns who holds steal potions). Played potions lie on the combat table and go onto the
   market pile, in the order played, when the combat ends; a stolen potion goes to the stealer's
   hand instead. A steal takes the rival's last potion still on the table.
9. A character may be attacked although it is broomed; winning then levels the winner up but the
   broomed character is never hypnotised. A player's only character is never taken either (a
   defender who wins against an attacker's only character levels up and rolls for nothing).
10. Traps: Black Friday gives floor(hand/2) cards when the hand holds 2 or more, one card at a
    time (recipient first, then the card). Halloween: "give half the hand" is possible with 2+
    hand cards, "lose a character" with a losable character; with neither the trap does nothing.
    Santa Claus: a roll under 3 explodes: that player loses a character of their choice if they
    have one to lose (otherwise nothing) and the chain ends; 3+ passes the die to any other player.
11. Forest Magic takes the top 6 cards (fewer if the deck is shorter); the kept card may be any
    of them: a hand card goes to the hand, a character is fought after the other cards are put
    back (first chosen = new top), a trap strikes the caster.
12. Levitation swaps one of the caster's non-broomed characters with a non-broomed character
    below level C in another team (both keep their levels) or with a graveyard character (the
    caster's goes to the graveyard at level A).
13. Unlucky Witch: allowed when every other player has more characters (5 players: at least 3 of
    the 4 others); the two cards are taken one at a time, by type (the topmost copy).
14. Food may be given with no character of its culture (the card is spent for nothing); a broom
    needs a character without one. The Penitente's default resistance is 1/1/2 so the rulebook's
    Ana-vs-Pep example (a 2 hypnotises a level-B Penitente) holds (the printed component list said 1/2/2).
15. Players see which hand cards went into another hand publicly (market, thrifty draws, steals,
    revealed Alakazum objects, a cancelled card) and remember them until that hand loses a card of
    that type in public (then one such card is forgotten). When the hand gives a card away in
    secret, the players who did not see the gift still know all but one of those cards are there:
    a *group* (the cards M, at least r of them still held, and the hand's size before the gift);
    each further secret gift lowers r, a card of a type in M leaving in view (or shown) turns
    (M, r) into (M - x, r - 1); with two groups they also know how many of their cards together
    are still held (a *joint count*, lowered the same way). Knowledge is by type: showing a
    card adds it only where fewer cards of its type were known (copies are identical).
16. Decisions whose mere existence would reveal a hidden hand are always asked (phase 2 and 3,
    combat and die potions, steal replies, voodoo windows), with ``pass`` the only legal action
    when nothing else is; decisions that depend only on public facts are skipped (the fighter of a
    one-character team, the helper when no sociable character can help, Black Friday's recipient
    with 2 players).
17. Sociable helpers in a fight between players: the attacker chooses its fighter and then its
    helper; the defender chooses its helper after seeing both (the rulebook gives no order; the
    attacker, who starts the fight, commits first, as it also bids first with potions).
18. A player who put the deck top back with Forest Magic knows those cards in order. When another
    player casts Forest Magic over them, the first knows they are among the six taken, then (less
    the kept card: seen if it is a character or a trap, a hand card unseen) among the cards put
    back on top, in no known order; each draw from that top takes one of them in view (a
    character, a trap, my own draw) or unseen (a hand card into another hand).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.errors import brief
from kabenvs.core.game import Game, State
from kabenvs.core.observation import ObservationLayout
from kabenvs.games.alakazum.cards import (
    CLAIRVOYANCE, CULTURES, DIE, FOREST_MAGIC, LEVITATION, MULTI, REVIVE, SPELL_COST,
    SPELLS, TRAINING, WITCH, CardSet, load_cards,
)

# Decision kinds (``pending["k"]``); their order is the observation's one-hot.
PICK = "pick_initial_character"
ACTION = "choose_action"
FIGHT_TARGET = "choose_rival_character"
VOODOO = "voodoo_window"
FIGHTER = "choose_fighter"
HELPER = "choose_sociable_helper"
DEF_HELPER = "defender_sociable_helper"
F_POTION = "forest_combat_potions"
F_DIE = "forest_die_potions"
BID = "potion_bidding"
DIE_POT = "die_potions"
STEAL_RESP = "steal_reply"
PAY = "pay_spell"
WITCH_PICK = "unlucky_witch_take"
TRAIN = "training_target"
CLAIR = "clairvoyance_target"
FM_KEEP = "forest_magic_keep"
FM_ORDER = "forest_magic_order"
LEV_MINE = "levitation_mine"
LEV_TARGET = "levitation_target"
REVIVE_PICK = "revive_target"
BROOM_TARGET = "broom_target"
GIVE_TO = "give_recipient"
GIVE_CARD = "give_card"
HALLOWEEN = "halloween_choice"
LOSE_CHAR = "lose_character"
SANTA_PASS = "santa_pass_die"
ALAKAZUM = "alakazum_phase"
FINAL = "choose_final_enemy"
ALAK_LOSE = "alakazum_lose_character"
DECISIONS = (
    PICK, ACTION, FIGHT_TARGET, VOODOO, FIGHTER, HELPER, DEF_HELPER, F_POTION, F_DIE, BID, DIE_POT,
    STEAL_RESP, PAY, WITCH_PICK, TRAIN, CLAIR, FM_KEEP, FM_ORDER, LEV_MINE, LEV_TARGET, REVIVE_PICK,
    BROOM_TARGET, GIVE_TO, GIVE_CARD, HALLOWEEN, LOSE_CHAR, SANTA_PASS, ALAKAZUM, FINAL, ALAK_LOSE,
)
DECISION_INDEX = {k: i for i, k in enumerate(DECISIONS)}
ANNOUNCED = ("market", "food", "broom", "fight", "magic", "alakazum")
MAX_FINALS = 5
FOREST_MAGIC_TAKE = 6
ALAKAZUM_THRESHOLD = 8
SANTA_EXPLODES_BELOW = 3
DECISIONS_PER_TURN = 60  # the decision cap (rules note 6)
MAX_GROUPS = 2  # groups per (seat, hand): the two traps that give cards away unseen (rules note 15)
MAX_PLAYS = 4  # announced plays in one turn: Deja Vu, its two actions, an Alakazum
# Santa Claus' rolls of this turn the observation shows, latest first: a chain goes on while the
# rolls are 3+, so nothing bounds it; a longer one drops its earliest links (public dice and passes
# that change nothing later, docs page). A chain outgrows 16 rolls with odds (2/3)**16, 0.15%.
SANTA_ROWS = 16


@dataclasses.dataclass(frozen=True)
class AlakazumConfig(GameConfig):
    num_players: int = 2
    max_turns: int = 200  # player turns before truncation (rules note 6)
    cards: str = ""  # path of a CSV card list; "" = the bundled cards.csv

    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (2, 3, 4, 5)

    def validate(self) -> None:
        super().validate()
        self.check_int("max_turns", 1, 100_000)
        if not isinstance(self.cards, str):
            self.fail(f"cards={brief(self.cards)} must be a file path (a string); '' = the bundled card list")
        load_cards(self.cards)  # raises ConfigError naming the row and column of a bad value


class AlakazumGame(Game):
    cs: CardSet
    name = "alakazum"
    env_id = "alakazum_v0"
    Config = AlakazumConfig
    # 2 and 5 players play full-length games (the default max_turns: late-game decisions, a
    # failed Alakazum, an empty forest deck); 3 and 4 players a 10-turn limit, which keeps the
    # kit's per-config random games quick and covers the truncation path.
    test_configs = [{"num_players": 2}, {"num_players": 3, "max_turns": 10},
                    {"num_players": 4, "max_turns": 10}, {"num_players": 5}]

    def __init__(self, config=None, **options) -> None:
        super().__init__(config, **options)
        cs = self.cs
        cat = self.catalog
        self.kind_of = [cat.kind(a) for a in range(cat.size)]
        self.move_of = [cat.move(a) for a in range(cat.size)]
        self.char_ids = [cat.id("character", k) for k in range(cs.num_chars)]
        self.pass_id = cat.id("pass")
        # ids the legality code asks for on most decisions, looked up once
        self.voodoo_id, self.broom_id, self.fight_id = cat.id("voodoo"), cat.id("broom"), cat.id("fight")
        self.magic_ids = [cat.id("magic", s) for s in range(len(SPELL_COST))]
        self.alakazum_ids = [cat.id("alakazum", c) for c in range(len(cat.range("alakazum")))]
        self.market_id = {t: cat.id("market", t) for (t,) in (cat.move(a) for a in cat.range("market"))}
        self.food_id = {m: cat.id("food", *m) for m in (cat.move(a) for a in cat.range("food"))}
        self.potion_id = {m: cat.id("potion", *m) for m in (cat.move(a) for a in cat.range("potion"))}
        self.hat_id = {t: cat.id("hat", t) for (t,) in (cat.move(a) for a in cat.range("hat"))}
        self.give_id = [cat.id("give", t) for t in range(cs.num_htypes)]
        self.take_id = [cat.id("take", t) for t in range(cs.num_htypes)]
        self.forest_id = [cat.id("forest", k) for k in range(cs.num_classes)]
        self.finals_in_play = cs.finals_for(self.num_players)
        self.num_dolls = sum(1 for c in cs.cards if c.effect == "voodoo")
        self.in_play = self.in_play_cards()
        self.in_play_set = frozenset(self.in_play)
        self.decision_cap = self.config.max_turns * DECISIONS_PER_TURN + 60
        self.offsets = {name: self.layout.offset(name) for name in self.layout.blocks()}
        # the same starts as attributes (encoding.py reads ~40 of them an observation: an attribute
        # read costs about half of a dict lookup through a bound __getitem__)
        self.at = BlockStarts(self.offsets)

    def in_play_cards(self) -> list[int]:
        """Every card of this game (the Saint Valentine final only with 2 or 5 players)."""
        cs = self.cs
        return [c.id for c in cs.cards if c.kind != "final"] + [f for f, _ in cs.finals_for(self.num_players)]

    def build_catalog(self) -> ActionCatalog:
        # the first builder Game.__init__ calls: the card set is kept from here on
        cs = self.cs = load_cards(self.config.cards)
        n = self.config.num_players
        cat = ActionCatalog()
        chars = [cs.cards[c].name for c in cs.characters]
        cat.add("character", [(k,) for k in range(cs.num_chars)], name=lambda k: f"character {chars[k]}",
                describe="choose a character (initial pick, fighter, helper, target, loss, spell target)")
        cat.add("pass", name="pass", describe="no (more): skip the action, stop potions, no voodoo, no helper, end turn")
        ht = range(cs.num_htypes)
        cat.add("market", [(t,) for t in ht if cs.ht_effect[t] != "voodoo"],
                name=lambda t: f"go to the market showing {cs.ht_name[t]}",
                describe="action a: show this hand card at the market")
        cat.add("food", [(t, c) for t in ht if cs.ht_effect[t] == "food" for c in cs.ht_cultures[t]],
                name=lambda t, c: f"give {cs.ht_name[t]} to the {CULTURES[c]} characters",
                describe="action b: a food for all your characters of one of its two cultures")
        cat.add("broom", name="give a broom", describe="action b: a broom (its character is chosen next)")
        cat.add("fight", name="fight and hypnotise", describe="action c: attack another player's character (chosen next)")
        cat.add("magic", [(s,) for s in range(len(SPELLS))], name=lambda s: f"cast {SPELLS[s]}",
                describe="action d: cast a spell (paid next, then the voodoo window)")
        cat.add("alakazum", [(c,) for c in range(len(CULTURES))], name=lambda c: f"conjure an Alakazum with {CULTURES[c]}",
                describe="phase 3: conjure an Alakazum in this culture (8+ points)")
        cat.add("final", [(i,) for i in range(MAX_FINALS)], name=lambda i: f"final enemy card {i}",
                describe="a face-down final enemy (Alakazum, Clairvoyance)")
        cat.add("voodoo", name="cancel with a voodoo doll", describe="voodoo window: cancel the announced play")
        pots = []
        for t in ht:
            e = cs.ht_effect[t]
            if e in ("combat_potion", "steal_potion"):
                pots.append((t, 0))
            elif e == "die_potion":
                pots.append((t, 1))
            elif e == "double_potion":
                pots += [(t, 0), (t, 1)]
        cat.add("potion", pots, name=lambda t, m: f"play {cs.ht_name[t]}" + (
            (" on combat" if m == 0 else " on the die") if cs.ht_effect[t] == "double_potion" else ""),
            describe="play a potion (double potions: on combat or on the die)")
        cat.add("hat", [(t,) for t in ht if cs.ht_effect[t] == "hat"], name=lambda t: f"pay with {cs.ht_name[t]}",
                describe="pay a spell with a magic hat")
        cat.add("give", [(t,) for t in ht], name=lambda t: f"give {cs.ht_name[t]}",
                describe="Black Friday / Halloween: the card to give")
        cat.add("recipient", [(k,) for k in range(1, n)], name=lambda k: f"to the player {k} seat(s) to the left",
                describe="recipient of a card or of Santa Claus' die, seat-relative")
        cat.add("take", [(t,) for t in ht], name=lambda t: f"take {cs.ht_name[t]} from the market",
                describe="Unlucky Witch: a card of this type from the market pile")
        cat.add("forest", [(k,) for k in range(cs.num_classes)], name=lambda k: f"forest card {cs.class_name(k)}",
                describe="Forest Magic: the card to keep, then the order of the others (first = top)")
        cat.add("halloween", [(0,), (1,)], name=lambda k: ("give half of the hand", "lose a character")[k],
                describe="Halloween's Trick or Treat: which penalty")
        return cat

    def build_layout(self) -> ObservationLayout:
        from kabenvs.games.alakazum.encoding import build_layout

        return build_layout(self)

    def max_decisions(self) -> int:
        return self.decision_cap


def _looks_from_seen(seen) -> list:
    """``looks`` for a save from before it was kept: one look per card seen (a save that is not
    well formed gets what its ``seen`` allows; the checks after the upgrade name what is wrong)."""
    if not isinstance(seen, list):
        return []
    return [[1 if v is True else 0 for v in row] if isinstance(row, list) else [] for row in seen]


class AlakazumState(State):
    # The public rows came after the first saves: older saves rebuild them (State.added_fields).
    # So did the chance scripts (a saved game never had one: its chance was its generator's).
    added_fields = {name: (lambda game, fields, k=k: _public_fields(game.num_players)[k]) for k, name in
                    enumerate(("public_known", "public_groups", "public_joint", "public_capped"))}
    added_fields["shuffles"] = lambda game, fields: []
    added_fields["rolls"] = lambda game, fields: []
    # and the looks with Clairvoyance: an older save (or its start) counts one per seen card
    added_fields["looks"] = lambda game, fields: _looks_from_seen(fields.get("seen"))
    game: AlakazumGame

    # ------------------------------------------------------------------ setup
    @classmethod
    def deal(cls, game: AlakazumGame, rng: np.random.Generator) -> "AlakazumState":
        s = cls(game, rng)
        cs = game.cs
        n = game.num_players
        s.turn = 0
        s.turn_player = 0
        s.stage = "setup"
        s.explore_left = 0
        s.actions_left = 0
        s.in_dejavu = False
        s.over = False
        s.winners_list = []
        s.hands = [[] for _ in range(n)]
        s.teams = [[] for _ in range(n)]
        s.known = [[[] for _ in range(n)] for _ in range(n)]  # known[o][h]: cards o knows h holds
        # groups[o][h]: what o knows h still holds of cards it once knew, after h gave cards away
        # unseen (rules note 15): [[cards M], r, n0] = at least r of M, next to known[o][h] and to
        # each other, lost from a hand of n0 cards; at most MAX_GROUPS per hand
        s.groups = [[[] for _ in range(n)] for _ in range(n)]
        # joint[o][h]: [] or [cards U, J]: h holds at least J of U (by type; U holds every group's
        # cards), next to known[o][h]: the count of the groups together that lowering each group
        # alone loses (rules note 15); kept only while it says more than the groups' r added up
        s.joint = [[[] for _ in range(n)] for _ in range(n)]
        # capped[o][h]: since h's last Alakazum showed them, every culture object of these cultures
        # (0-4) and every amulet (5) h holds is one o accounts for (known or in a group); a card
        # going into h unseen by o ends it
        s.capped = [[[] for _ in range(n)] for _ in range(n)]
        # public_known[h], public_groups[h], public_joint[h], public_capped[h]: what every player
        # knows of h's hand from the events all players see (cards going in or out in view of all,
        # cards shown, an Alakazum; a gift seen by two players is unseen to the others), by the
        # same rules as a seat that saw nothing else. It is the part of what a player j knows of a
        # third hand k that I can follow, so it is kept, and observed, only with three players or
        # more (empty lists with two; docs/games/alakazum.md, "What everyone knows of each hand").
        (s.public_known, s.public_groups, s.public_joint, s.public_capped) = _public_fields(n)
        s.forest_known = [0] * n  # top cards of the forest deck each player knows (Forest Magic)
        # forest_sets[o] = [w, sure, some, r]: the top w cards of the deck hold the cards ``sure`` and
        # at least r of ``some`` (o's known top after another caster's Forest Magic; rules note 18).
        # w <= 6, or (after a reshuffle mixed what o knew into the deck) w is the whole deck; such a
        # set can live beside a known top from o's own later Forest Magic, and then ``sure`` holds
        # those known top cards too (a draw of one removes it from both).
        s.forest_sets = [[0, [], [], 0] for _ in range(n)]
        s.level = [0] * len(cs.cards)
        s.broom = [-1] * len(cs.cards)
        s.graveyard = []
        s.boxed = []
        s.combat = None
        s.pending = None
        s.fm = []  # Forest Magic: cards in the caster's hand of six
        s.fm_order = []  # Forest Magic: cards put back so far (first = new top)
        s.fm_keep = -1  # Forest Magic: a kept character/trap waiting for the cards to be put back
        s.plays = []  # this turn's announced plays in order (kept after they resolve: perfect recall)
        # this turn's Santa Claus rolls in order, [holder, roll]: a roll of 3+ passes the die on, a
        # lower one ends that chain (kept after it ends: whom the die went to is public)
        s.santa = []
        s.staged = []  # hats paid for an announced spell, on the table during the voodoo window
        s.fm_knew = []  # players whose deck knowledge spans the six out (_fm_sets_back follows the keep)
        # The orders of the next reshuffles and the next dice, used before the generator's (None:
        # the generator's order): a resampled world's start scripts its past chance (resample.py);
        # empty in play
        s.shuffles = []
        s.rolls = []
        finals = [f for f, _ in game.finals_in_play]
        s.finals = [int(finals[i]) for i in rng.permutation(len(finals))]
        s.revealed = [False] * len(s.finals)
        s.seen = [[False] * len(s.finals) for _ in range(n)]
        # looks with Clairvoyance per player and position: everyone sees which card is picked up,
        # so a second look at a card the caster already knows is a public event too (seen alone
        # would forget it)
        s.looks = [[0] * len(s.finals) for _ in range(n)]
        s.market = [c.id for c in cs.cards if c.deck == "initial" and c.kind == "hand"]
        s.display = [c.id for c in cs.cards if c.deck == "initial" and c.kind == "character"]
        forest = [c.id for c in cs.cards if c.deck == "forest"]
        s.forest = [forest[i] for i in rng.permutation(len(forest)).tolist()]
        s.exchanges = [0] * n
        returned = []
        for p in range(n):
            while len(s.hands[p]) < 3:
                c = s.forest.pop()
                if cs.is_hand[c]:
                    s.hands[p].append(c)
                else:
                    returned.append(c)
                    s.exchanges[p] += 1
        s.forest += returned
        s.forest = [s.forest[i] for i in rng.permutation(len(s.forest)).tolist()]
        best = max(s.exchanges)
        tied = [p for p in range(n) if s.exchanges[p] == best]
        s.first_player = int(tied[int(rng.integers(len(tied)))]) if len(tied) > 1 else tied[0]
        order = [(s.first_player + i) % n for i in range(n)]
        s.pending = {"k": PICK, "p": order[0], "rest": order[1:]}
        s.current_player = order[0]
        return s

    def _reset_caches(self) -> None:
        super()._reset_caches()
        self._resample_memo: dict = {}  # resample.py: what a seat saw over the history, per seat
        # encoding.py: every team's team, broom, culture-point and energy entries and the graveyard
        # and display rows (under "blocks", encoding._team_blocks) and each viewer p's rows of
        # those six blocks (under p); every change of a team, a level, a broom, the graveyard or the
        # display clears it (the rules' writes to those fields call clear(); a state edited by
        # hand is touch()ed, which comes here)
        self._team_memo: dict = {}
        # encoding.py: each viewer's finals_known / finals_state / finals_seen rows, per viewer;
        # cleared when a seat looks at a final (Clairvoyance) or one is revealed
        self._finals_memo: dict = {}
        # encoding.py: the market pile's observation rows, keyed by the pile (no hook needed)
        self._market_memo: tuple | None = None
        # encoding.py: the boxed block, keyed by the box (no hook needed)
        self._boxed_memo: tuple | None = None
        # encoding.py: every hand's public row encoded once for all seats (None: built on first
        # use), and the hands whose public rows changed since (every rules write to them adds it)
        self._public_enc: np.ndarray | None = None
        self._public_flat: np.ndarray | None = None
        self._public_dirty: set = set()
        # encoding.py: each viewer's rows of what is known of every hand (known_hands through
        # public_hands, encoding._knowledge_section), per viewer, with the versions of the hands
        # it was encoded at; _know_ver[p] counts the changes of what anyone knows of hand p (every
        # rules write to known/groups/joint/capped[o][p] or to p's public row adds one)
        self._know_memo: dict = {}
        self._know_ver: list[int] = [0] * self.game.num_players

    # ------------------------------------------------------------------ small helpers
    def _roll(self) -> int:
        """A die: the generator's, or the next scripted one (a resampled world's start scripts its
        past dice, so that it need not carry the real generator: resample.py)."""
        roll = int(self.rng.integers(1, 7))
        return self.rolls.pop(0) if self.rolls else roll

    def _combat_value(self, card: int) -> int:
        v = self.game.cs.cards[card].combat[self.level[card]]
        return self._roll() if v == DIE else v

    def _resistance(self, card: int) -> int:
        return self.game.cs.cards[card].resistance[self.level[card]]

    def _losable(self, p: int) -> list[int]:
        team = self.teams[p]
        if len(team) < 2:
            return []
        return [c for c in team if self.broom[c] < 0]

    def _can_leave(self, card: int, owner: int) -> bool:
        return len(self.teams[owner]) >= 2 and self.broom[card] < 0

    def _to_graveyard(self, card: int, owner: int) -> None:
        self.teams[owner].remove(card)
        self.level[card] = 0
        self._team_memo.clear()
        self.graveyard.append(card)

    def _energy(self, p: int) -> int:
        e = self.game.cs.energy
        return sum(e[c] for c in self.teams[p])

    def _type_counts(self, p: int) -> list[int]:
        ht = self.game.cs.htype
        counts = [0] * self.game.cs.num_htypes
        for c in self.hands[p]:
            counts[ht[c]] += 1
        return counts

    def _hand_type_counts(self, p: int) -> dict[int, int]:
        """``_type_counts`` for the types ``p`` holds only: the legality loops read these few
        instead of scanning all 27 types (their results are sorted, so the order is free)."""
        ht = self.game.cs.htype
        out: dict[int, int] = {}
        for c in self.hands[p]:
            t = ht[c]
            out[t] = out.get(t, 0) + 1
        return out

    def _find(self, p: int, t: int) -> int:
        ht = self.game.cs.htype
        hand = self.hands[p]
        for i in range(len(hand) - 1, -1, -1):
            if ht[hand[i]] == t:
                return hand[i]
        raise AssertionError(f"player {p} holds no card of type {t}")

    def _has_effect(self, p: int, effect: str) -> bool:
        eff = self.game.cs.effect
        return any(eff[c] == effect for c in self.hands[p])

    def _culture_points(self, p: int, culture: int, with_hand: bool = True) -> int:
        cs = self.game.cs
        total = 0
        for c in self.teams[p]:
            card = cs.cards[c]
            if card.culture == culture or card.culture == MULTI:
                total += card.points[self.level[c]]
        if with_hand:
            for c in self.hands[p]:
                e = cs.effect[c]
                if e == "amulet" or (e == "culture_object" and cs.cards[c].culture == culture):
                    total += cs.value[c]
        return total

    def _all_culture_points(self, p: int) -> list[int]:
        """``_culture_points(p, u)`` (hand included) for every culture u in one pass over the team
        and the hand: the Alakazum decision asked for all five, five passes."""
        cs = self.game.cs
        cards, level = cs.cards, self.level
        nc = len(CULTURES)
        pts = [0] * nc
        for c in self.teams[p]:
            card = cards[c]
            v = card.points[level[c]]
            if card.culture == MULTI:
                for u in range(nc):
                    pts[u] += v
            else:
                pts[card.culture] += v
        amulets = 0
        for c in self.hands[p]:
            e = cs.effect[c]
            if e == "amulet":
                amulets += cs.value[c]
            elif e == "culture_object" and cards[c].culture < nc:
                pts[cards[c].culture] += cs.value[c]
        return [x + amulets for x in pts]

    def _others_with_more(self, p: int) -> int:
        mine = len(self.teams[p])
        return sum(1 for q in range(self.num_players) if q != p and len(self.teams[q]) > mine)

    # -- hands and what others know of them (rules note 15)
    def _reveal(self, p: int, cards: list[int]) -> None:
        """``p`` shows ``cards``: everybody now knows ``p`` holds at least that many of each type.
        Knowledge is by type (copies of a type are identical), so a shown card is added only
        where fewer of its type were known: what a player knows never depends on which copy.
        A newly certain card may be one a group counted on: that group keeps r-1 of M-x
        (exact: every hand that showed x still holds r-1 of M-x next to it)."""
        ht = self.game.cs.htype
        self._know_ver[p] += 1
        for o in range(self.num_players):
            if o != p:
                _sees_shown(self.known[o][p], self.groups[o][p], self.joint[o][p], cards, ht)
        if self.public_known:
            _sees_shown(self.public_known[p], self.public_groups[p], self.public_joint[p], cards, ht)
            self._public_dirty.add(p)

    def _hand_add(self, p: int, card: int, informed: tuple[int, ...] | None) -> None:
        """``informed`` None: everybody saw the card go in; else only those seats."""
        self.hands[p].append(card)
        if informed is None or informed:  # (nobody informed: only _uncap below may change a row)
            self._know_ver[p] += 1
        for o in range(self.num_players):
            if o != p and (informed is None or o in informed):
                self.known[o][p].append(card)
        if informed is not None:
            self._uncap(p, card)
        elif self.public_known:
            self.public_known[p].append(card)
            self._public_dirty.add(p)

    def _uncap(self, p: int, card: int) -> None:
        """``card`` went into ``p``'s hand: those who did not see it can no longer rule out that
        ``p`` holds more amulets or objects than they account for."""
        capped = self.capped
        for o in range(self.num_players):
            if o != p and capped[o][p] and card not in self.known[o][p]:  # (an empty cap stays empty)
                capped[o][p] = []
                self._know_ver[p] += 1
        if self.public_capped and self.public_capped[p]:  # the public never sees a card go in unseen
            self.public_capped[p] = []
            self._public_dirty.add(p)
            self._know_ver[p] += 1

    def _hand_remove(self, p: int, card: int, informed: tuple[int, ...] | None) -> None:
        """A seat that sees the card go forgets one known card of its type (or, with none known,
        one card of each group holding that type); one that does not see it keeps what it knew
        as groups (rules note 15)."""
        self.hands[p].remove(card)
        ht = self.game.cs.htype
        size = len(self.hands[p]) + 1
        self._know_ver[p] += 1
        for o in range(self.num_players):
            if o != p:
                _row_loses(self.known[o][p], self.groups[o][p], self.joint[o][p], card, ht, size,
                           informed is None or o in informed)
        pk = self.public_known
        if pk and (pk[p] or self.public_groups[p] or self.public_joint[p]):  # (an empty row stays empty)
            _row_loses(pk[p], self.public_groups[p], self.public_joint[p], card, ht, size, informed is None)
            self._public_dirty.add(p)

    def _draw_forest(self, p: int) -> int:
        card = self.forest.pop()
        cs = self.game.cs
        hand = cs.is_hand[card]
        for o in range(self.num_players):
            knew = self.forest_known[o] > 0
            if knew:
                self.forest_known[o] -= 1
                if hand and o != p:
                    self.known[o][p].append(card)
                    self._know_ver[p] += 1
            fs = self.forest_sets[o]
            if fs[0]:
                # a drawn hand card goes face down into another hand: o does not see which it is,
                # unless it was a top card o knew
                _set_loses(fs, card, o == p or not hand or knew, cs)
                fs[0] -= 1
                if not fs[0] or not (fs[1] or fs[2]):
                    self.forest_sets[o] = [0, [], [], 0]
        return card

    def _shuffle_order(self, n: int) -> list[int]:
        """The order of a reshuffle of ``n`` cards: the generator's, or the next scripted one. The
        generator draws either way, so the dice after it are the game's own."""
        # (tolist: the same draw; indexing the list with Python ints instead of numpy scalars
        # takes ~15 us instead of ~24 for a 60-card deck)
        order = self.rng.permutation(n).tolist()
        if self.shuffles:
            scripted = self.shuffles.pop(0)
            if scripted is not None:
                if len(scripted) != n:
                    raise ValueError(f"shuffles: the scripted reshuffle orders {len(scripted)} cards, "
                                     f"the forest deck holds {n}")
                order = scripted
        return order

    def _return_to_forest(self, card: int) -> None:
        """A character goes back into the forest deck, which is shuffled. What a seat knew of the
        deck's top is not lost with the order: those cards are still in the deck, so its known top
        and its set become one set over the whole deck (w = its size), which takes and draws then
        follow by the same rules (the returned character is public; it is not added)."""
        for o in range(self.num_players):
            fs, k = self.forest_sets[o], self.forest_known[o]
            sure = fs[1] if fs[0] else self.forest[len(self.forest) - k:] if k else []
            some = fs[2] if fs[0] else []
            self.forest_sets[o] = ([len(self.forest) + 1, sure, some, fs[3] if some else 0]
                                   if sure or some else [0, [], [], 0])
        self.forest.append(card)
        self.forest = [self.forest[i] for i in self._shuffle_order(len(self.forest))]
        self.forest_known = [0] * self.num_players

    # ------------------------------------------------------------------ turn flow
    def _start_turn(self, p: int) -> None:
        cs = self.game.cs
        self.turn_player = p
        self.in_dejavu = False
        self.actions_left = 0
        self.plays = []
        self.santa = []
        thrifty = sum(1 for c in self.teams[p] if cs.thrifty[c])
        for _ in range(min(thrifty, len(self.market))):
            self._hand_add(p, self.market.pop(), None)
        self.stage = "explore"
        self.explore_left = len(self.teams[p])

    def _end_turn(self) -> None:
        self.turn += 1
        if self.turn >= self.game.config.max_turns:
            self.truncated = True
            self.over = True
            return
        self._start_turn((self.turn_player + 1) % self.num_players)

    def _advance(self) -> None:
        """Move the game on until somebody must decide (or it is over)."""
        while self.pending is None and not self.over:
            stage = self.stage
            p = self.turn_player
            if stage == "explore":
                if self.explore_left > 0 and self.forest:
                    self.explore_left -= 1
                    card = self._draw_forest(p)
                    cs = self.game.cs
                    if cs.is_hand[card]:
                        self.hands[p].append(card)
                        self._uncap(p, card)
                    else:
                        self.explore_left = 0  # a trap or a character stops the exploration
                        self._forest_event(p, card)
                else:
                    self.stage = "action"
                    self.actions_left = 1
            elif stage == "action":
                if self.actions_left > 0:
                    self.pending = {"k": ACTION, "p": p}
                else:
                    self.stage = "alakazum"
                    self.pending = {"k": ALAKAZUM, "p": p}
            elif stage == "alakazum":
                self._end_turn()
            else:  # pragma: no cover - setup always has a pending pick
                raise AssertionError(f"no decision pending in stage {stage}")
        self.current_player = None if self.over else self.pending["p"]

    def _forest_event(self, p: int, card: int) -> None:
        if self.game.cs.is_char[card]:
            self._start_forest_combat(p, card)
        else:
            self._trap(p, card)

    # ------------------------------------------------------------------ legality
    def _legal_actions(self) -> list[int]:
        pend = self.pending
        k = pend["k"]
        p = pend["p"]
        g = self.game
        cs = g.cs
        ids = g.char_ids
        if k == PICK:
            return sorted(ids[cs.char_index[c]] for c in self.display)
        if k == ACTION:
            return self._legal_main_action(p)
        if k == FIGHT_TARGET:
            return sorted(ids[cs.char_index[c]] for c in self._attack_targets(p))
        if k == VOODOO:
            return [g.pass_id, g.voodoo_id] if self._has_effect(p, "voodoo") else [g.pass_id]
        if k in (FIGHTER, LEV_MINE):
            team = self.teams[p] if k == FIGHTER else self._levitation_mine(p)
            return sorted(ids[cs.char_index[c]] for c in team)
        if k in (HELPER, DEF_HELPER):
            return sorted(ids[cs.char_index[c]] for c in pend["options"]) + [g.pass_id]
        if k in (F_POTION, BID, F_DIE, DIE_POT, STEAL_RESP):
            return self._legal_potions(p, k)
        if k == PAY:
            return sorted(g.hat_id[t] for t, n in enumerate(self._type_counts(p)) if n and t in g.hat_id)
        if k == WITCH_PICK:
            return sorted({g.take_id[cs.htype[c]] for c in self.market})
        if k == TRAIN:
            return sorted(ids[cs.char_index[c]] for c in self.teams[p] if self.level[c] < 2)
        if k in (CLAIR, FINAL):
            return [g.catalog.id("final", i) for i in range(len(self.finals)) if not self.revealed[i]]
        if k in (FM_KEEP, FM_ORDER):
            return sorted({g.forest_id[cs.cls[c]] for c in self.fm})
        if k == LEV_TARGET:
            return sorted(ids[cs.char_index[c]] for c in self._levitation_targets(p))
        if k == REVIVE_PICK:
            return sorted(ids[cs.char_index[c]] for c in self.graveyard)
        if k == BROOM_TARGET:
            return sorted(ids[cs.char_index[c]] for c in self.teams[p] if self.broom[c] < 0)
        if k in (GIVE_TO, SANTA_PASS):
            return list(g.catalog.range("recipient"))
        if k == GIVE_CARD:
            return sorted({g.give_id[cs.htype[c]] for c in self.hands[p]})
        if k == HALLOWEEN:
            r = g.catalog.range("halloween")
            return [r[i] for i in pend["options"]]
        if k == LOSE_CHAR:
            return sorted(ids[cs.char_index[c]] for c in self._losable(p))
        if k == ALAK_LOSE:
            cul = pend["cul"]
            return sorted(ids[cs.char_index[c]] for c in self._losable(p)
                          if cs.cards[c].culture in (cul, MULTI))
        if k == ALAKAZUM:
            out = [g.alakazum_ids[c] for c, pts in enumerate(self._all_culture_points(p))
                   if pts >= ALAKAZUM_THRESHOLD]
            return out + [g.pass_id]
        raise AssertionError(f"unknown decision {k}")

    def _attack_targets(self, p: int) -> list[int]:
        out = []
        for q in range(self.num_players):
            if q != p and len(self.teams[q]) >= 2:
                out += self.teams[q]
        return out

    def _levitation_targets(self, p: int) -> list[int]:
        out = list(self.graveyard)
        for q in range(self.num_players):
            if q != p:
                out += [c for c in self.teams[q] if self.broom[c] < 0 and self.level[c] < 2]
        return out

    def _levitation_mine(self, p: int) -> list[int]:
        return [c for c in self.teams[p] if self.broom[c] < 0]

    def _spell_possible(self, p: int, s: int) -> bool:
        if s == WITCH:
            need = 3 if self.num_players == 5 else self.num_players - 1
            return self._others_with_more(p) >= need
        if s == TRAINING:
            return any(self.level[c] < 2 for c in self.teams[p])
        if s == CLAIRVOYANCE:
            return not all(self.revealed)
        if s == FOREST_MAGIC:
            return bool(self.forest)
        if s == LEVITATION:
            return bool(self._levitation_mine(p)) and bool(self._levitation_targets(p))
        if s == REVIVE:
            return bool(self.graveyard)
        return not self.in_dejavu  # Deja Vu: never inside Deja Vu

    def _legal_main_action(self, p: int) -> list[int]:
        g = self.game
        cs = g.cs
        out = [g.pass_id]
        hats = 0
        for t, n in self._hand_type_counts(p).items():
            e = cs.ht_effect[t]
            if t in g.market_id:
                out.append(g.market_id[t])
            if e == "food":
                out += [g.food_id[(t, c)] for c in cs.ht_cultures[t]]
            elif e == "hat":
                hats += n * cs.ht_value[t]
            elif e == "broom" and any(self.broom[c] < 0 for c in self.teams[p]):
                out.append(g.broom_id)
        if self._attack_targets(p):
            out.append(g.fight_id)
        energy = hats + self._energy(p)
        magic = g.magic_ids
        for s, cost in enumerate(SPELL_COST):
            if cost <= energy and self._spell_possible(p, s):
                out.append(magic[s])
        return sorted(out)

    def _legal_potions(self, p: int, k: str) -> list[int]:
        g = self.game
        cs = g.cs
        out = [g.pass_id]
        if k == STEAL_RESP:
            modes = ()
        elif k in (F_POTION, BID):
            modes = (0,)
        else:
            modes = (1,)
        steal_ok = k in (BID, STEAL_RESP) and bool(self.combat["pots"][1 - self._side(p)])
        for t in self._hand_type_counts(p):
            e = cs.ht_effect[t]
            if e == "steal_potion":
                if steal_ok:
                    out.append(g.potion_id[(t, 0)])
            elif e in ("combat_potion", "die_potion", "double_potion"):
                for m in modes:
                    if (t, m) in g.potion_id:
                        out.append(g.potion_id[(t, m)])
        return sorted(out)

    def _side(self, p: int) -> int:
        return 0 if self.combat["a"] == p else 1

    # ------------------------------------------------------------------ applying a decision
    def _apply(self, action: int) -> None:
        g = self.game
        kind = g.kind_of[action]
        move = g.move_of[action]
        pend = self.pending
        k = pend["k"]
        p = pend["p"]
        self.pending = None
        handler = _HANDLERS[k]
        handler(self, p, pend, kind, move)
        if self.pending is None:
            self._advance()
        elif not self.over:
            self.current_player = self.pending["p"]
        if self.over:
            self.current_player = None
            self.pending = None
        elif len(self.history) >= g.decision_cap:
            self.truncated = True
            self.over = True
            self.current_player = None
            self.pending = None

    def _char(self, move: tuple) -> int:
        return self.game.cs.characters[move[0]]

    # -- setup
    def _on_pick(self, p, pend, kind, move) -> None:
        c = self._char(move)
        self.display.remove(c)
        self.teams[p].append(c)
        self._team_memo.clear()
        rest = pend["rest"]
        if rest:
            self.pending = {"k": PICK, "p": rest[0], "rest": rest[1:]}
        else:
            self.graveyard += self.display
            self.display = []
            self._start_turn(self.first_player)

    # -- phase 2
    def _on_action(self, p, pend, kind, move) -> None:
        cs = self.game.cs
        if kind == "pass":
            self.actions_left = 0
            return
        self.actions_left -= 1
        if kind == "market":
            card = self._find(p, move[0])
            self._reveal(p, [card])
            self._announce(p, {"a": "market", "card": card})
        elif kind == "food":
            card = self._find(p, move[0])
            self._reveal(p, [card])
            self._announce(p, {"a": "food", "card": card, "cul": move[1]})
        elif kind == "broom":
            card = self._find(p, cs.htype[next(c for c in self.hands[p] if cs.effect[c] == "broom")])
            self._reveal(p, [card])
            self._announce(p, {"a": "broom", "card": card})
        elif kind == "fight":
            self.pending = {"k": FIGHT_TARGET, "p": p}
        elif kind == "magic":
            s = move[0]
            rem = SPELL_COST[s] - self._energy(p)
            if rem > 0:
                self.pending = {"k": PAY, "p": p, "s": s, "rem": rem}
            else:
                self._announce(p, {"a": "magic", "s": s})
        else:  # pragma: no cover
            raise AssertionError(kind)

    def _on_fight_target(self, p, pend, kind, move) -> None:
        c = self._char(move)
        owner = next(q for q in range(self.num_players) if c in self.teams[q])
        self._announce(p, {"a": "fight", "target": c, "def": owner})

    def _announce(self, p: int, ann: dict) -> None:
        self.plays.append({**ann, "cancelled": False})
        n = self.num_players
        if sum(1 for c in self.boxed if self.game.cs.effect[c] == "voodoo") < self.game.num_dolls:
            order = [(p + i) % n for i in range(1, n)]
            self.pending = {"k": VOODOO, "p": order[0], "rest": order[1:], "actor": p, "ann": ann}
        else:
            self._resolve(p, ann)

    def _on_voodoo(self, p, pend, kind, move) -> None:
        if kind == "voodoo":
            cs = self.game.cs
            # by type, like every card leaving a hand (resample.py routes which copy goes)
            doll = self._find(p, cs.htype[next(c for c in self.hands[p] if cs.effect[c] == "voodoo")])
            self._hand_remove(p, doll, None)
            self.boxed.append(doll)
            actor = pend["actor"]
            for c in self.staged:  # a cancelled spell's hats go back to the caster's hand
                self._hand_add(actor, c, None)
            self.staged = []
            self.plays[-1]["cancelled"] = True
            self.plays[-1]["by"] = p
            return  # cancelled: the action is used up / the Alakazum turn ends
        rest = pend["rest"]
        if rest:
            self.pending = {**pend, "p": rest[0], "rest": rest[1:]}
        else:
            self._resolve(pend["actor"], pend["ann"])

    def _resolve(self, p: int, ann: dict) -> None:
        cs = self.game.cs
        a = ann["a"]
        if a == "market":
            card = ann["card"]
            self._hand_remove(p, card, None)
            for _ in range(min(cs.take_back[card], len(self.market))):
                self._hand_add(p, self.market.pop(), None)
            self.market.append(card)
        elif a == "food":
            card = ann["card"]
            self._hand_remove(p, card, None)
            self.market.append(card)
            for c in self.teams[p]:
                if cs.cards[c].culture == ann["cul"]:
                    self.level[c] = 2
                    self._team_memo.clear()
        elif a == "broom":
            self.pending = {"k": BROOM_TARGET, "p": p, "card": ann["card"]}
        elif a == "fight":
            self._start_player_combat(p, ann["def"], ann["target"])
        elif a == "magic":
            self.market += self.staged
            self.staged = []
            self._cast(p, ann["s"])
        elif a == "alakazum":
            self.pending = {"k": FINAL, "p": p, "cul": ann["cul"], "pts": ann["pts"]}
        else:  # pragma: no cover
            raise AssertionError(a)

    def _on_broom_target(self, p, pend, kind, move) -> None:
        c = self._char(move)
        card = pend["card"]
        self._hand_remove(p, card, None)
        self.broom[c] = card
        self._team_memo.clear()

    # -- magic
    def _on_pay(self, p, pend, kind, move) -> None:
        card = self._find(p, move[0])
        self._hand_remove(p, card, None)
        self.staged.append(card)
        rem = pend["rem"] - self.game.cs.value[card]
        if rem > 0:
            self.pending = {**pend, "rem": rem}
        else:
            self._announce(p, {"a": "magic", "s": pend["s"]})

    def _cast(self, p: int, s: int) -> None:
        if s == WITCH:
            left = min(2, len(self.market))
            if left:
                self.pending = {"k": WITCH_PICK, "p": p, "left": left}
        elif s == TRAINING:
            self.pending = {"k": TRAIN, "p": p}
        elif s == CLAIRVOYANCE:
            self.pending = {"k": CLAIR, "p": p}
        elif s == FOREST_MAGIC:
            take = min(FOREST_MAGIC_TAKE, len(self.forest))
            self._fm_sets(p, take)
            self.fm = [self.forest.pop() for _ in range(take)]
            self.pending = {"k": FM_KEEP, "p": p}
        elif s == LEVITATION:
            self.pending = {"k": LEV_MINE, "p": p}
        elif s == REVIVE:
            self.pending = {"k": REVIVE_PICK, "p": p}
        else:
            self.actions_left += 2
            self.in_dejavu = True

    def _fm_sets(self, p: int, take: int) -> None:
        """Another caster's Forest Magic takes every top card a seat knew (at most 5 < 6): the seat
        now knows them only as cards among the six out, in no order (rules note 18). A set over
        the whole deck (after a reshuffle) spans the six out and the deck below them. The caster
        sees the six: a set of its own that reaches below them keeps what they did not show."""
        cs = self.game.cs
        self.fm_knew = []
        top = len(self.forest) - take
        for o in range(self.num_players):
            fs = self.forest_sets[o]
            k = self.forest_known[o]
            if o == p:
                if fs[0] > take:
                    for c in self.forest[top:]:
                        _set_loses(fs, c, True, cs)
                    if fs[1] or fs[2]:
                        self.fm_knew.append(o)
                        continue
                self.forest_sets[o] = [0, [], [], 0]
                continue
            if not (k or fs[0]):
                continue
            self.fm_knew.append(o)
            sure = fs[1] if fs[0] else self.forest[len(self.forest) - k:]
            self.forest_sets[o] = [max(take, fs[0]), sure, fs[2], fs[3]]
        self.forest_known = [0] * self.num_players

    def _fm_sets_back(self, p: int, kept: int) -> None:
        """The caster kept one of the six and put the rest on top: a seat that knew some of the six
        knows they are among those top cards, less the kept card (seen when it is a character or
        a trap, which strikes at once; a kept hand card goes into the caster's hand unseen)."""
        cs = self.game.cs
        for o in self.fm_knew:
            fs = self.forest_sets[o]
            if o == p:  # the caster saw all six (_fm_sets); the cards put back are its known top
                fs[1] = fs[1] + self.fm_order
            elif kept >= 0:
                _set_loses(fs, kept, True, cs)
            else:
                _set_loses(fs, -1, False, cs)
            fs[0] -= 1  # the caster kept one of the cards taken
            if not fs[0] or not (fs[1] or fs[2]):
                self.forest_sets[o] = [0, [], [], 0]

    def _on_witch(self, p, pend, kind, move) -> None:
        ht = self.game.cs.htype
        t = move[0]
        i = max(i for i, c in enumerate(self.market) if ht[c] == t)
        card = self.market.pop(i)
        self._hand_add(p, card, None)
        left = pend["left"] - 1
        if left and self.market:
            self.pending = {**pend, "left": left}

    def _on_train(self, p, pend, kind, move) -> None:
        c = self._char(move)
        self.level[c] += 1
        self._team_memo.clear()

    def _on_clair(self, p, pend, kind, move) -> None:
        self.seen[p][move[0]] = True
        self.looks[p][move[0]] += 1
        self._finals_memo.clear()

    def _fm_take(self, move: tuple) -> int:
        cls = self.game.cs.cls
        card = next(c for c in self.fm if cls[c] == move[0])
        self.fm.remove(card)
        return card

    def _on_fm_keep(self, p, pend, kind, move) -> None:
        card = self._fm_take(move)
        if self.game.cs.is_hand[card]:
            self.hands[p].append(card)
            self._uncap(p, card)
        else:
            self.fm_keep = card
        self._fm_continue(p)

    def _on_fm_order(self, p, pend, kind, move) -> None:
        self.fm_order.append(self._fm_take(move))
        self._fm_continue(p)

    def _fm_continue(self, p: int) -> None:
        if len(self.fm) > 1:
            self.pending = {"k": FM_ORDER, "p": p}
            return
        self.fm_order += self.fm
        self.fm = []
        self.forest += self.fm_order[::-1]  # the first card chosen ends on top
        self.forest_known[p] = len(self.fm_order)
        kept, self.fm_keep = self.fm_keep, -1
        self._fm_sets_back(p, kept)
        self.fm_order = []
        self.fm_knew = []
        if kept >= 0:
            self._forest_event(p, kept)

    def _on_lev_mine(self, p, pend, kind, move) -> None:
        self.pending = {"k": LEV_TARGET, "p": p, "mine": self._char(move)}

    def _on_lev_target(self, p, pend, kind, move) -> None:
        target = self._char(move)
        mine = pend["mine"]
        i = self.teams[p].index(mine)
        if target in self.graveyard:
            j = self.graveyard.index(target)
            self.graveyard[j] = mine
            self.level[mine] = 0
        else:
            q = next(q for q in range(self.num_players) if target in self.teams[q])
            j = self.teams[q].index(target)
            self.teams[q][j] = mine
        self.teams[p][i] = target
        self._team_memo.clear()

    def _on_revive(self, p, pend, kind, move) -> None:
        c = self._char(move)
        self.graveyard.remove(c)
        self.level[c] = 0
        self.teams[p].append(c)
        self._team_memo.clear()

    # -- combat
    def _new_combat(self, kind: str, a: int, d: int, target: int) -> dict:
        return {"t": kind, "a": a, "d": d, "target": target, "fighter": -1, "helper": -1, "dh": -1,
                "ab": 0, "db": 0, "pots": [[], []], "table": [], "passes": 0, "win": -1, "roll": 0,
                "resist": 0}

    def _start_forest_combat(self, p: int, card: int) -> None:
        self.combat = self._new_combat("forest", p, -1, card)
        team = self.teams[p]
        if len(team) >= 2:
            self.pending = {"k": FIGHTER, "p": p}
        else:
            self._set_fighter(p, team[0])

    def _start_player_combat(self, p: int, q: int, target: int) -> None:
        self.combat = self._new_combat("player", p, q, target)
        team = self.teams[p]
        if len(team) >= 2:
            self.pending = {"k": FIGHTER, "p": p}
        else:
            self._set_fighter(p, team[0])

    def _on_fighter(self, p, pend, kind, move) -> None:
        self._set_fighter(p, self._char(move))

    def _set_fighter(self, p: int, fighter: int) -> None:
        cb = self.combat
        cb["fighter"] = fighter
        so = self.game.cs.sociable
        options = [c for c in self.teams[p] if so[c] and c != fighter]
        if options:
            self.pending = {"k": HELPER, "p": p, "options": options}
        else:
            self._after_helper()

    def _on_helper(self, p, pend, kind, move) -> None:
        if kind == "character":
            self.combat["helper"] = self._char(move)
        self._after_helper()

    def _after_helper(self) -> None:
        cb = self.combat
        if cb["t"] == "player":
            so = self.game.cs.sociable
            q = cb["d"]
            options = [c for c in self.teams[q] if so[c] and c != cb["target"]]
            if options:
                self.pending = {"k": DEF_HELPER, "p": q, "options": options}
                return
        self._roll_bases()

    def _on_def_helper(self, p, pend, kind, move) -> None:
        if kind == "character":
            self.combat["dh"] = self._char(move)
        self._roll_bases()

    def _roll_bases(self) -> None:
        cb = self.combat
        cb["ab"] = self._combat_value(cb["fighter"]) + (self._combat_value(cb["helper"]) if cb["helper"] >= 0 else 0)
        cb["db"] = self._combat_value(cb["target"]) + (self._combat_value(cb["dh"]) if cb["dh"] >= 0 else 0)
        if cb["t"] == "forest":
            self.pending = {"k": F_POTION, "p": cb["a"]}
        else:
            self.pending = {"k": BID, "p": cb["a"]}

    def _play_potion(self, p: int, move: tuple) -> bool:
        """Put a potion on the table; returns True for a steal."""
        cs = self.game.cs
        cb = self.combat
        t, mode = move
        card = self._find(p, t)
        self._hand_remove(p, card, None)
        side = self._side(p)
        # the table in the order played: [card, side (0 attacker, 1 defender), mode (1 = on the die)]
        cb["table"].append([card, side, mode])
        if cs.effect[card] == "steal_potion":
            stolen = cb["pots"][1 - side].pop()[0]
            cb["table"] = [e for e in cb["table"] if e[0] != stolen]
            self._hand_add(p, stolen, None)
            return True
        cb["pots"][side].append([card, cs.value[card], mode])
        return False

    def _combat_total(self, side: int) -> int:
        cb = self.combat
        base = cb["ab"] if side == 0 else cb["db"]
        return base + sum(v for _, v, m in cb["pots"][side] if m == 0)

    def _die_total(self, side: int) -> int:
        cb = self.combat
        return cb["roll"] + sum(v for _, v, m in cb["pots"][side] if m == 1)

    def _on_forest_potion(self, p, pend, kind, move) -> None:
        if kind == "potion":
            self._play_potion(p, move)
            self.pending = pend
            return
        cb = self.combat
        if self._combat_total(0) > cb["db"]:
            f = cb["fighter"]
            self.level[f] = min(2, self.level[f] + 1)
            self._team_memo.clear()
            cb["win"] = 0
            cb["roll"] = self._roll()
            cb["resist"] = self._resistance(cb["target"])
            if cb["roll"] > cb["resist"]:
                self._end_forest_combat(True)
            else:
                self.pending = {"k": F_DIE, "p": p}
        else:
            cb["win"] = 1
            self._return_to_forest(cb["target"])
            cb["target"] = -1
            if self._can_leave(cb["fighter"], p):
                self._to_graveyard(cb["fighter"], p)
            self._end_combat()

    def _on_forest_die(self, p, pend, kind, move) -> None:
        if kind == "potion":
            self._play_potion(p, move)
            if self._die_total(0) > self.combat["resist"]:
                self._end_forest_combat(True)
            else:
                self.pending = pend
        else:
            self._end_forest_combat(False)

    def _end_forest_combat(self, hypnotised: bool) -> None:
        cb = self.combat
        card = cb["target"]
        self.level[card] = 0
        self._team_memo.clear()
        if hypnotised:
            self.teams[cb["a"]].append(card)
        else:
            self.graveyard.append(card)
        cb["target"] = -1
        self._end_combat()

    def _end_combat(self) -> None:
        self.market += [e[0] for e in self.combat["table"]]
        self.combat = None

    def _on_bid(self, p, pend, kind, move) -> None:
        cb = self.combat
        other = cb["d"] if p == cb["a"] else cb["a"]
        if kind == "potion":
            self._play_potion(p, move)
            cb["passes"] = 0
            self.pending = {"k": BID, "p": other}
            return
        cb["passes"] += 1
        if cb["passes"] < 2:
            self.pending = {"k": BID, "p": other}
            return
        win = 0 if self._combat_total(0) > self._combat_total(1) else 1
        cb["win"] = win
        winner_char = cb["fighter"] if win == 0 else cb["target"]
        loser_char = cb["target"] if win == 0 else cb["fighter"]
        self.level[winner_char] = min(2, self.level[winner_char] + 1)
        self._team_memo.clear()
        cb["roll"] = self._roll()
        cb["resist"] = self._resistance(loser_char)
        if cb["roll"] > cb["resist"]:
            self._end_player_combat(True)
        else:
            self.pending = {"k": DIE_POT, "p": cb["a"] if win == 0 else cb["d"]}

    def _on_die_pot(self, p, pend, kind, move) -> None:
        cb = self.combat
        if kind == "pass":
            self._end_player_combat(False)
            return
        self._play_potion(p, move)
        loser = cb["d"] if cb["win"] == 0 else cb["a"]
        self.pending = {"k": STEAL_RESP, "p": loser}

    def _on_steal_resp(self, p, pend, kind, move) -> None:
        cb = self.combat
        if kind == "potion":
            self._play_potion(p, move)
        win = cb["win"]
        if self._die_total(win) > cb["resist"]:
            self._end_player_combat(True)
        else:
            self.pending = {"k": DIE_POT, "p": cb["a"] if win == 0 else cb["d"]}

    def _end_player_combat(self, success: bool) -> None:
        cb = self.combat
        a, d = cb["a"], cb["d"]
        if success:
            if cb["win"] == 0:
                char, loser, winner = cb["target"], d, a
            else:
                char, loser, winner = cb["fighter"], a, d
            if self._can_leave(char, loser):
                self.teams[loser].remove(char)
                self.teams[winner].append(char)  # a hypnotised character keeps its level
                self._team_memo.clear()
        self._end_combat()

    # -- traps
    def _trap(self, p: int, card: int) -> None:
        self.boxed.append(card)
        eff = self.game.cs.effect[card]
        h = len(self.hands[p])
        if eff == "black_friday":
            if h >= 2:
                self._start_giving(p, h // 2)
        elif eff == "halloween":
            options = ([0] if h >= 2 else []) + ([1] if self._losable(p) else [])
            if options:
                self.pending = {"k": HALLOWEEN, "p": p, "options": options}
        else:
            self._santa_roll(p)

    def _start_giving(self, p: int, left: int) -> None:
        if self.num_players == 2:
            self.pending = {"k": GIVE_CARD, "p": p, "left": left, "to": 1 - p}
        else:
            self.pending = {"k": GIVE_TO, "p": p, "left": left}

    def _on_give_to(self, p, pend, kind, move) -> None:
        self.pending = {"k": GIVE_CARD, "p": p, "left": pend["left"], "to": (p + move[0]) % self.num_players}

    def _on_give_card(self, p, pend, kind, move) -> None:
        card = self._find(p, move[0])
        to = pend["to"]
        self._hand_remove(p, card, (to,))
        self._hand_add(to, card, (p,))
        left = pend["left"] - 1
        if left:
            self._start_giving(p, left)

    def _on_halloween(self, p, pend, kind, move) -> None:
        if move[0] == 0:
            self._start_giving(p, len(self.hands[p]) // 2)
        else:
            self.pending = {"k": LOSE_CHAR, "p": p}

    def _on_lose_char(self, p, pend, kind, move) -> None:
        self._to_graveyard(self._char(move), p)

    def _santa_roll(self, q: int) -> None:
        r = self._roll()
        self.santa.append([q, r])
        if r < SANTA_EXPLODES_BELOW:
            if self._losable(q):
                self.pending = {"k": LOSE_CHAR, "p": q, "roll": r}
        else:
            self.pending = {"k": SANTA_PASS, "p": q, "roll": r}

    def _on_santa_pass(self, p, pend, kind, move) -> None:
        self._santa_roll((p + move[0]) % self.num_players)

    # -- phase 3
    def _on_alakazum(self, p, pend, kind, move) -> None:
        if kind == "pass":
            return
        cul = move[0]
        cs = self.game.cs
        shown = [c for c in self.hands[p] if cs.effect[c] == "amulet"
                 or (cs.effect[c] == "culture_object" and cs.cards[c].culture == cul)]
        self._reveal(p, shown)
        self._know_ver[p] += 1
        for o in range(self.num_players):
            if o != p:  # the Alakazum showed every amulet and every object of its culture
                self.capped[o][p] = sorted({*self.capped[o][p], cul, len(CULTURES)})
        if self.public_capped:
            self.public_capped[p] = sorted({*self.public_capped[p], cul, len(CULTURES)})
            self._public_dirty.add(p)
        self._announce(p, {"a": "alakazum", "cul": cul, "pts": self._culture_points(p, cul)})

    def _on_final(self, p, pend, kind, move) -> None:
        i = move[0]
        self.revealed[i] = True
        self._finals_memo.clear()
        value = dict(self.game.finals_in_play)[self.finals[i]]
        if pend["pts"] > value:
            self.winners_list = [p]
            self.over = True
            return
        cs = self.game.cs
        cul = pend["cul"]
        if any(cs.cards[c].culture in (cul, MULTI) for c in self._losable(p)):
            self.pending = {"k": ALAK_LOSE, "p": p, "cul": cul}
        else:
            self._check_all_revealed()

    def _on_alak_lose(self, p, pend, kind, move) -> None:
        self._to_graveyard(self._char(move), p)
        self._check_all_revealed()

    def _check_all_revealed(self) -> None:
        if all(self.revealed):
            self.winners_list = list(range(self.num_players))
            self.over = True

    # ------------------------------------------------------------------ results
    def winners(self) -> list[int]:
        return list(self.winners_list)

    def scores(self) -> list[float]:
        return [float(max(self._culture_points(p, c, False) for c in range(len(CULTURES))))
                for p in range(self.num_players)]

    def final_info(self) -> dict[str, Any]:
        cs = self.game.cs
        return {
            "winners": self.winners(),
            "scores": self.scores(),
            "turns": self.turn,
            "truncated": self.truncated,
            "finals": [cs.cards[f].name for f in self.finals],
            "revealed": list(self.revealed),
        }

    def action_names(self, action: int) -> list[str]:
        # action_name_for for every seat, without a call per seat: outside the three decisions
        # below every seat reads the full name (5 calls a step at 5 players otherwise)
        pend = self.pending
        if pend is None or pend["k"] not in (GIVE_CARD, FM_KEEP, FM_ORDER):
            return [self.game.catalog.name(action)] * self.num_players
        return [self.action_name_for(action, seat) for seat in range(self.num_players)]

    def action_name_for(self, action: int, seat: int | None) -> str:
        """The move as ``seat`` saw it: the card given away (Black Friday, Halloween) is seen by
        the giver and the recipient only; another caster's Forest Magic choices are secret."""
        pend = self.pending
        if seat is None or pend is None or seat == pend["p"]:
            return self.game.catalog.name(action)
        k = pend["k"]
        if k == GIVE_CARD and seat != pend["to"]:
            return "give a card (hidden)"
        if k == FM_KEEP:
            return "keep a Forest Magic card (hidden)"
        if k == FM_ORDER:
            return "put a Forest Magic card back on the deck (hidden)"
        return self.game.catalog.name(action)

    def decision(self) -> str:
        if self.current_player is None or self.pending is None:
            return "game over"
        k = self.pending["k"]
        extra = ""
        if k == VOODOO:
            extra = f" (player {self.pending['actor']} announced {self.pending['ann']['a']})"
        elif k == PAY:
            extra = f" ({self.pending['rem']} energy still to pay for {SPELLS[self.pending['s']]})"
        return f"player {self.current_player}: {k.replace('_', ' ')}{extra}"

    # ------------------------------------------------------------------ information
    def observation(self, player: int) -> np.ndarray:
        return (_encode or _bind_encode())(self, player)

    def _resample_hidden(self, player: int, rng) -> "AlakazumState":
        from kabenvs.games.alakazum.resample import resample

        return resample(self, player, rng)

    def _world_holding(self, player: int, want: dict, rng, tries: int) -> "AlakazumState | None":
        from kabenvs.games.alakazum.resample import world_holding

        return world_holding(self, player, want, rng, tries)

    def position_key(self) -> str:
        """The all-seeing render less what no rule reads later (docs, Observation): the order in
        which a team's characters joined it, and the order of the graveyard. Characters join at
        the end and leave from anywhere (a Levitation swaps one in place); every rule and every
        legal move reads a team and the graveyard as sets (decisions list their characters by
        id), so two with the same characters are the same position."""
        canonical = self.clone()
        canonical.teams = [sorted(team) for team in self.teams]
        canonical.graveyard = sorted(self.graveyard)
        return canonical.render(None)

    # where the items hidden from a seat lie (hidden_zones: other hands, the forest deck, another
    # caster's Forest Magic cards, the final enemies): the recall probe's odds-only check sets these
    # aside (kabenvs/core/recall.py, same_possible_worlds; docs, "Which copy an unseen draw put in a hand")
    PLACEMENT_FIELDS = ("hands", "forest", "fm", "fm_order", "fm_keep", "finals")
    # per-pair knowledge rows, [o][h]: what o knows of h's hand
    _PAIR_ROWS = ("known", "groups", "joint", "capped")
    # per-player knowledge of the forest deck: its known top, and its set (w, sure, some, r)
    _DECK_ROWS = ("forest_known", "forest_sets")

    def recall_gap(self, other: "AlakazumState", seat: int) -> str | None:
        """The summaries of this kind the docs name (Information: "What everyone knows of each
        hand", "After a reshuffle"): what another player ``j`` knows beyond what I observe.
        Of a third hand ``k`` (three or more players): beyond what everyone knows of it (the
        public rows, which I observe) it rests on gifts between them that I see only in part.
        Of the forest deck: which cards ``j`` put back with its own Forest Magic, and so which
        of them it knows are still in the deck after a reshuffle; I see only those that came up
        since. It explains a merge only when the two states are the same game in every field but
        rows ``[j][k]`` with neither ``j`` nor ``k`` my seat (I read my rows and the others' rows
        about my hand), other players' deck knowledge (mine is equal), and the order of the
        forest deck (the same cards; the order the ones I know of is equal, or my observation
        would differ). Besides these it allows a market holding other copies of the same cards,
        place by place: copies are alike in every rule, so which copy lies there is history (the
        shared kit's ``KIT_SEED=37``: a third-hand row and the market's copies differed at once)."""
        n = self.num_players
        cards = self.game.cs.cards
        gaps = set()
        for key, (mine, theirs) in self.differing_fields(other).items():
            if key in self._PAIR_ROWS and n >= 3:
                # a row I read differs: mine about a hand, or another's about mine
                if any(mine[seat][h] != theirs[seat][h] or mine[h][seat] != theirs[h][seat] for h in range(n)):
                    return None
                gaps.add("what another player knows of a third hand")
            elif key in self._DECK_ROWS:
                if mine[seat] != theirs[seat]:
                    return None
                gaps.add("what another player knows of the forest deck")
            elif key == "market":
                if [cards[c].name for c in mine] != [cards[c].name for c in theirs]:
                    return None
            elif key != "forest" or sorted(mine) != sorted(theirs):
                return None
        return "; ".join(sorted(gaps)) or None

    def _hidden_zones(self, player: int) -> dict[str, list]:
        from kabenvs.games.alakazum.resample import hidden_zones

        return hidden_zones(self, player)

    def _render(self, player: int | None) -> str:
        from kabenvs.games.alakazum.encoding import render

        return render(self, player)

    def check_fields(self) -> list[str]:
        from kabenvs.games.alakazum.validate import check_fields

        return check_fields(self)

    def invariants(self) -> list[str]:
        from kabenvs.games.alakazum.encoding import invariants

        return invariants(self)

    def clone(self) -> "AlakazumState":
        new = self._clone_base()
        d = self.__dict__
        nd = new.__dict__
        for key in _SCALARS:
            nd[key] = d[key]
        for key in _FLAT_LISTS:
            nd[key] = d[key][:]
        nd["hands"] = [h[:] for h in self.hands]
        nd["teams"] = [t[:] for t in self.teams]
        nd["seen"] = [s[:] for s in self.seen]
        nd["looks"] = [k[:] for k in self.looks]
        nd["known"] = [[k[:] for k in row] for row in self.known]
        nd["pending"] = _copy_json(self.pending)
        nd["combat"] = _copy_json(self.combat)
        nd["plays"] = _copy_json(self.plays)
        nd["santa"] = [link[:] for link in self.santa]
        nd["capped"] = [[c[:] for c in row] for row in self.capped]
        nd["groups"] = [[[[g[0][:], g[1], g[2]] for g in gr] for gr in row] for row in self.groups]
        nd["joint"] = [[[j[0][:], j[1]] if j else [] for j in row] for row in self.joint]
        nd["forest_sets"] = [[f[0], f[1][:], f[2][:], f[3]] for f in self.forest_sets]
        nd["public_known"] = [k[:] for k in self.public_known]
        nd["public_capped"] = [c[:] for c in self.public_capped]
        nd["public_groups"] = [[[g[0][:], g[1], g[2]] for g in gr] for gr in self.public_groups]
        nd["public_joint"] = [[j[0][:], j[1]] if j else [] for j in self.public_joint]
        new._reset_caches()
        return new


_SCALARS = ("current_player", "truncated", "turn", "turn_player", "stage", "explore_left",
            "actions_left", "in_dejavu", "over", "fm_keep", "first_player")
_FLAT_LISTS = ("history", "winners_list", "forest_known", "level", "broom", "graveyard", "boxed",
               "fm", "fm_order", "fm_knew", "staged", "finals", "revealed", "market", "display", "forest",
               "exchanges", "shuffles", "rolls")  # (a scripted order is never mutated, only popped)


def _public_fields(n: int) -> tuple[list, list, list, list]:
    """The public rows where nothing has happened yet: known, groups, joint, capped, one entry per
    hand; empty lists with two players (no third hand, so they are not kept)."""
    if n < 3:
        return [], [], [], []
    return [[] for _ in range(n)], [[] for _ in range(n)], [[] for _ in range(n)], [[] for _ in range(n)]


def _sees_shown(kn: list, groups: list, joint: list, cards: list[int], ht) -> None:
    """One viewer's row on a hand that showed ``cards`` (``_reveal``): each type becomes certain up
    to the number shown, and a group that may have counted on a newly certain card loses it."""
    for card in cards:
        t = ht[card]
        if sum(1 for c in cards if ht[c] == t) > sum(1 for c in kn if ht[c] == t) and card not in kn:
            kn.append(card)
            _groups_lose_type(groups, t, ht, joint)


def _row_loses(kn: list, groups: list, joint: list, card: int, ht, size: int, seen: bool) -> None:
    """One viewer's row on a hand of ``size`` cards that lost ``card`` (``_hand_remove``): seen, it
    forgets one known card of that type (or, with none known, one card of each group holding the
    type); unseen, what it knew becomes groups (rules note 15)."""
    if seen:
        if card in kn:
            kn.remove(card)
        else:
            t = ht[card]
            for i, c in enumerate(kn):
                if ht[c] == t:
                    del kn[i]
                    break
            else:
                _groups_lose_type(groups, t, ht, joint)
    else:
        _groups_lose_unseen(groups, kn, size, joint)
        kn.clear()


def _joint_base(groups: list, joint: list, olds: list[int] | None = None) -> list:
    """The joint count before an event: the kept one, else the one the groups imply (their
    cards together, their r added up; ``olds``: the r before the event lowered them)."""
    if joint:
        return [joint[0][:], joint[1]]
    rs = olds if olds is not None else [g[1] for g in groups]
    return [[c for g in groups for c in g[0]], sum(rs)]


def _joint_keep(groups: list, joint: list, new: list) -> None:
    """Keep ``new`` as the joint count only while it says more than the groups added up."""
    if new[0] and new[1] > sum(g[1] for g in groups):
        joint[:] = [new[0], new[1]]
    else:
        joint.clear()


def _groups_lose_type(groups: list, t: int, ht: list[int], joint: list) -> None:
    """A card of type ``t`` left the hand in view (or was shown) and no certain card of that type
    was known: it may have been one a group counted on, so each group holding the type turns
    (M, r) into (M - t, r - 1), and so does the joint count (U, J): the card was one of U at
    most once, so U loses one card of the type, not one per group. Each count is exact on its
    own: every hand possible afterwards still holds r - 1 of M - t (J - 1 of U - t)."""
    new = _joint_base(groups, joint)
    for g in groups:
        for i, c in enumerate(g[0]):
            if ht[c] == t:
                del g[0][i]
                g[1] = max(0, g[1] - 1)
                break
    groups[:] = [g for g in groups if g[0]]
    for i, c in enumerate(new[0]):
        if ht[c] == t:
            del new[0][i]
            new[1] = max(0, new[1] - 1)
            break
    _joint_keep(groups, joint, new)


def _groups_lose_unseen(groups: list, known: list[int], n0: int, joint: list) -> None:
    """A card left the hand unseen (a hand of ``n0`` cards before): every group may have lost one
    of its cards (r - 1) and the certain cards become a group keeping all but one of them. With
    MAX_GROUPS groups already, the certain cards join the newest group: together they lose at most
    one card (sound; only a game with more than two such traps gets there). The joint count
    (U, J) of the groups together (the one they imply, r added up, when none is kept) lost at
    most that one card: (U + K, J + |K| - 1) with the certain cards K, exact."""
    olds = [g[1] for g in groups]
    new = _joint_base(groups, joint, olds)
    new = [new[0] + known, new[1] + len(known) - 1] if known else [new[0], max(0, new[1] - 1)]
    for g in groups:
        g[1] = max(0, g[1] - 1)
    if known:
        if len(groups) < MAX_GROUPS:
            groups.append([known[:], len(known) - 1, n0])
        else:
            last = groups[-1]
            last[0] = last[0] + known
            last[1] = olds[-1] + len(known) - 1
            last[2] = n0
    _joint_keep(groups, joint, new)


def _set_loses(fs: list, card: int, seen: bool, cs) -> None:
    """One card left a deck top known as a set (``forest_sets``). Seen (a character or trap, or
    the seat's own draw): one card of its class leaves ``sure``, else ``some`` turns (M - x, r - 1).
    Unseen (a hand card going face down into a hand): it may be any hand card the seat counted on,
    so the sure hand cards become part of ``some`` keeping all but one of them; the sure
    characters and traps stay sure (a hand card cannot be one of them)."""
    cls = cs.cls
    sure, some = fs[1], fs[2]
    if seen:
        k = cls[card]
        for i, c in enumerate(sure):
            if cls[c] == k:
                del sure[i]
                return
        for i, c in enumerate(some):
            if cls[c] == k:
                del some[i]
                fs[3] = max(0, fs[3] - 1)
                return
        return
    is_hand = cs.is_hand
    hand = [c for c in sure if is_hand[c]]
    if hand:
        fs[1] = [c for c in sure if not is_hand[c]]
        fs[3] = (fs[3] if some else 0) + len(hand) - 1
        fs[2] = some + hand
    elif any(is_hand[c] for c in some):
        fs[3] = max(0, fs[3] - 1)


def _copy_json(v):
    if isinstance(v, dict):
        return {k: _copy_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy_json(x) for x in v]
    return v


_HANDLERS = {
    PICK: AlakazumState._on_pick,
    ACTION: AlakazumState._on_action,
    FIGHT_TARGET: AlakazumState._on_fight_target,
    VOODOO: AlakazumState._on_voodoo,
    FIGHTER: AlakazumState._on_fighter,
    HELPER: AlakazumState._on_helper,
    DEF_HELPER: AlakazumState._on_def_helper,
    F_POTION: AlakazumState._on_forest_potion,
    F_DIE: AlakazumState._on_forest_die,
    BID: AlakazumState._on_bid,
    DIE_POT: AlakazumState._on_die_pot,
    STEAL_RESP: AlakazumState._on_steal_resp,
    PAY: AlakazumState._on_pay,
    WITCH_PICK: AlakazumState._on_witch,
    TRAIN: AlakazumState._on_train,
    CLAIR: AlakazumState._on_clair,
    FM_KEEP: AlakazumState._on_fm_keep,
    FM_ORDER: AlakazumState._on_fm_order,
    LEV_MINE: AlakazumState._on_lev_mine,
    LEV_TARGET: AlakazumState._on_lev_target,
    REVIVE_PICK: AlakazumState._on_revive,
    BROOM_TARGET: AlakazumState._on_broom_target,
    GIVE_TO: AlakazumState._on_give_to,
    GIVE_CARD: AlakazumState._on_give_card,
    HALLOWEEN: AlakazumState._on_halloween,
    LOSE_CHAR: AlakazumState._on_lose_char,
    SANTA_PASS: AlakazumState._on_santa_pass,
    ALAKAZUM: AlakazumState._on_alakazum,
    FINAL: AlakazumState._on_final,
    ALAK_LOSE: AlakazumState._on_alak_lose,
}
assert set(_HANDLERS) == set(DECISIONS)

AlakazumGame.State = AlakazumState


class BlockStarts:
    """Each observation block's start in the vector as an attribute (``game.at.hand``), built once
    per game from ``game.offsets``."""

    def __init__(self, offsets: dict[str, int]) -> None:
        for name, start in offsets.items():
            setattr(self, name, start)


_encode = None  # encoding.encode, bound on the first observation (encoding.py imports this module)


def _bind_encode():
    """An import statement inside observation() cost ~1 us on every call; bind the encoder once."""
    global _encode
    from kabenvs.games.alakazum.encoding import encode

    _encode = encode
    return encode
