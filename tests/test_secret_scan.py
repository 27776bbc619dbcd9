"""Issue 13 item 2: the material is checked for secrets before any launch.

The scanner (`amicus_mcp.secrets.scan_material`) names the line and the kind of every hit and
never the value; pre-flight (`engine.preflight.check_material`) refuses with
SECRET_IN_MATERIAL unless the caller allows it, for `council run` and `fanout` alike, and the
repo's own briefings, docs and seeds never trip it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amicus_mcp.cli import main
from amicus_mcp.errors import SecretInMaterial
from amicus_mcp.engine.preflight import check_material
from amicus_mcp.secrets import scan_material

ROOT = Path(__file__).resolve().parents[1]
CANARY = "sk-or-v1-SECRETCANARY12345678"
FAKE_AWS = "AKIA" + "QWERTYUIOPASDFGH"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(("text", "line", "kind"), [
    (f"intro\nkey: {CANARY}\n", 2, "OpenRouter"),
    ("a\nb\nANTHROPIC=sk-ant-api03-abcdefghijklmnop1234\n", 3, "Anthropic"),
    ("openai sk-proj-abcdefghijklmnopqrstuvwx1234", 1, "OpenAI"),
    (f"aws {FAKE_AWS}", 1, "AWS"),
    ("gh ghp_" + "Ab1" * 12, 1, "GitHub"),
    ("slack xoxb-12345678901-abcdefghij", 1, "Slack"),
    (f"cert:\n{PEM}\n", 2, "private-key"),
    ("export DATABASE_TOKEN=Zx9vQ2mLp8Rt4Wy1\n", 1, "DATABASE_TOKEN"),
    ("STRIPE_SECRET: 'rk_live_51HqLyjWDarjtT1zdp7dc'\n", 1, "STRIPE_SECRET"),
])
def test_each_kind_is_found_by_line_and_kind(text: str, line: int, kind: str) -> None:
    hits = scan_material(text)
    assert hits and hits[0].line == line and kind in hits[0].kind
    for hit in hits:  # the description never carries the value
        assert CANARY not in hit.describe() and "Zx9vQ2mLp8Rt4Wy1" not in hit.describe()


def test_a_configured_key_value_is_found_by_its_variable_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "plainvalue-8d7f6e5d4c")
    hits = scan_material("one\ntwo plainvalue-8d7f6e5d4c three\n")
    assert [(h.line, h.kind) for h in hits] == [(2, "the value of the configured key DEEPSEEK_API_KEY")]


@pytest.mark.parametrize("text", [
    "OPENROUTER_API_KEY=sk-or-...",
    "export OPENAI_API_KEY=${OPENAI_API_KEY}",
    "API_KEY=<your key here>",
    "GITHUB_TOKEN=xxxxxxxxxxxxxxxx",
    "SOME_SECRET=changeme",
    "MY_KEY=your-api-key-goes-here",
    "The cache key is stale; the session token expires; ask-for-review sk-",
    "deepseek/deepseek-chat and the task-force disk-cache",
    "Authorization: Bearer $TOKEN",
    "AWS uses AKIA-prefixed ids",
])
def test_placeholders_and_prose_are_not_secrets(text: str) -> None:
    assert scan_material(text) == []


def _repo_texts() -> list[Path]:
    roots = [ROOT / "examples", ROOT / "docs", ROOT / "skills", ROOT / "commands", ROOT / "README.md"]
    found: list[Path] = []
    for root in roots:
        paths = [root] if root.is_file() else sorted(root.rglob("*"))
        found += [p for p in paths if p.is_file() and p.suffix in (".md", ".json", ".txt")]
    return found


def test_the_repo_briefings_docs_and_skills_never_trip_the_scanner() -> None:
    paths = _repo_texts()
    assert any(p.parent.name == "worked-example" for p in paths)
    tripped = {str(p.relative_to(ROOT)): [h.describe() for h in scan_material(p.read_text(encoding="utf-8"))]
               for p in paths}
    assert {k: v for k, v in tripped.items() if v} == {}


def test_check_material_refuses_naming_line_and_kind_never_the_value() -> None:
    with pytest.raises(SecretInMaterial) as info:
        check_material(f"# brief\n\nuse {CANARY} to call it\n", what="prompt file 'b.md'")
    err = info.value
    assert err.code == "SECRET_IN_MATERIAL" and err.exit_code == 1
    assert "line 3" in err.message and "OpenRouter" in err.message and "--allow-secrets" in (err.hint or "")
    assert "SECRETCANARY" not in err.message


def test_allowing_secrets_still_masks_configured_key_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY)
    text = f"configured {CANARY}; documented {FAKE_AWS}"
    assert check_material(text, what="x", allow_secrets=True) == f"configured ***; documented {FAKE_AWS}"


@pytest.fixture
def secret_brief(tmp_path: Path) -> Path:
    path = tmp_path / "brief.md"
    path.write_text(f"Review this config.\n\n```\nDATABASE_TOKEN=Zx9vQ2mLp8Rt4Wy1\n{CANARY}\n```\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("command", [
    ["council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair"],
    ["fanout", "--models", "fake/a,fake/b"],
    ["fanout", "--models", "fake/a,fake/b", "--estimate"],
])
def test_council_run_and_fanout_refuse_before_any_call(fake, secret_brief: Path, tmp_path: Path, capsys,
                                                      command: list[str]) -> None:
    code = main([*command, "--prompt-file", str(secret_brief), "--project", str(tmp_path), "--json"]
                if "--estimate" not in command else [*command, "--prompt-file", str(secret_brief), "--json"])
    out = capsys.readouterr().out
    envelope = json.loads(out)
    assert code == 1 and envelope["error"]["code"] == "SECRET_IN_MATERIAL"
    assert "line 4" in envelope["error"]["message"] and "line 5" in envelope["error"]["message"]
    assert "Zx9vQ2mLp8Rt4Wy1" not in out and "SECRETCANARY" not in out
    assert fake.chat_requests() == []  # nothing was sent to any model
    assert not (tmp_path / ".claude").exists() or not any((tmp_path / ".claude").rglob("*.md"))


def test_allow_secrets_lets_the_fanout_through(fake, secret_brief: Path, tmp_path: Path, capsys) -> None:
    from fakeprovider import chat

    fake.script("a", chat("ok a"))
    fake.script("b", chat("ok b"))
    code = main(["fanout", "--models", "fake/a,fake/b", "--prompt-file", str(secret_brief),
                 "--project", str(tmp_path), "--allow-secrets", "--json"])
    wave = json.loads(capsys.readouterr().out)
    assert (code, wave["status"]) == (0, "complete")
    assert "DATABASE_TOKEN=Zx9vQ2mLp8Rt4Wy1" in fake.prompts("a")[0]  # allowed: sent as written
