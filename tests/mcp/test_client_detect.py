"""Client detection from `clientInfo`, the env override, the fallback, and the wait slice it sets."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from amicus_mcp.mcp.client import BY_TAG, HOSTS, UNKNOWN, ClientDetector, classify, detect
from amicus_mcp.mcp.state import WAIT_MAX_S, Caller, WaitSlice


@pytest.mark.parametrize("name", ["claude-code", "Claude Code", "claude_code", "ClaudeCode", "CLAUDE-CODE",
                                  "claude code (desktop tab)"])
def test_claude_code_spellings_are_code_local(name: str) -> None:
    assert classify(name) == "code-local"


@pytest.mark.parametrize("name", ["claude-ai", "Claude Desktop", "claude_desktop", "Anthropic/ClaudeAI", "cowork",
                                  "Cowork VM"])
def test_desktop_web_and_cowork_are_cowork(name: str) -> None:
    assert classify(name) == "cowork"


@pytest.mark.parametrize(("name", "tag"), [("gemini-cli-mcp-client", "gemini-cli"), ("codex-mcp-client", "codex"),
                                         ("inspector-cli", "inspector"), ("mcp-inspector", "inspector"),
                                         ("fast-agent-mcp", "fast-agent")])
def test_the_other_hosts_seen_are_recognized(name: str, tag: str) -> None:
    assert classify(name) == tag


@pytest.mark.parametrize("name", [None, "", "cursor-vscode", "claude", "code", "my-codex-fork", "gemini"])
def test_other_names_are_not_recognized(name: str | None) -> None:
    assert classify(name) is None


def test_handshake_name_is_used_when_there_is_no_override() -> None:
    assert detect("claude-code", {}).tag == "code-local"
    assert detect("claude-ai", {}).source == "clientInfo"


@pytest.mark.parametrize("tag", [host.tag for host in HOSTS])
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


def test_an_unknown_client_is_unknown_with_a_warning() -> None:
    found = detect("cursor-vscode", {})
    assert (found.tag, found.source) == ("unknown", "fallback")
    assert found.warning is not None and "'cursor-vscode'" in found.warning and "45 s" in found.warning


def test_an_absent_client_name_says_so() -> None:
    found = detect(None, {})
    assert found.tag == "unknown" and found.warning is not None and "(absent)" in found.warning


def test_the_detector_memoizes_and_warns_once() -> None:
    stream = io.StringIO()
    detector = ClientDetector(stream=stream)
    assert detector.resolve("mystery-client", {}) == "unknown"
    assert detector.resolve("claude-code", {}) == "unknown"  # memoized: the first answer stands
    assert detector.resolve("mystery-client", {}) == "unknown"
    assert stream.getvalue().count("unrecognized MCP client") == 1


def test_a_recognized_client_is_not_warned_about() -> None:
    stream = io.StringIO()
    assert ClientDetector(stream=stream).resolve("claude-code", {}) == "code-local"
    assert stream.getvalue() == ""


def caller(client: str, **env: str) -> Caller:
    return Caller(client=client, roots=(), env=dict(env), cwd=Path.cwd())  # type: ignore[arg-type]


def seconds(client: str, requested: float | None, **env: str) -> float:
    return caller(client, **env).wait_slice(requested).seconds


# The hosts' own limits on one tool call (platform-facts §7.1), as measured, not as the table says.
HOST_LIMIT_S = {"code-local": 120, "code-web": 120, "cowork": 60, "gemini-cli": 600, "codex": 120, "inspector": 60,
                "fast-agent": 120, "unknown": 60}


@pytest.mark.parametrize("tag", sorted(HOST_LIMIT_S))
def test_every_slice_stays_under_its_hosts_own_limit(tag: str) -> None:
    limit = HOST_LIMIT_S[tag]
    assert seconds(tag, None) <= 0.9 * limit  # the default, with a margin
    cut = caller(tag).wait_slice(10_000)
    assert cut.seconds == seconds(tag, None) and cut.clamped_from == 10_000
    assert cut.reason and f"{limit} s" in cut.reason and "amicus_wait again" in cut.reason
    assert caller(tag).wait_slice(30) == WaitSlice(30.0)  # within the limit: honoured as asked


def test_the_table_covers_every_tag() -> None:
    assert set(BY_TAG) == set(HOST_LIMIT_S) and BY_TAG["unknown"] is UNKNOWN


def test_an_unrecognized_client_never_waits_past_a_60_s_clients_bound() -> None:
    assert seconds("unknown", None) == seconds("unknown", 300) == seconds("unknown", 10_000) == 45


def test_wait_slice_env_then_call_override() -> None:
    assert seconds("cowork", None, AMICUS_WAIT_S="20") == 20
    assert seconds("cowork", 7, AMICUS_WAIT_S="20") == 7
    assert seconds("cowork", None, AMICUS_WAIT_S="nonsense") == seconds("cowork", None)
    assert seconds("code-local", 10_000, AMICUS_WAIT_S="900") == WAIT_MAX_S


def test_the_operators_setting_is_the_ceiling() -> None:
    assert caller("unknown", AMICUS_WAIT_S="300").wait_slice(250) == WaitSlice(250.0)  # the operator knows the host
    cut = caller("cowork", AMICUS_WAIT_S="300").wait_slice(400)
    assert cut.seconds == 300 and cut.reason and "AMICUS_WAIT_S=300" in cut.reason
