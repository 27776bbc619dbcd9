"""Issue 13 item 2 and issue 19 item 18: the material is checked for secrets before any launch.

The scanner (`amicus_mcp.secrets.scan_material`) names the line and the kind of every hit and
never the value; pre-flight (`engine.preflight.check_material`) refuses with
SECRET_IN_MATERIAL unless the caller allows it, for `council run` and `fanout` alike, and the
repo's own briefings, docs and seeds never trip it. Every planted kind below is refused
(passwords, connection URLs and pieces of a configured key among them), every input that
reaches a model is scanned (prompt file, artifact, template variables, a pack's variables,
Claude's review, fanout prompts), and a refused value is written nowhere.
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
    """What the project ships as text a model may be given: examples, docs, skills, commands,
    the built-in templates and prompts, the CI action and the MCP manifest."""
    pkg = ROOT / "src" / "amicus_mcp"
    roots = [ROOT / "examples", ROOT / "docs", ROOT / "skills", ROOT / "commands", ROOT / "README.md",
             pkg / "templates", pkg / "prompts", ROOT / "action.yml", ROOT / "mcp.json"]
    found: list[Path] = []
    for root in roots:
        paths = [root] if root.is_file() else sorted(root.rglob("*"))
        found += [p for p in paths if p.is_file() and p.suffix in (".md", ".json", ".txt", ".yml", ".yaml")]
    return found


# Keys shaped like the real ones, configured while the repo is scanned: a piece of a key, or a
# public key prefix the docs mention, must not be taken for one.
REALISTIC_KEYS = {
    "OPENROUTER_API_KEY": "sk-or-v1-" + "5be0c2d9a41f7e63" * 4,
    "ANTHROPIC_API_KEY": "sk-ant-api03-Qm7xZ2vL9pR4tY8wB1nC6kD3fG5hJ0sA-k3Wq9ZtRxYv2Lm8NpB4cD7fH1jK5sA0gE6iU",
    "OPENAI_API_KEY": "sk-proj-7Hq2Lm9Xv4Rt8Wy1Zp3Nc6Kd0Fg5Bj",
    "GEMINI_API_KEY": "AIzaSyC4d9Qm2Lx7Vt1Rp8Wn3Kj6Hg0Fb5Dz2Xc",
}


def test_the_repo_briefings_docs_and_skills_never_trip_the_scanner(monkeypatch: pytest.MonkeyPatch, config_dir) -> None:
    for name, value in REALISTIC_KEYS.items():
        monkeypatch.setenv(name, value)
    paths = _repo_texts()
    assert any(p.parent.name == "worked-example" for p in paths)
    assert {p.parent.name for p in paths} >= {"templates", "prompts", "ci"}
    tripped = {str(p.relative_to(ROOT)): [h.describe() for h in scan_material(p.read_text(encoding="utf-8"))]
               for p in paths}
    assert {k: v for k, v in tripped.items() if v} == {}
    assert len(paths) >= 30  # the scan really covered the shipped texts


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


# --------------------------------------------------------------------------- issue 19 item 18

PASSWORD = "Hq7vR2pLm9x"
KEY = "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"
# kind → (a line holding it, the value it must never show, what the refusal calls it)
PLANTED = {
    "an OpenRouter key": ("sk-or-v1-0123456789abcdef0123456789abcdef", "0123456789abcdef0123", "OpenRouter"),
    "an Anthropic key": ("sk-ant-api03-AbCdEfGhIjKlMnOp1234QrSt", "AbCdEfGhIjKlMnOp1234", "Anthropic"),
    "an OpenAI key": ("sk-abcdefghijklmnopqrstuvwx1234", "abcdefghijklmnopqrstuvwx1234", "OpenAI"),
    "an OpenAI project key": ("sk-proj-abcdefghijklmnopqrstuvwx1234", "abcdefghijklmnopqrstuvwx1234", "OpenAI"),
    "an AWS key id": (FAKE_AWS, FAKE_AWS, "AWS"),
    "a GitHub token": ("ghp_" + "Ab1" * 12, "Ab1Ab1Ab1Ab1", "GitHub"),
    "a fine-grained GitHub token": ("github_pat_11ABCDEFG0" + "aB3" * 14, "aB3aB3aB3aB3", "GitHub"),
    "a Slack token": ("xoxb-12345678901-abcdefghij", "12345678901-abcdefghij", "Slack"),
    "a Google API key": ("AIzaSyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tUvW", "1bC2dE3fG4hI5jK6lM7n", "Google"),
    "an RSA private key": (PEM, "MIIEowIBAAKCAQEA1234", "private-key"),
    "an OpenSSH private key": ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
                               "-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAA", "private-key"),
    "a *_TOKEN assignment": ("export DATABASE_TOKEN=Zx9vQ2mLp8Rt4Wy1", "Zx9vQ2mLp8Rt4Wy1", "DATABASE_TOKEN"),
    "a YAML *_SECRET": ("STRIPE_SECRET: 'rk_live_51HqLyjWDarjtT1zdp7dc'", "rk_live_51HqLyjWDarjtT1zdp7dc", "STRIPE_SECRET"),
    "a JSON api_key": ('  "api_key": "Zx9vQ2mLp8Rt4Wy1Kq7",', "Zx9vQ2mLp8Rt4Wy1Kq7", "api_key"),
    "a DB_PASSWORD with a #": ("DB_PASSWORD=Hq7#vR2!pLm9", "Hq7#vR2!pLm9", "DB_PASSWORD"),
    "the configured key": (f"the key is {KEY}", KEY[9:], "the value of the configured key OPENROUTER_API_KEY"),
    "the configured key without its prefix": (f"the key is {KEY[9:]}", KEY[9:],
                                              "a piece of the configured key OPENROUTER_API_KEY"),
    "password=": (f"password={PASSWORD}", PASSWORD, "assignment of password"),
    "password: ": (f"password: {PASSWORD}", PASSWORD, "assignment of password"),
    "PASSWORD=": (f"PASSWORD={PASSWORD}", PASSWORD, "assignment of PASSWORD"),
    "a quoted YAML password": ('db:\n  password: "Hq7 vR2-pLm9"', "Hq7 vR2-pLm9", "assignment of password"),
    "a connection URL": (f"DATABASE_URL is postgres://admin:{PASSWORD}@db.internal:5432/app", PASSWORD,
                         "a password in a connection URL"),
    "a bare 36-character piece of the configured key": (f"fragment {KEY[20:56]} here", KEY[20:56],
                                                         "a piece of the configured key OPENROUTER_API_KEY"),
}


@pytest.fixture
def key_configured(monkeypatch: pytest.MonkeyPatch, config_dir: Path) -> str:
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    return KEY


def test_twenty_three_kinds_are_planted() -> None:
    assert len(PLANTED) == 23


@pytest.mark.parametrize("kind", PLANTED)
def test_every_planted_kind_is_refused_naming_line_and_kind_never_the_value(key_configured: str, kind: str) -> None:
    planted, value, called = PLANTED[kind]
    line = 4 if planted.startswith("db:") else 3  # the YAML password sits on the block's second line
    with pytest.raises(SecretInMaterial) as info:
        check_material(f"# Brief\n\n{planted}\nthe end\n", what="prompt file 'brief.md'")
    err = info.value
    assert f"line {line}: " in err.message and called in err.message, err.message
    assert value not in err.message and value not in (err.hint or "")
    assert KEY[9:21] not in err.message


# Lines a design doc, a config or a diff holds that are not secrets: references, placeholders,
# expressions, types, paths, defaults.
LOOKALIKES = [
    "password: str", "password: Optional[str] = None", "    password: SecretStr",
    "password=os.environ['DB_PASSWORD']", 'password = os.environ["DB_PASSWORD"]',
    "conn = connect(host=host, password=settings.db_password)", "password=get_password()",
    "PASSWORD=${DB_PASSWORD}", "password: ${{ secrets.DB_PASSWORD }}", "password: <your password>",
    "password=changeme", "password: '********'", "password=$PGPASSWORD", 'password = "{password}"',
    'url = f"postgres://{user}:{password}@{host}/db"', "DATABASE_URL=postgres://user:password@localhost:5432/db",
    "postgres://user:pass@localhost/db", "postgres://${DB_USER}:${DB_PASSWORD}@db/app",
    "postgres://postgres:postgres@localhost:5432/postgres", "OLDPWD=/home/user/project",
    "The password: must be long.", "- password: required", "reset_password=True", "min_password_length=12",
    "PASSWORD_FILE=/run/secrets/db", "ssh://git@github.com:22/org/repo", '"password": {"type": "string"}',
    '"password": "string"', 'api_key: "${OPENROUTER_API_KEY}"', "token_url=https://auth.example.com/token",
    "ACCESS_TOKEN=$(gh auth token)", "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}", "password = ''",
    "set PASSWORD=... in your env", "password: correct horse battery staple", "connect(user, password=pw_from_vault)",
    "cache_key = make_key(user_id, 42)", '"apiKeyEnv": "FAKE_API_KEY"', "docker login --password-stdin",
    "passwordless login via magic links", 'env: {"OPENROUTER_API_KEY": "${{ secrets.OPENROUTER_API_KEY }}"}',
    '.write_text("OPENAI_API_KEY=sk-file\\nGEMINI_API_KEY=g-file\\n")',
]


@pytest.mark.parametrize("line", LOOKALIKES)
def test_lookalikes_are_not_secrets(key_configured: str, line: str) -> None:
    assert scan_material(f"{line}\n") == []


# ---- every input that reaches a model is scanned, and a refused value is written nowhere

DESIGN = "# Widget cache\n\nThe cache evicts entries on every write.\n"
LEAKY_LINES = f"# Widget cache\n\nThe cache evicts entries on every write.\n\nDB_PASSWORD={PASSWORD}\n"
REVIEW = ("The cache leaks.\n\n```json\n" + json.dumps({"overall": "leaky", "findings": [
    {"id": 1, "severity": "major", "claim": "The cache evicts on write", "location": "section 2",
     "rationale": "every write evicts"}]}) + "\n```\n")


def _inputs(tmp_path: Path, where: str) -> tuple[list[str], str]:
    """The arguments of a run whose input `where` holds a password; what the refusal names."""
    brief, design = tmp_path / "brief.md", tmp_path / "design.md"
    brief.write_text(LEAKY_LINES if where == "prompt file" else DESIGN, encoding="utf-8")
    design.write_text(LEAKY_LINES if where == "artifact" else DESIGN, encoding="utf-8")
    templated = ["--template", "design-doc", "--artifact", str(design)]
    if where == "prompt file":
        return ["--prompt-file", str(brief)], "prompt file"
    if where == "artifact":
        return templated, "--artifact"
    if where == "var":
        return [*templated, "--var", f"constraints=reach it at postgres://admin:{PASSWORD}@db.internal/app"], \
            "template variable 'constraints'"
    if where == "pack var":
        pack = tmp_path / "pack.json"
        pack.write_text(json.dumps({"name": "leaky", "template": "design-doc",
                                    "vars": {"focus": f"password: {PASSWORD}"}}), encoding="utf-8")
        return ["--pack", str(pack), "--artifact", str(design)], "template variable 'focus'"
    review = tmp_path / "claude.md"
    review.write_text(REVIEW.replace("The cache leaks.", f"The cache leaks.\n\npassword: {PASSWORD}"), encoding="utf-8")
    return ["--prompt-file", str(brief), "--claude-review", str(review)], "Claude's review"


def _elsewhere(tmp_path: Path) -> list[str]:
    return ["--out-dir", str(tmp_path / "run"), "--project", str(tmp_path / "project"), "--json"]


@pytest.mark.parametrize("where", ["prompt file", "artifact", "var", "pack var", "Claude's review"])
def test_each_input_of_a_council_run_is_scanned_before_anything_is_written(
        fake, tmp_path: Path, capsys, where: str) -> None:
    args, named = _inputs(tmp_path, where)
    run_dir, project = tmp_path / "run", tmp_path / "project"
    code = main(["council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair", *args,
                 "--out-dir", str(run_dir), "--project", str(project), "--json"])
    captured = capsys.readouterr()
    err = json.loads(captured.out)["error"]
    assert (code, err["code"]) == (1, "SECRET_IN_MATERIAL") and named in err["message"], err
    assert "password" in err["message"].lower() and "line " in err["message"]
    assert PASSWORD not in captured.out + captured.err
    assert fake.chat_requests() == [] and not run_dir.exists() and not project.exists()


def test_a_refused_var_names_the_variable_and_its_line(fake, tmp_path: Path, capsys) -> None:
    args, _ = _inputs(tmp_path, "var")
    assert main(["council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair", *args, *_elsewhere(tmp_path)]) == 1
    message = json.loads(capsys.readouterr().out)["error"]["message"]
    assert message.startswith("template variable 'constraints' looks like it contains a secret")
    assert "line 1: a password in a connection URL" in message


def test_the_artifact_is_refused_by_its_own_line(fake, tmp_path: Path, capsys) -> None:
    args, _ = _inputs(tmp_path, "artifact")
    assert main(["council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair", *args, *_elsewhere(tmp_path)]) == 1
    message = json.loads(capsys.readouterr().out)["error"]["message"]
    assert "--artifact" in message and "line 5: an assignment of DB_PASSWORD" in message


def test_a_fanout_prompt_holding_a_password_is_refused(fake, tmp_path: Path, capsys) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text(f"Check the service.\n\npassword: {PASSWORD}\n", encoding="utf-8")
    code = main(["fanout", "--models", "fake/a,fake/b", "--prompt-file", str(brief), "--project", str(tmp_path), "--json"])
    out = capsys.readouterr().out
    assert code == 1 and json.loads(out)["error"]["code"] == "SECRET_IN_MATERIAL" and PASSWORD not in out
    assert fake.chat_requests() == [] and not (tmp_path / ".claude").exists()
