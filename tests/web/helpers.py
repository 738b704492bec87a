"""Driving a table page in a real browser: wait for a decision, play it by clicking, collect payloads."""

from __future__ import annotations

import json
import time
import urllib.request

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the browser tests skip (conftest) before any of this runs
    PlaywrightTimeout = TimeoutError

# Every JSON reply the page's own code received, kept in the page for the leak checks.
CAPTURE_JS = """
(() => {
  window.__payloads = [];
  const orig = window.fetch;
  window.fetch = async (...args) => {
    const res = await orig(...args);
    try {
      const url = String(args[0]);
      if (url.includes('/api/')) {
        const copy = res.clone();
        copy.json().then((data) => window.__payloads.push({url: url, data: data})).catch(() => {});
      }
    } catch (e) {}
    return res;
  };
})();
"""


UNDRAWN_JS = """
(() => {
  const shown = document.body.dataset.move;
  const replies = window.__payloads.filter((p) => p.url.includes('/view?') && p.data && p.data.view &&
    String(p.data.move) === shown && p.data.legal.length);
  if (!replies.length) return [];
  const reply = replies[replies.length - 1].data;
  const keys = new Set([...document.querySelectorAll('#table [data-key]')].map((n) => n.dataset.key));
  const targets = reply.view.targets || {};
  const parts = (t) => Array.isArray(t) ? t : [t];
  return reply.legal.filter((m) => targets[String(m.id)] &&
      parts(targets[String(m.id)]).some((k) => !keys.has(k)))
    .map((m) => reply.view.game + ': ' + m.name + ' -> ' + parts(targets[String(m.id)]).join(' then '));
})()
"""


def api(base: str, path: str, body=None, token: str | None = None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method="POST" if body is not None else "GET")
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("X-Token", token)
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def token_of(link: str) -> str:
    return link.split("token=")[1]


class TablePage:
    """One seat's page; ``errors`` collects JavaScript console errors and uncaught exceptions."""

    def __init__(self, context, allow_network_errors: bool = False) -> None:
        self.page = context.new_page()
        self.page.set_default_timeout(30000)  # generous: CI machines may be busy
        self.page.add_init_script(CAPTURE_JS)
        self.errors: list[str] = []
        self.allow_network_errors = allow_network_errors
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.clicks = {"target": 0, "list": 0, "keyboard": 0}
        self.untargeted: list[str] = []  # legal moves whose thing (view "targets") is not drawn

    def undrawn_targets(self) -> list[str]:
        """Legal moves now whose target key (each of a list of keys) no drawn thing carries: a move
        that names a thing must be playable by clicking it. Read from the page's own reply for the
        move it shows."""
        return self.page.evaluate(UNDRAWN_JS)

    def _console(self, msg) -> None:
        if msg.type != "error":
            return
        network = "Failed to load resource" in msg.text or "ERR_CONNECTION" in msg.text
        if self.allow_network_errors and network:
            return
        self.errors.append(msg.text)

    def goto(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_function("document.body.dataset.move !== undefined")

    def body(self, key: str) -> str:
        return self.page.evaluate(f"document.body.dataset.{key} || ''")

    @property
    def move(self) -> int:
        return int(self.body("move") or -1)

    @property
    def status(self) -> str:
        return self.body("status")

    def wait_turn_or_end(self, timeout_ms: int = 60000) -> bool:
        """True when this seat decides now, False when the game is over."""
        self.page.wait_for_function(
            "document.body.dataset.myTurn === '1' || "
            "(document.body.dataset.status || 'playing') !== 'playing'",
            timeout=timeout_ms)
        return self.status == "playing"

    def play_one(self, step: int) -> None:
        """Play one decision: a highlighted thing on the table where there is one, else (or every
        third move) the keyboard, else a move of the list."""
        before = self.move
        self.untargeted.extend(self.undrawn_targets())
        targets = self.page.locator("#table .target")
        moves = self.page.locator("button.move")
        # a varied but reproducible choice: always the first move can make a game run to its cap
        pick = (step * 7919) % max(1, min(9, moves.count()))
        if step % 3 == 2:
            for _ in range(pick):
                self.page.keyboard.press("ArrowDown")
            self.page.keyboard.press("Enter")
            self.clicks["keyboard"] += 1
        elif targets.count():
            # one click per thing of the move's keys (["stock:green", "spot:3"] takes two)
            for _ in range(4):
                targets = self.page.locator("#table .target")
                count = targets.count()
                if not count or self.move != before:
                    break
                chosen = self.page.locator("#table .chosen").count()
                try:
                    targets.nth(pick % count).click(timeout=2000)
                except PlaywrightTimeout:  # redrawn under the pointer (the table moved on): look again
                    continue
                # the move went (the counter moves on) or one part of a two-part thing was chosen
                self.page.wait_for_function(
                    f"Number(document.body.dataset.move) !== {before} || "
                    f"document.querySelectorAll('#table .chosen').length > {chosen} || "
                    "document.querySelectorAll('button.move.narrowed').length > 0 || "
                    "document.getElementById('error').textContent !== ''")
            self.clicks["target"] += 1
            narrowed = self.page.locator("button.move.narrowed")
            if self.move == before and narrowed.count() and not self.page.locator("#table .target").count():
                narrowed.first.click()
        else:
            moves.nth(pick).click()
            self.clicks["list"] += 1
        self.page.wait_for_function(f"Number(document.body.dataset.move) !== {before} || "
                                    "document.getElementById('error').textContent !== ''")
        error = self.page.locator("#error").text_content()
        assert not error, f"the server refused a move the page offered: {error}"

    def payloads(self) -> list[dict]:
        return self.page.evaluate("window.__payloads")


def play_to_end(page: TablePage, budget_s: float, on_turn=None) -> int:
    """Play this seat's decisions until the game ends; returns the number played."""
    deadline = time.monotonic() + budget_s
    n = 0
    while page.wait_turn_or_end():
        assert time.monotonic() < deadline, f"game not over after {budget_s} s ({n} decisions played)"
        if on_turn is not None:
            on_turn(n)
        page.play_one(n)
        n += 1
    return n
