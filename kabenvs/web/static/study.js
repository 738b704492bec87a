"use strict";
// A participant's page: join once, then play the series one game after the other.
(function () {
  const $ = (id) => document.getElementById(id);
  const name = location.pathname.split("/")[2];
  const storeKey = "kabenvs-study:" + name;
  let params = new URLSearchParams(location.hash.slice(1));
  if (!params.get("token") && localStorage.getItem(storeKey)) {
    location.hash = localStorage.getItem(storeKey);  // back from a game: the same series
    params = new URLSearchParams(location.hash.slice(1));
  }
  $("title").textContent = "Study " + name;

  async function join() {
    const res = await fetch("/api/studies/" + name + "/join", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: $("name").value }),
    });
    const data = await res.json();
    if (!res.ok) { $("error").textContent = data.error; return; }
    location.hash = data.link.split("#")[1];
    params = new URLSearchParams(location.hash.slice(1));
    show();
  }

  async function show() {
    const res = await fetch("/api/studies/" + name + "/me?participant=" + encodeURIComponent(params.get("participant")),
      { headers: { "X-Token": params.get("token") } });
    const data = await res.json();
    if (!res.ok) { $("error").textContent = data.error; return; }
    localStorage.setItem(storeKey, location.hash.slice(1));
    $("join").hidden = true;
    $("series").hidden = false;
    const played = data.games.filter((g) => g.status !== "playing").length;
    $("progress").textContent = data.label + ": " + played + " of " + data.games_per_participant + " games played." +
      (data.done ? " Thank you, the series is complete." : "");
    const play = $("play");
    play.hidden = !data.current;
    if (data.current) {
      play.href = data.current.link;
      play.textContent = "Play game " + (data.current.index + 1) + " of " + data.games_per_participant;
    }
    const ol = $("games");
    ol.textContent = "";
    for (const g of data.games) {
      const li = document.createElement("li");
      li.textContent = "game " + (g.index + 1) + ": " + g.status;
      ol.appendChild(li);
    }
    document.body.dataset.ready = "1";
  }

  $("join-go").addEventListener("click", join);
  if (params.get("token")) show();
  else { $("join").hidden = false; document.body.dataset.ready = "1"; }
})();
