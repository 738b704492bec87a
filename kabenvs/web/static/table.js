"use strict";
// A seat's table: polls its own view, draws it (draw.js), plays moves by click or keyboard.
// The secret token comes from the link's fragment and goes to the API in a header only.
(function () {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.hash.slice(1));
  const gid = location.pathname.split("/").pop();
  const token = params.get("token") || "";
  const hot = params.has("hot");
  let seat = params.get("seat") || "0";
  let lastMove = -1, lastStatus = "", eventsSeen = 0, selected = 0, legal = [], covered = false;
  let unreachable = false;
  let stopped = false, sending = false, typed = "", typedAt = 0, pending = null;
  const POLL_MS = 250;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function showError(msg) { $("error").textContent = msg || ""; }

  async function api(path, options) {
    const opts = Object.assign({ headers: {} }, options || {});
    opts.headers["X-Token"] = token;
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = { error: "bad reply from the server" }; }
    return { ok: res.ok, status: res.status, data: data };
  }

  function playerName(game, p) {
    const s = game.seats[p];
    return "player " + p + (s ? " (" + (s.kind === "human" ? s.name : s.name || s.kind) + ")" : "");
  }

  function addEvents(reply) {
    const ol = $("events");
    for (const ev of reply.events) {
      if (ev.step < eventsSeen) continue;
      for (const line of ev.lines) {
        const li = el("li", "event", line);
        li.dataset.step = ev.step;
        ol.appendChild(li);
      }
      eventsSeen = ev.step + 1;
    }
    if (reply.events.length) ol.scrollTop = ol.scrollHeight;  // the list scrolls, never the page
  }

  function setCover(on, text) {
    covered = on;
    $("cover").hidden = !on;
    $("main").hidden = on;
    document.body.dataset.covered = on ? "1" : "0";
    if (on) {
      $("cover-text").textContent = text;
      $("table").textContent = ""; $("moves").textContent = ""; $("events").textContent = "";
      $("decision").textContent = ""; $("seats").textContent = "";
    }
  }

  function render(reply) {
    const view = reply.view, game = reply.game;
    document.title = game.env_id + " · move " + reply.move;
    $("title").textContent = game.env_id + " · game " + game.id;
    $("who").textContent = reply.seat === null ? "· watching (all-seeing)" : "· you are " + playerName(game, reply.seat);
    $("status").textContent = "· " + game.status + (game.error ? ": " + game.error : "");
    $("decision").textContent = view.terminal ? "Game over." :
      (reply.to_move === reply.seat ? "Your decision: " : "Waiting for " + playerName(game, reply.to_move) + ": ") +
      view.decision + (reply.note ? " — " + reply.note : "");
    const seats = $("seats");
    seats.textContent = "";
    game.seats.forEach((s, p) => {
      const span = el("span", "seat" + (p === reply.to_move ? " to-move" : "") + (p === reply.seat ? " me" : ""),
        playerName(game, p));
      seats.appendChild(span);
    });
    const table = $("table");
    table.textContent = "";
    table.appendChild(window.KabDraw.draw(view));
    legal = reply.legal;
    if (reply.move !== lastMove) chosen = [];  // a half-chosen two-part move survives a redraw
    selected = Math.min(selected, Math.max(0, legal.length - 1));
    if (reply.move !== lastMove) selected = 0;
    drawMoves();
    markTargets(view);
    drawResult(reply);
  }

  function drawMoves() {
    const ol = $("moves");
    ol.textContent = "";
    legal.forEach((m, i) => {
      const li = el("li");
      const b = el("button", "move" + (i === selected ? " selected" : ""), (i + 1) + ". " + m.name);
      b.dataset.action = m.id;
      b.addEventListener("click", () => play(m.id));
      li.appendChild(b);
      ol.appendChild(li);
    });
    if (!legal.length) ol.appendChild(el("li", "note", "No decision for you now."));
  }

  // Clickable things: the view's "targets" map a legal move to the key of what it plays, or to a
  // list of keys (a colour from the stock, then a spot: one click each). Keys are never split:
  // names hold any character ("Die potion +1", Kabaal's "5+"). A thing several moves play
  // narrows the moves list to them.
  let chosen = [], lastView = null;

  function markTargets(view) {
    lastView = view;
    const targets = view.targets || {};
    const parts = {};
    for (const m of legal) {
      const key = targets[String(m.id)];
      if (typeof key === "string" && key) parts[m.id] = [key];
      else if (Array.isArray(key) && key.length) parts[m.id] = key.map(String);
    }
    const fits = legal.filter((m) => parts[m.id] && chosen.every((k, i) => parts[m.id][i] === k));
    const byKey = {};
    for (const m of fits) {
      const next = parts[m.id][chosen.length];
      if (next !== undefined) (byKey[next] = byKey[next] || []).push(m.id);
    }
    for (const b of $("moves").querySelectorAll("button.move")) {
      b.classList.toggle("narrowed", chosen.length > 0 && fits.some((m) => m.id === Number(b.dataset.action)));
    }
    for (const node of $("table").querySelectorAll("[data-key]")) {
      node.classList.remove("target", "chosen");
      node.onclick = null;
      if (chosen.includes(node.dataset.key)) node.classList.add("chosen");
      const ids = byKey[node.dataset.key];
      if (!ids) continue;
      node.classList.add("target");
      node.tabIndex = 0;
      node.title = ids.map((id) => legal.find((m) => m.id === id).name).join(" / ");
      node.onclick = (ev) => {
        ev.stopPropagation();
        chosen.push(node.dataset.key);
        const done = ids.filter((id) => parts[id].length === chosen.length);
        if (ids.length === 1 && done.length === 1) { chosen = []; play(ids[0]); return; }
        selected = legal.findIndex((m) => m.id === ids[0]);
        drawSelection();
        markTargets(view);
      };
    }
  }

  function drawResult(reply) {
    const box = $("result"), view = reply.view;
    if (!view.terminal) { box.hidden = true; return; }
    box.hidden = false;
    box.textContent = "";
    const winners = view.winners || [];
    box.appendChild(el("h2", "", winners.length ? "Winner" + (winners.length > 1 ? "s: " : ": ") +
      winners.map((p) => playerName(reply.game, p)).join(", ") : "No winner"));
    if (reply.game.study) {
      const back = el("a", "study-link", "Back to your study series");
      back.href = "/study/" + reply.game.study;
      box.appendChild(back);
      box.appendChild(el("br"));
    }
    if (reply.game.status === "finished" || reply.game.status === "truncated") {
      const a = el("a", "record-link", "Download the game log (replay with scripts/play.py --replay)");
      a.href = "/api/games/" + reply.game.id + "/record";
      a.download = "game-" + reply.game.id + ".json";
      box.appendChild(a);
    }
  }

  function drawSelection() {
    $("moves").querySelectorAll("button.move").forEach((b, i) => b.classList.toggle("selected", i === selected));
  }

  async function play(action) {
    if (sending || covered) return;
    sending = true;
    showError("");
    const r = await api("/api/games/" + gid + "/move", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ seat: Number(seat), action: action, move: lastMove }),
    });
    sending = false;
    if (!r.ok) showError(r.data.error);
    poll();
  }

  async function poll() {
    if (stopped) return;
    if (pending) return pending;
    pending = (async () => {
      const r = await api("/api/games/" + gid + "/view?seat=" + encodeURIComponent(seat) + "&since=" + eventsSeen);
      if (!r.ok) {
        showError(r.data.error);
        if (r.status === 403 || r.status === 404) stopped = true;
        return;
      }
      const reply = r.data;
      const game = reply.game;
      if (String(reply.seat === null ? "all" : reply.seat) !== seat) return;  // asked before a hot-seat switch
      if (hot && reply.to_move !== null && String(reply.to_move) !== seat && game.status === "playing" &&
          game.seats[reply.to_move].kind === "human") {
        if (!covered) setCover(true, "Pass the screen to " + playerName(game, reply.to_move) +
          ", then press the button.");
        $("cover-go").dataset.next = reply.to_move;
        document.body.dataset.move = reply.move;
        document.body.dataset.status = game.status;
        document.body.dataset.myTurn = "0";
        return;
      }
      if (covered) return;
      addEvents(reply);
      if (reply.move !== lastMove || game.status !== lastStatus) {
        render(reply);
        lastMove = reply.move;
        lastStatus = game.status;
      }
      document.body.dataset.move = reply.move;
      document.body.dataset.status = game.status;
      document.body.dataset.toMove = reply.to_move === null ? "" : reply.to_move;
      document.body.dataset.seat = seat;
      document.body.dataset.myTurn = legal.length ? "1" : "0";
    })();
    try {
      await pending;
      if (unreachable) { unreachable = false; showError(""); }  // back after a restart
    } catch (e) {
      unreachable = true;
      showError("server unreachable, retrying...");
    } finally { pending = null; }
  }

  $("cover-go").addEventListener("click", () => {
    seat = String($("cover-go").dataset.next);
    lastMove = -1; eventsSeen = 0; lastStatus = "";
    setCover(false);
    poll();
  });

  document.addEventListener("keydown", (ev) => {
    if (covered || !legal.length || ev.target.tagName === "INPUT") return;
    if (ev.key >= "0" && ev.key <= "9") {
      const now = Date.now();
      typed = (now - typedAt < 1200 ? typed : "") + ev.key;
      typedAt = now;
      const n = Number(typed);
      if (n >= 1 && n <= legal.length) { selected = n - 1; drawSelection(); }
    } else if (ev.key === "ArrowDown" || ev.key === "ArrowRight") {
      selected = (selected + 1) % legal.length; drawSelection(); ev.preventDefault();
    } else if (ev.key === "ArrowUp" || ev.key === "ArrowLeft") {
      selected = (selected + legal.length - 1) % legal.length; drawSelection(); ev.preventDefault();
    } else if (ev.key === "Escape") {
      chosen = []; if (lastView) markTargets(lastView);
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      play(legal[selected].id);
    }
  });

  document.body.dataset.covered = "0";
  poll();
  setInterval(poll, POLL_MS);
})();
