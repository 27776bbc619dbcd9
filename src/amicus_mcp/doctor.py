"""`amicus doctor`: is this machine ready to convene a council? Each check says what it saw
and, when something is off, how to fix it.

Checks: provider keys (names only — a value is never read out), the OpenRouter catalog, the
embedded local model, each supported agent CLI (`cli:claude`, `cli:codex`, `cli:gemini`: found
or not, its version, logged in or not; the report's `agents` list says it all), a browser for
the workspace, and the config dir (writable; the keys file private). A check is `ok`, `warn`
(works, but something is missing or weaker than it should be) or `fail` (something amicus needs
is broken). A check only reads: without `--fix` nothing is written (the catalog is fetched, not
cached; no directory is created). `--fix` repairs what is safe to repair: it creates the config
dir, makes the keys file private and caches the catalog it fetched.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import stat
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .config import config_dir, config_path
from .errors import AmicusError
from .vocabulary import AGENT_PREFIX, AGENT_SEATS, word_in

if TYPE_CHECKING:  # the report's declaration (schemas/doctor.schema.json is generated from it)
    from .documents.commands import AgentRow, DoctorReport
    from .vocabulary import DoctorCheck, DoctorStatus


@dataclass
class Check:
    name: DoctorCheck
    status: DoctorStatus
    detail: str
    hint: str | None = None


def check_keys() -> Check:
    from .providers.endpoints import DIRECT_VENDORS, OPENROUTER_KEY_ENV
    from .places import env_file_path
    from .providers.keys import get_key, placeholder_source

    names = [OPENROUTER_KEY_ENV, *(n for v in DIRECT_VENDORS.values() for n in v.key_names)]
    found = [name for name in names if get_key(name) is not None]
    unfilled = [name for name in names if name not in found and placeholder_source(name) is not None]
    if unfilled:  # never sent as a key: say which variables hold a placeholder (never its value)
        return Check("keys", "warn", f"{', '.join(unfilled)} holds a template placeholder, not a key (it is never sent)"
                     + (f"; set: {', '.join(found)}" if found else ""),
                     f"put the key itself in {unfilled[0]}, or unset it")
    if not found:
        return Check("keys", "warn", "no provider key is set: only the local bench and your own servers can run",
                     f"export {OPENROUTER_KEY_ENV}=… (one key reaches every cloud model), or add it to {env_file_path()}")
    return Check("keys", "ok", f"set: {', '.join(found)}")


def check_catalog(*, fix: bool = False) -> Check:
    import anyio

    from .providers.catalog import load_catalog

    catalog = anyio.run(lambda: load_catalog(timeout_s=5.0, save=fix))  # only --fix writes the cache
    count = len(catalog.models)
    if count and catalog.error is None:
        when = catalog.fetched_at.isoformat(timespec="minutes") if catalog.fetched_at else "unknown"
        return Check("catalog", "ok", f"{count} models ({catalog.state}, fetched {when})")
    if count:
        return Check("catalog", "warn", f"using a {catalog.state} cache of {count} models; refresh failed: {catalog.error}",
                     "check the network; model ids are still validated against the cache")
    return Check("catalog", "warn", f"unreachable ({catalog.error or 'no cache yet'}): model ids cannot be validated",
                 "check the network to openrouter.ai; runs still work, ids are just not checked before spending")


def check_local_model() -> Check:
    if importlib.util.find_spec("llama_cpp") is None:
        return Check("local model", "warn", "llama-cpp-python is not installed: the offline `local` bench cannot run",
                     "scripts/install-local-model.sh .venv (or pip install 'amicus-mcp[local]', which compiles ~10 min)")
    from .providers import gguf_cache

    try:
        model = gguf_cache.shipped_model()
    except AmicusError as err:
        return Check("local model", "warn", err.message, err.hint)
    target = gguf_cache.cache_dir() / model.file_name
    if target.is_file():
        return Check("local model", "ok", f"{model.file_name} ready in {target.parent}")
    return Check("local model", "ok", f"{model.file_name} installed; assembled into {target.parent} on first use")


def agent_report() -> list[AgentRow]:
    """Every supported agent CLI, found or not, with its version and readiness (probed in parallel:
    each probe starts the CLI, ~1 s)."""
    from concurrent.futures import ThreadPoolExecutor

    from .providers.agents import AGENT_CLIS, agent_status

    with ThreadPoolExecutor(max_workers=len(AGENT_CLIS)) as pool:
        statuses = list(pool.map(agent_status, AGENT_CLIS.values()))
    report: list[AgentRow] = []
    for status in statuses:
        problem = status.problem()
        name = word_in(AGENT_PREFIX + status.cli.name, AGENT_SEATS)
        if name is None:  # tests/test_vocabulary.py holds AGENT_SEATS to AGENT_CLIS
            raise ValueError(f"agent CLI '{status.cli.name}' has no word in vocabulary.AGENT_SEATS")
        report.append({"name": name, "title": status.cli.title,
                       "binary": status.cli.binary, "package": status.cli.package, "found": status.path is not None,
                       "path": status.path, "version": status.version, "supported": status.supported,
                       "loggedIn": status.logged_in, "ready": status.ready,
                       "problem": problem[0] if problem else None, "fix": problem[1] if problem else None})
    return report


def agent_checks(report: list[AgentRow]) -> list[Check]:
    """One check per agent CLI: ok when it can sit on a bench; a warning otherwise (none is required)."""
    checks = []
    for agent in report:
        if agent["ready"]:
            checks.append(Check(agent["name"], "ok", f"{agent['title']} {agent['version']} ({agent['path']}): ready"))
        else:
            checks.append(Check(agent["name"], "warn", agent["problem"] or "", agent["fix"]))  # not ready: problem() names why
    return checks


def check_browser() -> Check:
    import webbrowser

    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return Check("browser", "warn", "no display: `amicus watch --ui` prints its URL but cannot open a window",
                     "open the printed URL in a browser on this machine (it is served on 127.0.0.1 only)")
    try:
        webbrowser.get()
    except webbrowser.Error:
        found = next((b for b in ("xdg-open", "chromium", "google-chrome", "firefox") if shutil.which(b)), None)
        if found is None:
            return Check("browser", "warn", "no browser found for the workspace",
                         "install one (e.g. chromium) or open the URL `amicus watch --ui` prints by hand")
        return Check("browser", "ok", f"{found}")
    return Check("browser", "ok", "a default browser is available")


def check_config_dir(*, fix: bool = False) -> Check:
    from .places import env_file_path

    folder = config_dir()
    if fix:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not folder.exists():
        return Check("config dir", "ok", f"{folder} does not exist yet; it is created on first use",
                     "amicus doctor --fix creates it now")
    if not os.access(folder, os.W_OK):
        return Check("config dir", "fail", f"{folder} is not writable: the ledger and saved councils cannot be written",
                     f"chmod u+w {folder}")
    problems = []
    keys_file = env_file_path()
    if keys_file.exists() and keys_file.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        if fix:
            keys_file.chmod(0o600)
        else:
            problems.append(f"{keys_file} is readable by other users")
    if config_path().exists():
        try:
            from .config import load_config

            load_config()
        except AmicusError as err:
            return Check("config dir", "fail", err.message, err.hint)
    if problems:
        return Check("config dir", "warn", "; ".join(problems), f"chmod 600 {keys_file} (or run amicus doctor --fix)")
    return Check("config dir", "ok", f"{folder} is writable" + (", keys file private" if keys_file.exists() else ""))


def run_checks(*, fix: bool = False, offline: bool = False) -> DoctorReport:
    checks = [check_keys()]
    if not offline:
        checks.append(check_catalog(fix=fix))
    agents = agent_report()
    checks += [check_local_model(), *agent_checks(agents), check_browser(), check_config_dir(fix=fix)]
    return {"schemaVersion": 2, "type": "doctor", "ok": all(c.status != "fail" for c in checks),
            "checks": [{"name": c.name, "status": c.status, "detail": c.detail, "hint": c.hint} for c in checks],
            "agents": agents}


MARK = {"ok": "✓", "warn": "!", "fail": "✗"}


def render(doc: DoctorReport) -> str:
    lines = []
    for check in doc["checks"]:
        lines.append(f"{MARK[check['status']]} {check['name']}: {check['detail']}")
        if check["hint"] and check["status"] != "ok":
            lines.append(f"    → {check['hint']}")
    return "\n".join(lines)

