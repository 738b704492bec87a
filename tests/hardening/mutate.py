"""Hypothesis helpers: JSON values and in-place mutations of real JSON documents.

A mutation walks down the document from its root (or from a given sub-tree) to a random place and
there drops a key or an item, adds one, replaces a value with arbitrary JSON, nudges a number, or
changes its type (an int to a float or a string, a list to an object...). Real saves and logs
mutated this way reach far deeper into the readers than random text would.
"""

from __future__ import annotations

import copy
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# The budget of the property tests of untrusted input: small and derandomized in the default run
# (fixed examples, no example database), ``PROPERTY_EXAMPLES=5000`` for a deeper search.
EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])

SCALARS = (
    st.none() | st.booleans() | st.integers(-3, 70) | st.integers() | st.floats(allow_nan=False)
    | st.floats() | st.text(max_size=6)
    # a number of a thousand digits: JSON readers take it (Python's, up to 4,300), and an error
    # that echoes it whole is a thousand characters long (the web's move errors did)
    | st.sampled_from([10**1000, -(10**1000)])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=8,
)
OPS = ("drop", "add", "replace", "nudge", "retype", "duplicate")


def assert_one_line(exc: BaseException, kinds: tuple, limit: int) -> None:
    """A refusal of untrusted input: one of ``kinds``, one non-empty line of at most ``limit``
    characters (an echoed value is cut by ``brief``)."""
    text = str(exc)
    assert isinstance(exc, kinds), f"{type(exc).__name__}: {text[:300]}"
    assert text and "\n" not in text and len(text) <= limit, text[:limit + 100]


def _children(node: Any) -> list:
    if isinstance(node, dict):
        return list(node)
    if isinstance(node, list):
        return list(range(len(node)))
    return []


def mutate(data, doc: Any, root_keys: tuple = ()) -> str:
    """Apply one mutation to ``doc`` in place (drawing from hypothesis' ``data``); returns what it did."""
    container = doc
    for i, key in enumerate(root_keys):
        if key not in _children(container):  # an earlier mutation removed or replaced it
            root_keys = root_keys[:i]
            break
        container = container[key]
    path = list(root_keys)
    # descend: at each level stop here (mutate a child of this node) or go into a container child
    while True:
        keys = _children(container)
        if not keys:
            break
        deeper = [k for k in keys if _children(container[k])]
        if not deeper or not data.draw(st.booleans(), label="descend"):
            break
        key = data.draw(st.sampled_from(deeper), label="into")
        path.append(key)
        container = container[key]
    keys = _children(container)
    op = data.draw(st.sampled_from(OPS), label="op")
    if not keys or op == "add":
        value = data.draw(JSON, label="value")
        if isinstance(container, dict):
            name = data.draw(st.sampled_from(keys) | st.text(max_size=8), label="name") if keys else "x"
            container[name] = value
        elif isinstance(container, list):
            container.insert(data.draw(st.integers(0, len(container)), label="at"), value)
        return f"add at {path}"
    key = data.draw(st.sampled_from(keys), label="key")
    old = container[key]
    if op == "drop":
        del container[key]
    elif op == "replace":
        container[key] = data.draw(JSON, label="value")
    elif op == "nudge":
        if isinstance(old, bool) or not isinstance(old, (int, float)):
            container[key] = data.draw(JSON, label="value")
        else:
            container[key] = old + data.draw(st.sampled_from([-1, 1, -2, 2, 50, -50, 10**6]), label="by")
    elif op == "retype":
        # (float() of an int past ~1e308 overflows: such a number becomes 1.5 like the rest)
        as_float = float(old) if isinstance(old, int) and abs(old) < 2**1023 else 1.5
        options = [str(old), [old], {"v": old}, None, as_float, True]
        container[key] = data.draw(st.sampled_from(options), label="as")
    elif op == "duplicate":
        if isinstance(container, list):
            container.insert(key, copy.deepcopy(old))
        else:
            container[key] = copy.deepcopy(old) if not isinstance(old, list) else old + old[-1:]
    return f"{op} {path + [key]}"
