"""Every Python snippet of docs/interop.md runs as written.

A snippet is a ```python block right after an ``<!-- snippet -->`` marker; ``<!-- snippet: needs
a, b -->`` names the optional modules it imports (the snippet is skipped when one is missing).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "interop.md"
BLOCK = re.compile(r"<!-- snippet(?::\s*needs ([^>]*?))?\s*-->\s*\n```python\n(.*?)```", re.DOTALL)


def snippets() -> list[tuple[str, list[str], str]]:
    text = PAGE.read_text(encoding="utf-8")
    out = []
    for match in BLOCK.finditer(text):
        needs = [m.strip() for m in (match.group(1) or "").split(",") if m.strip()]
        line = text[:match.start()].count("\n") + 1
        out.append((f"line{line}", needs, match.group(2)))
    return out


def test_every_python_block_is_a_marked_snippet():
    text = PAGE.read_text(encoding="utf-8")
    assert text.count("```python") == len(snippets()) >= 5


@pytest.mark.parametrize("name, needs, code", snippets(), ids=[s[0] for s in snippets()])
def test_snippet_runs(name, needs, code, tmp_path, monkeypatch):
    for module in needs:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # a dotted name whose parent package is missing
            found = False
        if not found:
            pytest.skip(f"{module} is not installed")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"docs/interop.md:{name}", "exec"), {"__name__": "__snippet__"})
