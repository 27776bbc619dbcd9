"""`amicus keys`: values come in on stdin, land in a private file, and are never printed."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from amicus_mcp.schemas import schema_errors

SECRET = "sk-or-v1-do-not-print-me"


def amicus(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "amicus_mcp.cli", *args], input=stdin, capture_output=True,
                          text=True, env=os.environ.copy(), timeout=60)


def test_set_list_unset(config_dir: Path):
    env_file = config_dir / ".env"
    env_file.write_text("# my keys\nDEEPSEEK_API_KEY=sk-ds\n", encoding="utf-8")
    env_file.chmod(0o644)
    result = amicus("keys", "set", "OPENROUTER_API_KEY", stdin=SECRET + "\n")
    assert result.returncode == 0, result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    text = env_file.read_text(encoding="utf-8")
    assert "# my keys" in text and "DEEPSEEK_API_KEY=sk-ds" in text and f"OPENROUTER_API_KEY={SECRET}" in text

    replaced = amicus("keys", "set", "OPENROUTER_API_KEY", "--json", stdin="sk-new\n")
    assert replaced.returncode == 0
    stored = json.loads(replaced.stdout)
    assert schema_errors(stored, "keys") == [] and stored == {"schemaVersion": 2, "type": "keys",
                                                             "set": "OPENROUTER_API_KEY", "file": str(env_file)}
    assert env_file.read_text(encoding="utf-8").count("OPENROUTER_API_KEY=") == 1

    listed = json.loads(amicus("keys", "list", "--json").stdout)
    assert schema_errors(listed, "keys") == []
    rows = {row["name"]: row["setIn"] for row in listed["keys"]}
    assert rows["OPENROUTER_API_KEY"] == ["file"] and rows["OPENAI_API_KEY"] == []
    assert "sk-new" not in json.dumps(listed)

    unset = json.loads(amicus("keys", "unset", "OPENROUTER_API_KEY", "--json").stdout)
    assert schema_errors(unset, "keys") == [] and unset["removed"] is True
    # Each of the three documents is whole: a set without its file is none of them.
    assert schema_errors({"schemaVersion": 2, "type": "keys", "set": "OPENROUTER_API_KEY"}, "keys") != []
    assert "OPENROUTER_API_KEY" not in env_file.read_text(encoding="utf-8")


def test_bad_input_is_a_structured_error(config_dir: Path):
    for args, stdin in ((("keys", "set", "NOT-A-NAME"), "x\n"), (("keys", "set", "OPENAI_API_KEY"), "")):
        result = amicus(*args, "--json", stdin=stdin)
        assert result.returncode == 1
        assert json.loads(result.stdout)["error"]["code"] == "BAD_ARGS"
    assert not (config_dir / ".env").exists()
