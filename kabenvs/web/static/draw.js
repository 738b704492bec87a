"use strict";
// Drawing a table view (State.table_view(seat), see docs/play.md "Table views") as HTML/SVG.
// Each game may register a drawer in KabDraw.games[env_id]; keys a drawer does not know, and
// games without one, are drawn generically. Anything drawn with data-key="..." becomes clickable
// when the view's "targets" maps a legal move to that key (table.js does the clicking).
(function () {
  const BASE = ["game", "num_players", "seat", "current_player", "decision", "terminal", "winners", "scores",
    "text", "targets"];

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function label(key) { return String(key).replace(/_/g, " "); }

  // A generic value: scalars as text, lists as rows of chips, objects as labelled boxes.
  function value(v, depth) {
    depth = depth || 0;
    if (v === null || v === undefined) return el("span", "nil", "—");
    if (typeof v !== "object") return el("span", "scalar", typeof v === "boolean" ? (v ? "yes" : "no") : v);
    if (Array.isArray(v)) {
      const row = el("div", "list");
      if (!v.length) row.appendChild(el("span", "nil", "none"));
      for (const item of v) {
        const chip = el("div", "chip");
        chip.appendChild(value(item, depth + 1));
        keyed(chip, item);
        row.appendChild(chip);
      }
      return row;
    }
    const box = el("div", "obj depth" + Math.min(depth, 3));
    keyed(box, v);
    for (const [k, item] of Object.entries(v)) {
      if (k === "key") continue;
      const line = el("div", "field");
      line.appendChild(el("span", "name", label(k)));
      line.appendChild(value(item, depth + 1));
      box.appendChild(line);
    }
    return box;
  }

  function keyed(node, v) {
    if (v && typeof v === "object" && !Array.isArray(v) && typeof v.key === "string") node.dataset.key = v.key;
  }

  function scores(view) {
    const box = el("div", "scores");
    if (!view.scores) return box;
    const t = el("table", "score-table");
    const head = el("tr");
    const body = el("tr");
    view.scores.forEach((s, p) => {
      head.appendChild(el("th", "", "player " + p));
      body.appendChild(el("td", "", typeof s === "number" ? s : JSON.stringify(s)));
    });
    t.appendChild(head); t.appendChild(body);
    box.appendChild(el("span", "name", "scores"));
    box.appendChild(t);
    return box;
  }

  // The rest of a view, for keys a game's drawer leaves out.
  function rest(view, known) {
    const box = el("div", "rest");
    const facts = el("div", "facts");
    for (const [k, v] of Object.entries(view)) {
      if (BASE.includes(k) || (known && known.includes(k))) continue;
      if (v === null || typeof v !== "object") {  // plain facts on one line
        const f = el("span", "fact");
        f.appendChild(el("span", "name", label(k)));
        f.appendChild(value(v));
        facts.appendChild(f);
        continue;
      }
      const sec = el("section", "zone");
      sec.dataset.zone = k;
      sec.appendChild(el("h3", "", label(k)));
      sec.appendChild(value(v));
      box.appendChild(sec);
    }
    if (facts.childElementCount) box.insertBefore(facts, box.firstChild);
    return box;
  }

  function generic(view) {
    const box = el("div", "generic");
    box.appendChild(scores(view));
    box.appendChild(rest(view, []));
    if (view.text) {
      const pre = el("pre", "text", view.text);
      box.appendChild(pre);
    }
    return box;
  }

  const KabDraw = {
    games: {}, el: el, value: value, rest: rest, scores: scores, generic: generic,
    draw(view) {
      const fn = KabDraw.games[view.game];
      if (!fn) return generic(view);
      try {
        return fn(view, KabDraw);
      } catch (e) {
        // a view this drawer does not understand (an older or newer schema): still playable
        console.warn("drawer for " + view.game + " failed, drawing generically: " + e);
        return generic(view);
      }
    },
  };
  window.KabDraw = KabDraw;
})();
