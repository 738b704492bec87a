"""Fixtures of the web tests: a real server process on 127.0.0.1, and Debian's Chromium via Playwright.

The browser tests need ``playwright`` (the dev extra) and the system Chromium (``apt-get install -y
chromium``; Playwright's own browser download is not used). Without them the browser tests skip
with one line, except with ``CI=true``, where a missing browser fails them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``scripts/serve.py`` in a subprocess: start, stop and start again on the same data folder."""

    def __init__(self, data_dir: Path, port: int, pace: float = 0.02, extra: list[str] | None = None) -> None:
        self.data_dir, self.port, self.pace = data_dir, port, pace
        self.extra = list(extra or [])
        self.proc: subprocess.Popen | None = None
        self.output = data_dir / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        with open(self.output, "ab") as log:  # the child keeps its own copy of the handle
            self.proc = subprocess.Popen(
                [sys.executable, str(ROOT / "scripts" / "serve.py"), "--port", str(self.port),
                 "--data", str(self.data_dir), "--pace", str(self.pace), *self.extra],
                cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve.py exited: {self.output.read_text()[-2000:]}")
            try:
                urllib.request.urlopen(self.url + "/api/catalog", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("serve.py did not answer within 30 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


@pytest.fixture
def server(tmp_path):
    srv = ServerProcess(tmp_path / "data", free_port())
    srv.data_dir.mkdir()
    srv.start()
    yield srv
    srv.stop()


def _chromium() -> str | None:
    for path in CHROMIUM_PATHS:
        if os.path.exists(path):
            return path
    return shutil.which("chromium")


@pytest.fixture(scope="module")
def chromium():
    """One Chromium per test module (and xdist worker); closed when the module's tests are done."""
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
        reason = "playwright is not installed (pip install '.[dev]')"
    exe = _chromium()
    if reason is None and exe is None:
        reason = "no Chromium at /usr/bin/chromium (apt-get install -y chromium)"
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"browser tests need a browser under CI: {reason}")
        pytest.skip(f"browser tests skipped: {reason}")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


class _ClosingBrowser:
    """The module's browser as one test sees it: every context the test opens is closed after it.
    Pages left open keep polling their (stopped) server; under a parallel run, where the web tests
    may come first, some 30 Chromium processes kept half a core busy for the rest of the run."""

    def __init__(self, browser) -> None:
        self._browser = browser
        self.contexts: list = []

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        self.contexts.append(context)
        return context

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture
def browser(chromium):
    wrapped = _ClosingBrowser(chromium)
    yield wrapped
    for context in wrapped.contexts:
        try:
            context.close()
        except Exception:  # noqa: BLE001 (already closed by the test, or the browser went away)
            pass
