"use strict";
// The lobby: reads /api/catalog, builds the form, posts /api/games and lists the seat links.
(function () {
  let catalog = null;
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function current() {
    return catalog.games.find((g) => g.env_id === $("game").value);
  }

  function seatChoices() {
    const kinds = ["human", "heuristic", "random", "search"];
    // the agent shipped with kabenvs, where there is one for this game and player count
    if ((current().zoo_players || []).includes(Number($("players").value))) kinds.push("zoo");
    return kinds.concat(catalog.models.map((m) => "model:" + m));
  }

  function buildPlayers() {
    const g = current();
    const sel = $("players");
    sel.textContent = "";
    for (const n of g.player_counts) {
      const o = el("option", { value: n }, String(n));
      if (n === g.default_players) o.selected = true;
      sel.appendChild(o);
    }
    buildSeats();
    buildOptions();
  }

  function buildSeats() {
    const box = $("seats");
    const n = Number($("players").value);
    for (const old of box.querySelectorAll("label")) old.remove();
    for (let i = 0; i < n; i++) {
      const lab = el("label", {}, "player " + i + " ");
      const sel = el("select", { id: "seat-" + i });
      for (const c of seatChoices()) sel.appendChild(el("option", { value: c }, c));
      sel.value = i === 0 ? "human" : "heuristic";
      lab.appendChild(sel);
      // the search bot's settings (docs/search.md), e.g. sims=400,rollout=heuristic
      const opts = el("input", { id: "seat-" + i + "-search", placeholder: "search settings, e.g. sims=200", size: 28 });
      opts.hidden = true;
      sel.addEventListener("change", () => { opts.hidden = sel.value !== "search"; });
      lab.appendChild(opts);
      box.appendChild(lab);
    }
  }

  function buildOptions() {
    const box = $("options");
    for (const old of box.querySelectorAll("label")) old.remove();
    for (const opt of current().options) {
      const lab = el("label", {}, opt.name + " ");
      const input = el("input", { id: "opt-" + opt.name, "data-default": JSON.stringify(opt.default) });
      if (typeof opt.default === "boolean") {  // a variant on or off: a checkbox
        input.type = "checkbox";
        input.checked = opt.default;
      } else {
        input.value = typeof opt.default === "string" ? opt.default : JSON.stringify(opt.default);
      }
      lab.appendChild(input);
      box.appendChild(lab);
    }
  }

  function readOptions() {
    const out = {};
    for (const opt of current().options) {
      const input = $("opt-" + opt.name);
      let value;
      if (input.type === "checkbox") value = input.checked;
      else {
        const raw = input.value;
        try { value = JSON.parse(raw); } catch (e) { value = raw; }
      }
      if (JSON.stringify(value) !== JSON.stringify(opt.default)) out[opt.name] = value;
    }
    return out;
  }

  async function start(ev) {
    ev.preventDefault();
    $("error").textContent = "";
    const n = Number($("players").value);
    const seats = [];
    for (let i = 0; i < n; i++) {
      const spec = $("seat-" + i).value, extra = $("seat-" + i + "-search").value.trim();
      seats.push(spec === "search" && extra ? "search:" + extra : spec);
    }
    const body = { env_id: $("game").value, seats: seats, options: readOptions(), hot_seat: $("hot").checked };
    if ($("seed").value !== "") body.seed = Number($("seed").value);
    const res = await fetch("/api/games", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const data = await res.json();
    if (!res.ok) { $("error").textContent = data.error; return; }
    $("game-id").textContent = data.id;
    const ul = $("links");
    ul.textContent = "";
    const add = (label, href, cls, seat) => {
      const li = el("li", {}, label + ": ");
      const a = el("a", { href: href, class: cls, "data-seat": seat, target: "_blank" }, location.origin + href);
      li.appendChild(a);
      ul.appendChild(li);
    };
    if (data.hot_seat_link) add("hot seat (all humans on this screen)", data.hot_seat_link, "hot-link", "hot");
    for (const [seat, href] of Object.entries(data.links)) add("player " + seat, href, "seat-link", seat);
    if (Object.keys(data.links).length === 0) add("watch (no human plays)", data.watch, "watch-link", "all");
    $("result").hidden = false;
  }

  async function init() {
    const res = await fetch("/api/catalog");
    catalog = await res.json();
    for (const g of catalog.games) $("game").appendChild(el("option", { value: g.env_id }, g.env_id));
    $("game").addEventListener("change", buildPlayers);
    $("players").addEventListener("change", buildSeats);
    $("lobby").addEventListener("submit", start);
    buildPlayers();
    document.body.dataset.ready = "1";
  }
  init();
})();
