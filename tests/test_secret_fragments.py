"""Issue 19 item 17 at the choke points: any run of 12 or more consecutive characters of a
configured key is masked wherever text is redacted (`redact_text`, `redact_tree`,
`mask_configured`, error messages), and is a secret to the material scanner.

The end-to-end case (a provider answering 401 with pieces of the key, every output and file
of the run afterwards) is tests/mcp/test_key_fragments.py.
"""

from __future__ import annotations

import json

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amicus_mcp.errors import BadArgs
from amicus_mcp.fsio import dumps_json
from amicus_mcp.providers.openai_compat import error_for_status
from amicus_mcp.secrets import FRAGMENT, mask_configured, redact_text, redact_tree, scan_material

KEY = "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"
H = KEY[len("sk-or-v1-"):]
FORMS = [
    f"key {H[:20]}…{H[-3:]} is invalid",
    f"key {KEY} is invalid",
    f"key {KEY[:25]}… is invalid",
    f"key {KEY[:19]}… is invalid",
    f"key {H} is invalid",
    f"key ending in {H[-12:]}",
    f"key …{H[-16:]} rejected",
    f"part {H[10:46]} of the key",
    json.dumps({"error": {"message": f"bad key {H[30:50]}"}}),
    f"GET /v1?api_key={H[5:30]}&x=1",
    f"Authorization: Bearer {H[:24]}…",
    f"naïve «{H[7:40]}» — ünïcode around it",
    f"two pieces {H[:14]} and {H[40:60]}",
]


def key_runs(text: str) -> list[str]:
    return [KEY[i:i + FRAGMENT] for i in range(len(KEY) - FRAGMENT + 1) if KEY[i:i + FRAGMENT] in text]


@pytest.fixture
def configured(monkeypatch: pytest.MonkeyPatch, config_dir) -> str:
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    return KEY


@pytest.mark.parametrize("text", FORMS)
def test_every_piece_of_a_configured_key_is_masked(configured: str, text: str) -> None:
    for masked in (redact_text(text), mask_configured(text), dumps_json({"m": text}), json.dumps(redact_tree([{text: text}]))):
        assert key_runs(masked) == [], masked
        assert "***" in masked


def test_the_words_around_a_piece_are_kept(configured: str) -> None:
    assert redact_text(f"key {H[:20]}…{H[-3:]} is invalid") == f"key ***…{H[-3:]} is invalid"
    assert redact_text(f"see {H[10:46]}, then retry") == "see ***, then retry"
    assert redact_text(f"x {H[:11]} y") == f"x {H[:11]} y"  # eleven characters are not a piece


def test_a_401_quoting_pieces_is_masked_in_the_error(configured: str) -> None:
    raw = json.dumps({"error": {"code": 401, "message": f"Incorrect API key: {H[:20]}…{H[-3:]} and {H[-16:]}"}})
    err = error_for_status(401, raw.encode(), httpx.Headers(), provider="p", model="m", secrets=())
    assert key_runs(err.message) == [] and key_runs(json.dumps(err.to_doc())) == []
    assert key_runs(BadArgs(f"model {H[3:40]} failed").message) == []


def test_the_scanner_calls_a_piece_a_piece_and_the_whole_the_value(configured: str) -> None:
    hits = scan_material(f"intro\nthe bare piece {H[20:56]}\nand {KEY}\n")
    kinds = [(h.line, h.kind) for h in hits]
    assert (2, "a piece of the configured key OPENROUTER_API_KEY") in kinds
    assert (3, "the value of the configured key OPENROUTER_API_KEY") in kinds
    assert all(H[20:56] not in h.describe() for h in hits)


def test_a_public_key_prefix_is_no_piece_of_a_key(monkeypatch: pytest.MonkeyPatch, config_dir) -> None:
    anthropic = "sk-ant-api03-Qm7xZ2vL9pR4tY8wB1nC6kD3fG5hJ0sAzzQ"
    monkeypatch.setenv("ANTHROPIC_API_KEY", anthropic)
    docs = "Anthropic keys look like sk-ant-api03-…; set ANTHROPIC_API_KEY=sk-ant-api03-..."
    assert redact_text(docs) == docs and scan_material(docs) == []
    assert redact_text(f"got {anthropic}") == "got ***"  # the whole key, prefix included
    assert redact_text(f"got {anthropic[:20]}…") == "got ***…"


def test_a_path_held_in_a_key_variable_is_masked_whole_only(monkeypatch: pytest.MonkeyPatch, config_dir) -> None:
    monkeypatch.setenv("DEPLOY_SSH_KEY", "/home/runner/.ssh/id_ed25519_deploy")
    text = "run dir /home/runner/work/app/council-1; key file /home/runner/.ssh/id_ed25519_deploy"
    assert redact_text(text) == "run dir /home/runner/work/app/council-1; key file ***"


def test_a_key_with_json_escapes_is_masked_in_json(monkeypatch: pytest.MonkeyPatch, config_dir) -> None:
    odd = 'tok"77e1a0c4b9d3f2e8a6c5b4d1'
    monkeypatch.setenv("ODD_TOKEN", odd)
    shown = dumps_json({"said": f"it was {odd}, then {odd[4:20]}"})
    assert "77e1a0c4b9d3" not in shown and shown.count("***") == 2


@settings(max_examples=60, deadline=None)
@given(before=st.text(max_size=40), after=st.text(max_size=40),
       start=st.integers(0, len(KEY) - FRAGMENT), length=st.integers(FRAGMENT, len(KEY)))
def test_any_run_of_twelve_is_masked_whatever_surrounds_it(before: str, after: str, start: int, length: int) -> None:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("OPENROUTER_API_KEY", KEY)
        masked = redact_text(before + KEY[start:start + length] + after)
    assert key_runs(masked) == []
