"""Agent seats: a route whose call runs a local agent CLI instead of an HTTP request.

    cli:claude[/<model>]   Claude Code        claude -p (plan mode, read-only tools)
    cli:codex[/<model>]    OpenAI Codex CLI   codex exec (read-only sandbox)
    cli:gemini[/<model>]   Gemini CLI         gemini -p (plan mode: read-only), run in an empty folder of
                                              amicus's with the project as an included directory

Each leg runs the CLI as a subprocess in the project directory with the prompt on stdin,
read-only: the CLI's own plan / read-only mode and sandbox, never an auto-approve flag, only
file-reading tools, no MCP servers of the user's, and an environment scrubbed down to the
basics (PATH, HOME, locale, proxies) plus the CLI's own variables — no other provider's key
and nothing of amicus's. The reply goes through the same contracts, repairs, fencing and
redaction as a model's (the engine never knows it came from a CLI). Where the CLI has a
schema mode (Claude Code `--json-schema`, Codex `--output-schema`) the leg's structured-output
schema goes there and the reply is held to it like a model's (a mismatch keeps its text for the
repair loop); Gemini CLI has none, so its reply carries the fenced block.

Limits. `request.timeout_s` bounds the leg; at the deadline, or when the leg is cancelled
(abort), the CLI's whole process group is killed (it runs in a session of its own). The CLI
also gets SIGKILL when the amicus process itself dies (Linux: PR_SET_PDEATHSIG), so a run
killed mid-leg leaves no orphan. A per-CLI semaphore bounds concurrent legs
(config `agents.<name>.concurrency`, default 2); the rest wait their turn, and a leg's timeout
runs from when its CLI starts, not from when it was queued (`request.on_start`).

Cost. An agent CLI bills a subscription (or its own key), not amicus: a leg's cost is unknown
(null, never $0), and `--max-cost` cannot bound it — pre-flight says so. Tokens are reported
where the CLI reports them.

Readiness (`check_agent_ready`, run at pre-flight before any leg is sent): the binary is on
PATH, its version is at least the one supported, and it is logged in (each CLI's own cheap
check) — else `AgentNotReady` (AGENT_NOT_READY) with the command that fixes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import anyio

from ..errors import AgentNotReady, BadModel
from ..vocabulary import AGENT_PREFIX
from .base import Completion, CompletionRequest, Message, Tokens, Usage
from .errors import AuthError, MalformedReply, ProviderError, ProviderRejected, ProviderTimeout

MAX_OUTPUT_BYTES = 16 * 1024 * 1024  # a reply (with the CLI's JSON envelope) larger than this is refused
PROBE_TIMEOUT_S = 20.0  # `--version` and the login check: a node CLI starts in ~1 s
DEFAULT_CONCURRENCY = 2  # agent legs are heavy (a node process each); twin seats of one CLI still run together
KILL_GRACE_S = 2.0

# Always passed through: what any program needs to run, resolve hosts and reach its API.
_BASE_ENV = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR",
             "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy",
             "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "SYSTEMROOT", "APPDATA", "USERPROFILE")
_BASE_PREFIXES = ("LC_", "XDG_")


class Reply(NamedTuple):
    text: str
    model: str | None
    tokens: Tokens
    error: str | None = None  # the CLI's own report of a failed turn


SchemaMode = Literal["inline", "file"]  # how a CLI takes an output schema: the JSON as the flag's value, or a file


class AgentCli(NamedTuple):
    """One supported agent CLI: how to call it read-only, read its answer, and tell it is ready."""

    name: str  # the word after `cli:`
    title: str
    binary: str
    package: str  # the npm package that installs it
    min_version: tuple[int, int, int]
    env_prefixes: tuple[str, ...]  # the CLI's own variables (its key, base URL, config dir)
    login_hint: str
    argv: Callable[[str, str, Sequence[str]], list[str]]  # (binary path, model or "", extra flags) → the command line
    parse: Callable[[str], Reply]
    logged_in: Callable[[str, Mapping[str, str]], bool]
    extra_env: tuple[tuple[str, str], ...] = ()  # set for every call (unless the user set them)
    # Its structured-output flag, when it has one: the leg's schema goes there, and the reply is
    # held to it (with_structured) like a model's; without one the fenced block carries the structure.
    schema_flag: str | None = None
    schema_mode: SchemaMode = "inline"
    # When set, the CLI runs in an empty scratch folder of amicus's and is given the project through
    # this flag: it reads a workspace's own config from its working folder (Gemini CLI: the
    # project's `.gemini/.env` would point its API base, and so the prompt and the key, elsewhere).
    project_flag: str | None = None

    @property
    def structured(self) -> bool:
        return self.schema_flag is not None

    @property
    def install_hint(self) -> str:
        return f"npm install -g {self.package}"


# ------------------------------------------------------------------------- Claude Code

_CLAUDE_TOOLS = "Read,Grep,Glob"  # the only built-in tools it gets: reading the repository


def _claude_argv(binary: str, model: str, extra: Sequence[str] = ()) -> list[str]:
    argv = [binary, "-p", "--output-format", "json", "--permission-mode", "plan", "--tools", _CLAUDE_TOOLS,
            "--allowedTools", _CLAUDE_TOOLS, "--strict-mcp-config", "--no-session-persistence",
            # `-p` skips the workspace trust dialog, so a repository's own .claude/settings*.json
            # (hooks, apiKeyHelper, env, permissions) would apply: only the user's settings load.
            "--setting-sources", "user", *extra]
    return argv + (["--model", model] if model else [])


def _claude_parse(stdout: str) -> Reply:
    doc = _last_json(stdout)
    if not isinstance(doc, dict) or "result" not in doc and "is_error" not in doc:
        raise ValueError("no result object")
    usage = got if isinstance(got := doc.get("usage"), dict) else {}
    models = got if isinstance(got := doc.get("modelUsage"), dict) else {}
    details = got if isinstance(got := usage.get("output_tokens_details"), dict) else {}
    tokens = Tokens(input=_int(usage.get("input_tokens")), output=_int(usage.get("output_tokens")),
                    reasoning=_int(details.get("thinking_tokens")),
                    cache_read=_int(usage.get("cache_read_input_tokens")),
                    cache_write=_int(usage.get("cache_creation_input_tokens")))
    model = next(iter(models), None)
    text = got if isinstance(got := doc.get("result"), str) else ""
    if doc.get("structured_output") is not None:  # --json-schema: what the model handed its StructuredOutput tool
        text = json.dumps(doc["structured_output"], ensure_ascii=False)
    return Reply(text, model, tokens, error=text or str(doc.get("subtype")) if doc.get("is_error") else None)


def _claude_logged_in(binary: str, env: Mapping[str, str]) -> bool:
    done = _probe([binary, "auth", "status"], env)
    try:
        return bool(json.loads(done.stdout).get("loggedIn"))
    except (ValueError, AttributeError):
        return done.returncode == 0


# ------------------------------------------------------------------------- Codex CLI


def _codex_argv(binary: str, model: str, extra: Sequence[str] = ()) -> list[str]:
    argv = [binary, "exec", "--sandbox", "read-only", "--skip-git-repo-check", "--ephemeral", "--json",
            "--color", "never", "-c", "mcp_servers={}", "-c", "web_search=\"disabled\"", *extra]
    return argv + (["-m", model] if model else []) + ["-"]


def _codex_parse(stdout: str) -> Reply:
    texts: list[str] = []
    tokens = Tokens()
    error: str | None = None
    seen = False
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        seen = True
        item = got if isinstance(got := event.get("item"), dict) else {}
        if event.get("type") == "item.completed" and item.get("type") == "agent_message":
            texts.append(str(item.get("text") or ""))
        elif event.get("type") == "turn.completed" and isinstance(event.get("usage"), dict):
            usage = event["usage"]
            tokens = Tokens(input=_int(usage.get("input_tokens")), output=_int(usage.get("output_tokens")),
                            reasoning=_int(usage.get("reasoning_output_tokens")),
                            cache_read=_int(usage.get("cached_input_tokens")),
                            cache_write=_int(usage.get("cache_write_input_tokens")))
        elif event.get("type") in ("turn.failed", "error"):
            detail = got if isinstance(got := event.get("error"), dict) else event
            error = str(detail.get("message") or "the turn failed")
    if not seen:
        raise ValueError("no JSON events")
    return Reply(texts[-1] if texts else "", None, tokens, error=None if texts else error)


def _codex_logged_in(binary: str, env: Mapping[str, str]) -> bool:
    return _probe([binary, "login", "status"], env).returncode == 0


# ------------------------------------------------------------------------- Gemini CLI


def _gemini_argv(binary: str, model: str, extra: Sequence[str] = ()) -> list[str]:
    # The prompt arrives on stdin; -p switches to headless mode and is appended to it.
    argv = [binary, "--output-format", "json", "--approval-mode", "plan", "--skip-trust", "--allowed-mcp-server-names", "none",
            "-e", "none", *extra, "-p", " "]
    return argv + (["-m", model] if model else [])


def _gemini_parse(stdout: str) -> Reply:
    doc = _last_json(stdout)
    if not isinstance(doc, dict) or not ("response" in doc or "error" in doc):
        raise ValueError("no response object")
    stats = got if isinstance(got := doc.get("stats"), dict) else {}
    models = got if isinstance(got := stats.get("models"), dict) else {}
    model = next(iter(models), None)
    counts = models[model].get("tokens", {}) if model and isinstance(models[model], dict) else {}
    tokens = Tokens(input=_int(counts.get("prompt")), output=_int(counts.get("candidates")),
                    reasoning=_int(counts.get("thoughts")), cache_read=_int(counts.get("cached")))
    error = doc.get("error")
    message = (error.get("message") if isinstance(error, dict) else str(error)) if error else None
    return Reply(str(doc.get("response") or ""), model, tokens, error=message)


def _gemini_logged_in(_binary: str, env: Mapping[str, str]) -> bool:
    """Gemini CLI has no status command: a key in the environment, or the cached Google login."""
    if any(env.get(name) for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY")):
        return True
    if env.get("GOOGLE_GENAI_USE_VERTEXAI") and env.get("GOOGLE_CLOUD_PROJECT"):
        return True
    home = Path(env.get("GEMINI_CLI_HOME") or env.get("HOME") or Path.home())
    return (home / ".gemini" / "oauth_creds.json").is_file()


AGENT_CLIS: dict[str, AgentCli] = {
    "claude": AgentCli("claude", "Claude Code", "claude", "@anthropic-ai/claude-code", (2, 1, 0),
                       ("ANTHROPIC_", "CLAUDE_", "DISABLE_"),
                       "claude auth login (or set ANTHROPIC_API_KEY)", _claude_argv, _claude_parse, _claude_logged_in,
                       # A StructuredOutput tool whose input schema is the leg's; its input is the reply.
                       schema_flag="--json-schema"),
    "codex": AgentCli("codex", "OpenAI Codex CLI", "codex", "@openai/codex", (0, 100, 0), ("OPENAI_", "CODEX_"),
                      "codex login (or: printenv OPENAI_API_KEY | codex login --with-api-key)",
                      _codex_argv, _codex_parse, _codex_logged_in,
                      # Sent as the Responses request's `text.format` (a strict json_schema).
                      schema_flag="--output-schema", schema_mode="file"),
    "gemini": AgentCli("gemini", "Gemini CLI", "gemini", "@google/gemini-cli", (0, 40, 0),
                       ("GEMINI_", "GOOGLE_"), "run `gemini` once and sign in with Google (or set GEMINI_API_KEY)",
                       _gemini_argv, _gemini_parse, _gemini_logged_in, project_flag="--include-directories",
                       # It re-executes itself with a larger heap by default: a second node start-up per leg.
                       extra_env=(("GEMINI_CLI_NO_RELAUNCH", "true"),)),
}


def agent_cli(name: str) -> AgentCli:
    cli = AGENT_CLIS.get(name)
    if cli is None:
        raise BadModel(f"Unknown agent CLI 'cli:{name}'",
                       hint=f"use one of: {', '.join(AGENT_PREFIX + n for n in sorted(AGENT_CLIS))}")
    return cli


def split_agent_id(model_id: str) -> tuple[AgentCli, str]:
    """`cli:gemini/gemini-2.5-pro` → (the Gemini CLI, "gemini-2.5-pro"); the model may be empty."""
    name, _, model = model_id[len(AGENT_PREFIX):].partition("/")
    return agent_cli(name), model


# ------------------------------------------------------------------------- environment


def agent_env(cli: AgentCli, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a CLI runs with: the basics and its own variables, nothing else."""
    source = os.environ if environ is None else environ
    keep = {k: v for k, v in source.items()
            if k in _BASE_ENV or k.startswith(_BASE_PREFIXES) or k.startswith(cli.env_prefixes)}
    for name, value in cli.extra_env:
        keep.setdefault(name, value)
    keep["NO_COLOR"] = "1"
    keep.setdefault("CI", "1")  # no interactive first-run screens
    return keep


