"""Client detection from `clientInfo`, the env override, the fallback, and the wait slice it sets."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from amicus_mcp.mcp.client import ClientDetector, classify, detect
from amicus_mcp.mcp.state import WAIT_MAX_S, Caller, WaitSlice


@pytest.mark.parametrize("name", ["claude-code", "Claude Code", "claude_code", "ClaudeCode", "CLAUDE-CODE",
                                  "claude code (desktop tab)"])
def test_claude_code_spellings_are_code_local(name: str) -> None:
    assert classify(name) == "code-local"


@pytest.mark.parametrize("name", ["claude-ai", "Claude Desktop", "claude_desktop", "Anthropic/ClaudeAI", "cowork",
                                  "Cowork VM"])
def test_desktop_web_and_cowork_are_cowork(name: str) -> None:
    assert classify(name) == "cowork"


@pytest.mark.parametrize("name", [None, "", "cursor-vscode", "codex-mcp-client", "claude", "code"])
def test_other_names_are_not_recognized(name: str | None) -> None:
    assert classify(name) is None


def test_handshake_name_is_used_when_there_is_no_override() -> None:
    assert detect("claude-code", {}).tag == "code-local"
    assert detect("claude-ai", {}).source == "clientInfo"


@pytest.mark.parametrize("tag", ["code-local", "code-web", "cowork"])
def test_env_override_wins_over_the_handshake(tag: str) -> None:
    found = detect("claude-ai" if tag == "code-local" else "claude-code", {"AMICUS_MCP_CLIENT": tag})
    assert (found.tag, found.source, found.warning) == (tag, "env", None)


def test_code_web_is_reachable_only_through_the_override() -> None:
    assert detect("claude-code-web", {}).tag == "code-local"
    assert detect("claude-code", {"AMICUS_MCP_CLIENT": "code-web"}).tag == "code-web"


def test_an_invalid_override_is_ignored_with_a_warning() -> None:
    found = detect("claude-code", {"AMICUS_MCP_CLIENT": "desktop"})
    assert found.tag == "code-local" and found.source == "clientInfo"
    assert found.warning is not None and "'desktop'" in found.warning


def test_an_unknown_client_falls_back_to_cowork_with_a_warning() -> None:
    found = detect("cursor-vscode", {})
    assert (found.tag, found.source) == ("cowork", "fallback")
    assert found.warning is not None and "'cursor-vscode'" in found.warning


def test_an_absent_client_name_says_so() -> None:
    found = detect(None, {})
    assert found.tag == "cowork" and found.warning is not None and "(absent)" in found.warning


def test_the_detector_memoizes_and_warns_once() -> None:
    stream = io.StringIO()
    detector = ClientDetector(stream=stream)
    assert detector.resolve("mystery-client", {}) == "cowork"
    assert detector.resolve("claude-code", {}) == "cowork"  # memoized: the first answer stands
    assert detector.resolve("mystery-client", {}) == "cowork"
    assert stream.getvalue().count("unrecognized MCP client") == 1


def test_a_recognized_client_is_not_warned_about() -> None:
    stream = io.StringIO()
    assert ClientDetector(stream=stream).resolve("claude-code", {}) == "code-local"
    assert stream.getvalue() == ""


def caller(client: str, *, recognized: bool = True, **env: str) -> Caller:
    return Caller(client=client, roots=(), env=dict(env), cwd=Path.cwd(), recognized=recognized)  # type: ignore[arg-type]


def seconds(client: str, requested: float | None, **env: str) -> float:
    return caller(client, **env).wait_slice(requested).seconds


def test_wait_slice_defaults_stay_under_each_clients_own_timeout() -> None:
    assert seconds("code-local", None) < 120  # Claude Code backgrounds a call at ~120 s
    assert seconds("code-web", None) < 120
    assert seconds("cowork", None) < 60  # Claude Desktop gives up at ~60 s
    assert seconds("code-local", None) > seconds("cowork", None)


def test_wait_slice_env_then_call_override() -> None:
    assert seconds("cowork", None, AMICUS_WAIT_S="20") == 20
    assert seconds("cowork", 7, AMICUS_WAIT_S="20") == 7
    assert seconds("cowork", None, AMICUS_WAIT_S="nonsense") == seconds("cowork", None)
    assert seconds("code-local", 10_000, AMICUS_WAIT_S="900") == WAIT_MAX_S


def test_a_slice_past_the_clients_limit_is_clamped_and_says_why() -> None:
    for client, limit in (("code-local", 120), ("code-web", 120), ("cowork", 60)):
        cut = caller(client).wait_slice(300)
        assert cut.seconds < limit and cut.clamped_from == 300
        assert cut.reason and f"{limit} s" in cut.reason and "amicus_wait again" in cut.reason
        assert caller(client).wait_slice(30) == WaitSlice(30.0)  # within the limit: honoured as asked


def test_an_unrecognized_client_is_honoured_up_to_the_maximum() -> None:
    assert caller("cowork", recognized=False).wait_slice(None).seconds == seconds("cowork", None)
    assert caller("cowork", recognized=False).wait_slice(300) == WaitSlice(300.0)
    capped = caller("cowork", recognized=False).wait_slice(10_000)
    assert capped.seconds == WAIT_MAX_S and capped.clamped_from == 10_000


def test_the_operators_setting_is_the_ceiling() -> None:
    assert caller("cowork", AMICUS_WAIT_S="300").wait_slice(250) == WaitSlice(250.0)  # the operator knows the host
    cut = caller("cowork", AMICUS_WAIT_S="300").wait_slice(400)
    assert cut.seconds == 300 and cut.reason and "AMICUS_WAIT_S=300" in cut.reason
