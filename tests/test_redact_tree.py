"""`redact_tree`'s fast path (issue 19, item 21): a tree with nothing to mask is returned as is,
and any tree masks exactly as masking each of its strings would.

The configured-key scan is cached per state of the environment, so a key set after the first
redaction must still be masked from then on.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amicus_mcp.secrets import redact_text, redact_tree

KEY = "Zq8vN3xLw5Rt9Yp2Kd7Hs4"  # configured below: a value, not a shape
PIECES = ["plain words", "risk-based", "sk-or-v1-" + "a1" * 12, "Bearer tok3n.abc-def", "AKIA" + "ABCDEFGHIJKLMNOP",
          "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", KEY, f"pre{KEY}post",
          "ghp_" + "x1" * 18, "é ünïcode", "\x00", ""]

text = st.lists(st.sampled_from(PIECES), max_size=4).map(" ".join) | st.text(max_size=12)
tree = st.recursive(text | st.integers() | st.none() | st.booleans(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
                    max_leaves=12)


def each_string(node: Any) -> Any:
    """The reference: every string (keys included) masked on its own."""
    if isinstance(node, str):
        return redact_text(node)
    if isinstance(node, dict):
        return {redact_text(k): each_string(v) for k, v in node.items()}
    if isinstance(node, list):
        return [each_string(v) for v in node]
    return node


@pytest.fixture(autouse=True)
def configured_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_TEST_API_KEY", KEY)


@settings(max_examples=300, deadline=None)
@given(tree)
def test_the_tree_masks_as_each_string_would(value: Any) -> None:
    assert redact_tree(value) == each_string(value)


def test_a_clean_tree_comes_back_untouched() -> None:
    clean = {"id": "5387a1f0", "legs": [{"status": "complete", "cost": 0.002}], "next": "call amicus_read"}
    assert redact_tree(clean) is clean


def test_a_key_set_after_a_redaction_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    late = "Lt6Wq2Zr8Np4Vx1Mb9Kc3"
    assert redact_tree({"a": late}) == {"a": late}  # not configured yet
    monkeypatch.setenv("AMICUS_LATE_TOKEN", late)
    assert redact_tree({"a": f"x {late} y"}) == {"a": "x *** y"}
    monkeypatch.delenv("AMICUS_LATE_TOKEN")
    assert redact_tree({"a": late}) == {"a": late}