# ------------------------------------------------------------------------- readiness


class AgentStatus(NamedTuple):
    cli: AgentCli
    path: str | None
    version: str | None
    supported: bool
    logged_in: bool

    @property
    def ready(self) -> bool:
        return self.path is not None and self.supported and self.logged_in

    def problem(self) -> tuple[str, str] | None:
        """(what is wrong, the command that fixes it), or None when the CLI is ready."""
        need = ".".join(map(str, self.cli.min_version))
        if self.path is None:
            from ..front import desktop

            hint = self.cli.install_hint
            if desktop():  # a GUI app starts its servers with its own, often shorter, PATH
                hint += (f"; if `{self.cli.binary}` is installed, Claude Desktop does not see it: put it in a folder "
                         "on the PATH Desktop starts servers with (e.g. /usr/local/bin), then restart Claude Desktop")
            return f"{self.cli.title} (`{self.cli.binary}`) is not on PATH", hint
        if not self.supported:
            return (f"{self.cli.title} {self.version or '(unknown version)'} is older than the supported {need}",
                    f"npm install -g {self.cli.package}@latest")
        if not self.logged_in:
            return f"{self.cli.title} is not logged in", self.cli.login_hint
        return None


_STATUS_TTL_S = 30.0  # a bench that names one CLI twice (twin seats, seat and chair) probes it once
_statuses: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[float, AgentStatus]] = {}


