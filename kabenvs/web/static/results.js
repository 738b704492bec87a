"use strict";
// The study's results page: tables from /api/studies/NAME/results.
(function () {
  const $ = (id) => document.getElementById(id);
  const name = location.pathname.split("/")[2];
  const base = "/api/studies/" + name;
  $("csv").href = base + "/results.csv";
  $("json").href = base + "/results";
  // The game log holds every finished deal (the deals other participants have still to play):
  // only the operator's link, #key=..., printed by kabenvs serve, offers it. The key goes in a
  // header, as the seats' tokens do, so it is in no server log.
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (key) {
    $("log").href = "#";
    $("log").addEventListener("click", async (ev) => {
      ev.preventDefault();
      const res = await fetch(base + "/games.jsonl", { headers: { "X-Token": key } });
      if (!res.ok) { $("error").textContent = (await res.json()).error; return; }
      const a = document.createElement("a");
      a.href = URL.createObjectURL(await res.blob());
      a.download = name + "-games.jsonl";
      a.click();
    });
  } else {
    $("log").replaceWith(document.createTextNode("the game log (for the study's operator)"));
  }

  function table(node, head, rows) {
    node.textContent = "";
    const tr = document.createElement("tr");
    for (const h of head) { const th = document.createElement("th"); th.textContent = h; tr.appendChild(th); }
    node.appendChild(tr);
    for (const row of rows) {
      const r = document.createElement("tr");
      for (const cell of row) { const td = document.createElement("td"); td.textContent = cell; r.appendChild(td); }
      node.appendChild(r);
    }
  }

  const pct = (x) => (x === null || x === undefined ? "—" : (100 * x).toFixed(1) + "%");

  async function load() {
    const res = await fetch(base + "/results");
    const data = await res.json();
    if (!res.ok) { $("error").textContent = data.error; return; }
    $("title").textContent = "Results of study " + name + " (" + data.study.game + ")";
    $("summary").textContent = data.participants + " participants, " + data.games + " games over, " +
      data.finished + " finished with a result.";
    table($("agents"), ["agent", "game", "games", "unfinished", "agent win rate", "95% interval", "human win rate"],
      data.agents.map((r) => [r.label, r.env_id + " " + r.num_players + "p", r.games, r.unfinished, pct(r.agent_win_rate),
        r.agent_win_rate_ci95 ? pct(r.agent_win_rate_ci95[0]) + " – " + pct(r.agent_win_rate_ci95[1]) : "—",
        pct(r.human_win_rate)]));
    if (data.ratings.available) {
      table($("ratings"), ["player", "mu", "sigma", "ordinal", "games"],
        data.ratings.players.map((r) => [r.id, r.mu, r.sigma, r.ordinal, r.games]));
    } else {
      table($("ratings"), ["ratings"], [[data.ratings.reason]]);
    }
    document.body.dataset.ready = "1";
  }
  load();
})();
