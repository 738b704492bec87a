"use strict";
// Each game's table, drawn from its table view (schemas: docs/play.md, "Table views"). Keys a
// drawer does not draw are shown generically below it (KabDraw.rest), so a newer view still shows
// everything; a drawer that fails falls back to the generic drawing (draw.js).
(function () {
  const D = window.KabDraw, el = D.el;
  const COLOURS = { orange: "#f39a2b", green: "#3fa34d", blue: "#3b6fd1", pink: "#e36fb0", red: "#d33",
    yellow: "#e8c420", purple: "#8a4fc4", white: "#eee", black: "#333", grey: "#999", brown: "#8b5a2b" };

  function colourOf(name) {
    const word = String(name || "").toLowerCase().split(/[ _]/)[0];
    return COLOURS[word] || null;
  }

  function panel(title, key, cls) {
    const p = el("div", "panel" + (cls ? " " + cls : ""));
    if (key) p.dataset.key = key;
    if (title) p.appendChild(el("h4", "", title));
    return p;
  }

  function card(text, key, cls, sub) {
    const c = el("div", "card" + (cls ? " " + cls : ""));
    c.appendChild(el("span", "card-name", text));
    if (sub !== undefined && sub !== null) c.appendChild(el("span", "card-sub", sub));
    if (key) c.dataset.key = key;
    const colour = colourOf(text);
    if (colour) c.style.borderTop = "8px solid " + colour;
    return c;
  }

  function backs(n, label) {
    const row = el("div", "row");
    if (n > 0) row.appendChild(card(label || "", null, "back", "× " + n));
    return row;
  }

  function piece(colour, title) {
    const p = el("span", "piece");
    p.style.background = colourOf(colour) || "#ccc";
    p.title = title || colour;
    return p;
  }

  function playerTitle(view, p) {
    return "player " + p + (p === view.seat ? " (you)" : "") + (p === view.current_player ? " — to move" : "");
  }

  function withRest(view, box, known) {
    box.appendChild(D.rest(view, known));
    return box;
  }

  // -- Kabaleo: spots with stacks and tops; stocks; the secret colours -----------------------
  D.games.kabaleo_v0 = function (view) {
    const box = el("div", "kabaleo");
    const spots = el("div", "row spots");
    view.spots.forEach((s, i) => {
      const spot = el("div", "spot" + (s.last_move ? " last" : ""));
      spot.dataset.key = "spot:" + i;
      const stack = el("div", "stack");
      [s.base].concat(s.pieces).forEach((c, j) => {
        const disc = el("div", "disc" + (j === 0 ? " base" : ""));
        disc.style.background = colourOf(c) || "#ccc";
        disc.title = (j === 0 ? "base " : "piece ") + c;
        stack.appendChild(disc);
      });
      spot.appendChild(stack);
      spot.appendChild(el("div", "spot-label", "spot " + i + " · top " + s.top));
      spots.appendChild(spot);
    });
    box.appendChild(panel("Spots (stack height " + view.spots.map((s) => s.pieces.length).join("/") + ")"))
      .appendChild(spots);
    const stocks = el("div", "row");
    view.stock.forEach((stock, p) => {
      const pn = panel(playerTitle(view, p) + (view.secret_colours[p] ? " · secret colour " + view.secret_colours[p] : ""));
      const row = el("div", "row");
      for (const [c, k] of Object.entries(stock)) {
        const chip = el("div", "stock-chip");
        if (p === view.seat) chip.dataset.key = "stock:" + c;
        chip.appendChild(piece(c));
        chip.appendChild(el("span", "", c + " × " + k));
        row.appendChild(chip);
      }
      pn.appendChild(row);
      stocks.appendChild(pn);
    });
    box.appendChild(stocks);
    return withRest(view, box, ["spots", "stock", "secret_colours", "colours"]);
  };

  // -- Barakka: sequences (backs for hidden cards), discard piles with their top, tiles --------
  D.games.barakka_v0 = function (view) {
    const box = el("div", "barakka");
    const table = el("div", "row");
    const decks = panel("Deck" + (view.decks.length > 1 ? "s" : ""), "deck");
    view.decks.forEach((n) => decks.appendChild(card("deck", null, "back", n + " cards")));
    table.appendChild(decks);
    view.piles.forEach((pile, i) => {
      const pn = panel("pile " + (i + 1), "pile:" + (i + 1));
      const row = el("div", "row");
      if (pile.covered) row.appendChild(card("", null, "back", "× " + pile.covered));
      const shown = pile.cards.slice(-4);
      if (pile.cards.length > shown.length) row.appendChild(el("span", "note", "+" + (pile.cards.length - shown.length)));
      shown.forEach((c) => row.appendChild(card(c)));
      if (!pile.cards.length && !pile.covered) row.appendChild(el("span", "nil", "empty"));
      pn.appendChild(row);
      table.appendChild(pn);
    });
    box.appendChild(table);
    view.players.forEach((pl, p) => {
      const pn = panel(playerTitle(view, p));
      const held = el("div", "row");
      if (pl.holds) pl.holds.forEach((c, j) => held.appendChild(card(c, p === view.seat ? "held:" + (j + 1) : null, "held", "in hand")));
      else if (pl.holds_count) held.appendChild(card("", null, "back", "holds " + pl.holds_count));
      pn.appendChild(held);
      const seqs = el("div", "row");
      pl.sequences.forEach((s, j) => {
        const seq = el("div", "sequence");
        const first = s.cards.find((c) => c);
        // El-Karim numbers sequences (their first card lies face down); else a colour names one
        seq.dataset.key = "sequence:" + (s.first_face_down ? j + 1 : String(first || "").split(" ")[0]);
        s.cards.forEach((c) => seq.appendChild(c ? card(c) : card("", null, "back")));
        seqs.appendChild(seq);
      });
      if (p === view.seat && !pl.sequences.some((s) => s.first_face_down)) {
        // an empty place to start a new sequence of each colour
        for (const colour of view.colours) {
          if (!pl.sequences.some((s) => String(s.cards.find((c) => c) || "").toLowerCase().startsWith(colour.toLowerCase()))) {
            const slot = el("div", "sequence empty", "new " + colour);
            slot.dataset.key = "sequence:" + colour;
            seqs.appendChild(slot);
          }
        }
      }
      pn.appendChild(seqs);
      const tiles = Object.entries(pl.tiles || {});
      if (tiles.length) pn.appendChild(el("div", "note", "tiles: " + tiles.map(([c, t]) => c + " " + t).join(", ")));
      box.appendChild(pn);
    });
    return withRest(view, box, ["colours", "decks", "piles", "players"]);
  };

  // -- Kabaal: the grid of area cards with cultists, the altars, the trick --------------------
  D.games.kabaal_v0 = function (view) {
    const box = el("div", "kabaal");
    const cults = view.players.map((p) => p.cult);
    const cols = Math.max.apply(null, view.grid.map((r) => r.length));
    const grid = el("div", "grid");
    grid.style.gridTemplateColumns = "repeat(" + cols + ", minmax(5em, 1fr))";
    for (const row of view.grid) {
      for (let c = 0; c < cols; c++) {
        const name = row[c];
        if (name === null || name === undefined) { grid.appendChild(el("div", "cell hole")); continue; }
        const area = view.areas[name] || { cultists: [], face_down: false };
        const cell = el("div", "cell" + (area.face_down ? " face-down" : ""));
        cell.dataset.key = "area:" + name;
        cell.appendChild(el("div", "area-name", area.face_down ? "(face down) " + name : name));
        for (const q of area.cultists) cell.appendChild(piece(cults[q], "player " + q + "'s cultist"));
        grid.appendChild(cell);
      }
    }
    box.appendChild(panel("Round " + view.round + " · trick " + view.trick_number + " · " + view.phase)).appendChild(grid);
    const trick = panel("The trick");
    const row = el("div", "row");
    for (const t of view.trick) row.appendChild(card(t.card, null, "", "player " + t.player));
    if (!view.trick.length) row.appendChild(el("span", "nil", "no card played yet"));
    trick.appendChild(row);
    box.appendChild(trick);
    view.players.forEach((pl, p) => {
      const pn = panel(playerTitle(view, p) + " · " + pl.cult + " cult" + (pl.amulet ? " · amulet" : ""));
      const altar = el("div", "row altar");
      altar.appendChild(el("span", "note", "altar"));
      for (let i = 0; i < view.rituals_to_win; i++) {
        const slot = el("span", "altar-slot" + (i < pl.altar ? " done" : ""));
        if (i < pl.altar) slot.style.background = colourOf(pl.cult) || "#ccc";
        slot.title = i < pl.altar ? "ritual " + (i + 1) : "empty";
        altar.appendChild(slot);
      }
      altar.appendChild(el("span", "note", pl.altar + " / " + view.rituals_to_win + " rituals · cultists in supply " +
        pl.supply + " · tricks won " + pl.tricks_won + " · cards " + pl.hand_size));
      pn.appendChild(altar);
      const cards = el("div", "row");
      pl.face_up.forEach((c) => cards.appendChild(card(c, p === view.seat ? "card:face_up:" + c : null, "face-up", "face up")));
      if (pl.hand) pl.hand.forEach((c) => cards.appendChild(card(c, p === view.seat ? "card:hand:" + c : null)));
      else if (pl.hand_size) cards.appendChild(card("", null, "back", "× " + pl.hand_size));
      if (pl.passing && pl.passing.length) pl.passing.forEach((c) => cards.appendChild(card(c, null, "passing", "passing")));
      pn.appendChild(cards);
      box.appendChild(pn);
    });
    return withRest(view, box, ["grid", "areas", "players", "round", "trick_number", "phase", "trick", "rituals_to_win"]
      .concat(view.pushing ? [] : ["pushing"]));
  };

  // -- Cábula: hands, displayed stars, the discard pile, wand windows ------------------------
  const CABULA_DECIDES = { main: "plays a card or a set, or passes", target: "chooses the victim",
    curse: "answers a curse", star: "chooses a star", necro: "discards to Necromancy", take: "takes a card" };

  D.games.cabula_v0 = function (view) {
    const box = el("div", "cabula");
    const names = view.card_names || {};
    const nameOf = (key) => names[key] || String(key).replace(/_/g, " ");
    const listText = (cards) => cards.map((c) => c.count + " " + c.name).join(", ");
    const centre = el("div", "row");
    const deck = panel("Deck");
    deck.appendChild(card("deck", null, "back", view.deck_size + " cards"));
    const dk = view.deck_known;
    if (dk && dk.at_least.length) deck.appendChild(el("div", "note", "holds at least: " + listText(dk.at_least)));
    if (dk && dk.at_most) deck.appendChild(el("div", "note", "holds at most: " + (listText(dk.at_most) || "nothing")));
    if (view.pending_draws) deck.appendChild(el("div", "note", view.pending_draws + " card(s) still to draw"));
    centre.appendChild(deck);
    const discard = panel("Discard pile (" + view.discard_size + ")");
    const drow = el("div", "row");
    view.discard.forEach((c) => drow.appendChild(card(c.name, null, "", "× " + c.count)));
    if (!view.discard.length) drow.appendChild(el("span", "nil", "empty"));
    discard.appendChild(drow);
    centre.appendChild(discard);
    if (view.pending) {
      const pend = view.pending;
      const pn = panel(pend.kind === "curse" ? "Wand window" : "Now", null, "pending");
      const bits = ["player " + pend.player + " " + (CABULA_DECIDES[pend.kind] || "decides")];
      if (pend.curse) bits.push("curse: " + nameOf(pend.curse) + " (" + pend.stage + ")" +
        (pend.sent_by !== null && pend.sent_by !== undefined ? ", sent by player " + pend.sent_by : ", drawn"));
      if (pend.why) bits.push(pend.why);
      if (pend.card) bits.push("playing " + pend.count + " × " + nameOf(pend.card));
      if (pend.discard_to) bits.push("down to " + pend.discard_to + " cards");
      pn.appendChild(el("div", "", bits.join(" · ")));
      centre.appendChild(pn);
    }
    const last = [];
    if (view.last_play) last.push(view.last_play.pass ? "player " + view.last_play.player + " passed" :
      "player " + view.last_play.player + " played " + view.last_play.count + " × " + nameOf(view.last_play.card));
    if (view.last_attack) last.push("player " + view.last_attack.attacker + " attacked player " + view.last_attack.victim +
      " with " + view.last_attack.count + " × " + nameOf(view.last_attack.card));
    if (view.necromancy && view.necromancy.length) last.push("Necromancy in progress for " +
      view.necromancy.map((q) => "player " + q).join(", "));
    if (last.length) {
      const ln = panel("Last plays", null, "last");
      last.forEach((t) => ln.appendChild(el("div", "", t)));
      centre.appendChild(ln);
    }
    box.appendChild(centre);
    view.players.forEach((pl) => {
      const p = pl.seat;
      const pn = panel(playerTitle(view, p) + " · " + pl.total + " / " + view.stars_to_win + " stars", "player:" + p);
      const stars = el("div", "row");
      for (let i = 0; i < pl.stars; i++) stars.appendChild(card("★", "star:" + p + ":single", "star", "star"));
      for (let i = 0; i < pl.double_stars; i++) stars.appendChild(card("★★", "star:" + p + ":double", "star", "double"));
      if (!pl.stars && !pl.double_stars) stars.appendChild(el("span", "nil", "no stars displayed"));
      pn.appendChild(stars);
      const hand = el("div", "row");
      if (pl.hand) pl.hand.forEach((c) => hand.appendChild(card(c.name, p === view.seat ? "card:hand:" + c.card : null, "", "× " + c.count)));
      else {
        const known = pl.known_hand || [];
        known.forEach((c) => hand.appendChild(card(c.name, "card:player:" + p + ":" + c.card, "known", "× " + c.count + " (known)")));
        const unknown = pl.hand_size - known.reduce((t, c) => t + c.count, 0);
        if (unknown > 0) hand.appendChild(card("", null, "back", "× " + unknown));
      }
      pn.appendChild(hand);
      box.appendChild(pn);
    });
    box.appendChild(el("div", "note", "turn " + view.turn + " of at most " + view.max_turns));
    return withRest(view, box, ["players", "discard", "discard_size", "deck_size", "pending", "stars_to_win",
      "card_names", "deck_known", "pending_draws", "last_play", "last_attack", "necromancy", "turn", "max_turns",
      "truncated", "winner", "turn_player"]);
  };

  // -- Alakazum!: characters with stats, market, forest, combat table, spells -----------------
  function character(ch) {
    const c = el("div", "card character");
    c.dataset.key = ch.key;
    c.appendChild(el("span", "card-name", ch.name));
    c.appendChild(el("span", "card-sub", ch.culture + " · level " + ch.level));
    c.appendChild(el("span", "stats", "combat " + ch.combat + " · res " + ch.resistance + " · culture " + ch.culture_points));
    if (ch.trait) c.appendChild(el("span", "card-sub", ch.trait));
    if (ch.broom) c.appendChild(el("span", "card-sub", "broom"));
    return c;
  }

  D.games.alakazum_v0 = function (view) {
    const box = el("div", "alakazum");
    const centre = el("div", "row");
    const forest = panel("Forest");
    forest.appendChild(card("forest", null, "back", view.forest.size + " cards"));
    if (view.forest.known_top.length) forest.appendChild(el("div", "note", "you know the top: " + view.forest.known_top.join(", ")));
    if (view.forest.forest_magic) {
      const fm = el("div", "row");
      view.forest.forest_magic.to_place.forEach((n) => fm.appendChild(card(n, "forest_magic:" + n, "", "to place")));
      forest.appendChild(fm);
    }
    centre.appendChild(forest);
    const market = panel("Market (top first)");
    const mrow = el("div", "row");
    view.market.forEach((n) => mrow.appendChild(card(n, "market:" + n)));
    market.appendChild(mrow);
    centre.appendChild(market);
    if (view.finals.length) {
      const finals = panel("Final enemies");
      const frow = el("div", "row");
      view.finals.forEach((f) => frow.appendChild(f.name ? card(f.name, f.key, "", "✦ " + f.culture_points) : card("", f.key, "back", "final " + f.position)));
      finals.appendChild(frow);
      centre.appendChild(finals);
    }
    if (view.spells) {
      const scroll = panel("Magic scroll (cost in magic energy)");
      const srow = el("div", "row");
      view.spells.forEach((sp) => srow.appendChild(card(sp.name, sp.key, "spell", "cost " + sp.cost)));
      scroll.appendChild(srow);
      centre.appendChild(scroll);
    }
    box.appendChild(centre);
    if (view.display.length) {
      const disp = panel("Characters on display");
      const row = el("div", "row");
      view.display.forEach((ch) => row.appendChild(character(ch)));
      disp.appendChild(row);
      box.appendChild(disp);
    }
    if (view.combat) {
      const cb = view.combat;
      const pn = panel("Combat (" + cb.kind + ")", null, "combat");
      const row = el("div", "row");
      for (const [label, ch] of [["fighter", cb.fighter], ["helper", cb.helper], ["against", cb.target], ["defender's helper", cb.defender_helper]]) {
        if (!ch) continue;
        const wrap = el("div", "");
        wrap.appendChild(el("div", "note", label));
        wrap.appendChild(character(ch));
        row.appendChild(wrap);
      }
      pn.appendChild(row);
      pn.appendChild(el("div", "", "player " + cb.attacker + " " + cb.attacker_total + " (base " + cb.attacker_base + ") vs " +
        (cb.defender === null ? "the forest" : "player " + cb.defender) + " " + cb.defender_total + " (base " + cb.defender_base + ")" +
        (cb.winner !== null ? " · winner: " + (cb.winner === "forest" ? "the forest" : "player " + cb.winner) : "") +
        (cb.roll !== null ? " · hypnosis roll " + cb.roll + " (total " + cb.die_total + ") against resistance " + cb.resistance : "")));
      if (cb.potions.length) pn.appendChild(el("div", "note", "potions: " + cb.potions.map((x) => x.card + " by player " + x.by + " on " + x.on).join(", ")));
      box.appendChild(pn);
    }
    if (view.announced) {
      const a = view.announced;
      box.appendChild(panel(null, null, "announced")).appendChild(el("div", "", "announced by player " + a.by + ": " + a.play +
        (a.spell ? " · spell " + a.spell : "") + (a.card ? " · " + a.card : "") + (a.target ? " → " + a.target : "") +
        (a.cancelled ? " · cancelled by a voodoo doll" : "") + (a.voodoo_window_open ? " · voodoo window open" : "")));
    }
    view.players.forEach((pl) => {
      const p = pl.seat;
      const pn = panel(playerTitle(view, p) + " · magic energy " + pl.magic_energy, "player:" + p);
      const pts = el("div", "row culture-points");
      pts.appendChild(el("span", "note", "culture points:"));
      for (const [k, v] of Object.entries(pl.culture_points)) {
        const chip = el("span", "chip culture", k + " " + v);
        chip.dataset.key = "culture:" + p + ":" + k;
        pts.appendChild(chip);
      }
      pts.appendChild(el("span", "note", "(Alakazum at " + view.alakazum_threshold + ")"));
      pn.appendChild(pts);
      const team = el("div", "row");
      pl.team.forEach((ch) => team.appendChild(character(ch)));
      if (!pl.team.length) team.appendChild(el("span", "nil", "no characters"));
      pn.appendChild(team);
      const hand = el("div", "row");
      if (pl.hand) pl.hand.forEach((n) => hand.appendChild(card(n, p === view.seat ? "hand:" + n : null)));
      else {
        (pl.known_hand || []).forEach((n) => hand.appendChild(card(n, null, "known", "known")));
        const unknown = pl.hand_size - (pl.known_hand || []).length;
        if (unknown > 0) hand.appendChild(card("", null, "back", "× " + unknown));
      }
      pn.appendChild(hand);
      box.appendChild(pn);
    });
    const plays = (view.plays || []).map((a) => "player " + a.by + ": " + a.play +
      (a.spell ? " " + a.spell : "") + (a.card ? " " + a.card : "") + (a.culture ? " with " + a.culture : "") +
      (a.target ? " → " + a.target : "") + (a.points !== null && a.points !== undefined ? " (" + a.points + " points)" : "") +
      (a.cancelled ? " · cancelled" + (a.cancelled_by !== null && a.cancelled_by !== undefined ? " by player " + a.cancelled_by : "") : ""));
    if (plays.length) {
      const pl = panel("Played this turn", null, "plays");
      plays.forEach((t) => pl.appendChild(el("div", "", t)));
      box.appendChild(pl);
    }
    if (view.hats_paid && view.hats_paid.length) box.appendChild(el("div", "note", "hats paid: " + view.hats_paid.join(", ")));
    const side = el("div", "row");
    const grave = panel("Graveyard");
    const grow = el("div", "row");
    (view.graveyard || []).forEach((ch) => grow.appendChild(character(ch)));
    if (!(view.graveyard || []).length) grow.appendChild(el("span", "nil", "empty"));
    grave.appendChild(grow);
    side.appendChild(grave);
    if (view.box && view.box.length) {
      const bx = panel("Out of the game");
      bx.appendChild(el("div", "note", view.box.join(", ")));
      side.appendChild(bx);
    }
    box.appendChild(side);
    box.appendChild(el("div", "note", "turn " + (view.turn + 1) + " · player " + view.turn_player + "'s turn · " +
      String(view.stage).replace(/_/g, " ") + (view.actions_left ? " · " + view.actions_left + " action(s) left" : "") +
      (view.in_deja_vu ? " · Deja Vu" : "")));
    return withRest(view, box, ["players", "market", "forest", "display", "finals", "combat", "announced",
      "alakazum_threshold", "spells", "plays", "hats_paid", "graveyard", "box", "pending", "turn", "turn_player", "stage",
      "actions_left", "in_deja_vu", "truncated"]);
  };
})();