def agent_status(cli: AgentCli, environ: Mapping[str, str] | None = None) -> AgentStatus:
    """Find the CLI on PATH, read its version and ask whether it is logged in (~1-4 s: each probe
    starts the CLI). A ready CLI is remembered for a few seconds per environment."""
    env = agent_env(cli, environ)
    key = (cli.name, tuple(sorted(env.items())))
    known = _statuses.get(key)
    if known is not None and time.monotonic() - known[0] < _STATUS_TTL_S:
        return known[1]
    status = _probe_status(cli, env)
    if status.ready:  # a CLI not ready is asked again: the user may just have fixed it
        _statuses[key] = (time.monotonic(), status)
    return status


def _probe_status(cli: AgentCli, env: Mapping[str, str]) -> AgentStatus:
    path = shutil.which(cli.binary, path=env.get("PATH"))
    if path is None:
        return AgentStatus(cli, None, None, False, False)
    done = _probe([path, "--version"], env)
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", done.stdout or "")
    version = found.group(0) if found else None
    supported = found is not None and tuple(int(p) for p in found.groups()) >= cli.min_version
    logged_in = supported and cli.logged_in(path, env)
    return AgentStatus(cli, path, version, supported, logged_in)


def check_agent_ready(member: str, model_id: str) -> None:
    """AGENT_NOT_READY, with the fixing command, unless the seat's CLI can run a leg."""
    cli, _ = split_agent_id(model_id)
    problem = agent_status(cli).problem()
    if problem is not None:
        raise AgentNotReady(f"'{member}' runs on {cli.title}: {problem[0]}", hint=problem[1])


def _probe(argv: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, env=dict(env), capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, start_new_session=True, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess(argv, 127, "", str(exc))


# ------------------------------------------------------------------------- the provider


def transcript(messages: tuple[Message, ...]) -> str:
    """The conversation as one prompt: an agent CLI takes a single message on stdin."""
    if len(messages) == 1:
        return messages[0].content
    heads = {"system": "# Instructions", "user": "# Request", "assistant": "# Your earlier reply"}
    return "\n\n".join(f"{heads[m.role]}\n\n{m.content}" for m in messages)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the CLI gets SIGKILL when amicus dies, so a killed run leaves no orphan."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _scratch_root() -> Path:
    """Where a leg's scratch folder goes: under the user's cache, not the system temp folder, as a
    CLI run there looks for config in every folder above it (Gemini CLI: a `.env`), and a shared
    /tmp is anyone's to write. Never amicus's config folder: its `.env` holds amicus's keys."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    root = Path(base) / "amicus" / "agent-legs"
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return root


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


class AgentProvider:
    """Runs one agent CLI per leg, at most `concurrency` at a time."""

    def __init__(self, cli: AgentCli, *, cwd: Path, concurrency: int = DEFAULT_CONCURRENCY) -> None:
        self.cli = cli
        self.name = AGENT_PREFIX + cli.name
        self.cwd = cwd
        self._slots = anyio.Semaphore(max(1, concurrency))
        self.active: set[int] = set()  # pids of CLIs running now (tests check none outlives its leg)
        self.on_start: Callable[[int], None] | None = None  # told each CLI's pid as it starts

    queues = True  # legs beyond `concurrency` wait their turn; each one's timeout runs from its start

    async def complete(self, request: CompletionRequest) -> Completion:
        if self._slots.value == 0 and request.on_queued is not None:  # every slot taken: it waits its turn
            request.on_queued()
        async with self._slots:
            if request.on_start is not None:
                request.on_start()
            try:
                with anyio.fail_after(request.timeout_s):
                    with tempfile.TemporaryDirectory(prefix="leg-", dir=_scratch_root()) as scratch:
                        stdout, stderr, code = await self._run(request, Path(scratch))
            except TimeoutError:
                raise ProviderTimeout(f"{self.cli.title} did not answer within {request.timeout_s:g} s",
                                      provider=self.name, model=self._model(request)) from None
        completion = self._completion(request, stdout, stderr, code)
        if request.json_schema is None or not self.cli.structured:
            return completion
        from .openai_compat import with_structured  # only a structured leg pays for jsonschema

        # Held to the schema as a model's reply is: a mismatch keeps its text for the repair loop.
        return with_structured(completion, request.json_schema, provider=self.name, model=self._model(request))

    def _schema_flags(self, request: CompletionRequest, scratch: Path) -> list[str]:
        """The CLI's structured-output flag with the leg's schema (in a private scratch file when
        the CLI reads it from one), or nothing."""
        if request.json_schema is None or self.cli.schema_flag is None:
            return []
        schema = json.dumps(request.json_schema, ensure_ascii=False)
        if self.cli.schema_mode == "inline":
            return [self.cli.schema_flag, schema]
        path = scratch / "output-schema.json"
        path.write_text(schema, encoding="utf-8")
        return [self.cli.schema_flag, str(path)]

    def _model(self, request: CompletionRequest) -> str:
        return f"{self.name}/{request.model}" if request.model else self.name

    async def _run(self, request: CompletionRequest, scratch: Path) -> tuple[bytes, bytes, int]:
        extra = self._schema_flags(request, scratch)
        cwd = self.cwd
        if self.cli.project_flag is not None:  # the project is read through the flag, never run from
            # One folder for every leg: the CLI keeps its per-folder state (chats, plans) under its home.
            cwd = _scratch_root() / "workspace"
            cwd.mkdir(exist_ok=True, mode=0o700)
            extra += [self.cli.project_flag, str(self.cwd)]
        path = shutil.which(self.cli.binary, path=agent_env(self.cli).get("PATH"))
        if path is None:
            raise ProviderRejected(f"{self.cli.title} (`{self.cli.binary}`) is not on PATH",
                                   provider=self.name, model=self._model(request))
        proc = await asyncio.create_subprocess_exec(
            *self.cli.argv(path, request.model, extra), cwd=cwd, env=agent_env(self.cli),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            start_new_session=True, preexec_fn=_die_with_parent)
        self.active.add(proc.pid)
        if self.on_start is not None:
            self.on_start(proc.pid)
        try:
            stdout, stderr = await proc.communicate(transcript(request.messages).encode())
            return stdout, stderr, proc.returncode or 0
        finally:
            # Timeout, abort or done: nothing of the CLI's process group outlives the leg.
            _kill_group(proc)
            with anyio.CancelScope(shield=True), anyio.move_on_after(KILL_GRACE_S):
                await proc.wait()
            self.active.discard(proc.pid)

    def _completion(self, request: CompletionRequest, stdout: bytes, stderr: bytes, code: int) -> Completion:
        model = self._model(request)
        if len(stdout) > MAX_OUTPUT_BYTES:
            raise MalformedReply(f"{self.cli.title} wrote more than {MAX_OUTPUT_BYTES} bytes", provider=self.name,
                                 model=model)
        out = stdout.decode("utf-8", errors="replace")
        try:
            reply = self.cli.parse(out)
        except ValueError:
            detail = (stderr.decode("utf-8", errors="replace").strip() or out.strip())[-500:]
            error_class: type[ProviderError] = AuthError if _looks_like_auth(detail) else ProviderRejected
            raise error_class(f"{self.cli.title} exited with status {code} without an answer: {detail}",
                              provider=self.name, model=model) from None
        usage = Usage(tokens=reply.tokens)  # a subscription: no price amicus can know
        if reply.error is not None or not reply.text.strip():
            err_class: type[ProviderError] = AuthError if _looks_like_auth(reply.error or "") else ProviderRejected
            failure = err_class(f"{self.cli.title} answered with an error: {(reply.error or 'an empty reply')[:500]}",
                                provider=self.name, model=model)
            failure.usage = usage
            raise failure
        served = f"{self.name}/{reply.model}" if reply.model else model
        return Completion(text=reply.text, finish_reason="stop", resolved_model=served, usage=usage)


def make_agent_provider(provider: str, cfg: Mapping[str, Any], cwd: Path) -> AgentProvider:
    cli = agent_cli(provider[len(AGENT_PREFIX):])
    section = cfg.get("agents")
    settings = section.get(cli.name) if isinstance(section, dict) else None
    limit = settings.get("concurrency") if isinstance(settings, dict) else None
    concurrency = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else DEFAULT_CONCURRENCY
    return AgentProvider(cli, cwd=cwd, concurrency=concurrency)


# ------------------------------------------------------------------------- helpers

_AUTH = re.compile(r"log ?in|logged|auth|api key|credential|401|unauthori[sz]ed", re.I)


def _looks_like_auth(text: str) -> bool:
    return bool(_AUTH.search(text))


def _last_json(stdout: str) -> Any:
    """The JSON document a CLI printed (the last line that parses, or the whole output)."""
    text = stdout.strip()
    with contextlib.suppress(ValueError):
        return json.loads(text)
    for line in reversed(text.splitlines()):
        with contextlib.suppress(ValueError):
            return json.loads(line)
    start = text.find("{")
    if start >= 0:
        with contextlib.suppress(ValueError):
            return json.loads(text[start:])
    raise ValueError("no JSON")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
