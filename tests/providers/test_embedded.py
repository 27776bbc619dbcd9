"""The embedded GGUF provider: model ids, assembly cache, errors, and real generation.

Tests that run the model need the `local` extra (llama-cpp-python + the Gemma 3 270M
package) and skip cleanly without it. The model is assembled into a per-session cache dir
and loaded once per session; generations use short, grammar-bounded outputs.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest

from amicus_mcp.errors import BadArgs, BadModel
from amicus_mcp.providers import embedded, gguf_cache
from amicus_mcp.providers.base import CompletionRequest, Message
from amicus_mcp.providers.embedded import (
    EmbeddedProvider,
    LocalModelRef,
    LocalModelTimeout,
    LocalModelUnavailable,
    LocalReplyInvalid,
    LocalSettings,
    check_gguf_file,
    fold_system_message,
    make_embedded_provider,
    resolve_local_model,
)
from amicus_mcp.providers.errors import MalformedReply, ProviderRejected, ProviderTimeout

FINDINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "overall": {"type": "string", "maxLength": 80},
        "findings": {
            "type": "array",
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "severity": {"enum": ["blocker", "major", "minor", "nit"]},
                    "claim": {"type": "string", "maxLength": 60},
                    "location": {"type": "string", "maxLength": 40},
                    "rationale": {"type": "string", "maxLength": 60},
                },
                "required": ["id", "severity", "claim", "location", "rationale"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["overall", "findings"],
    "additionalProperties": False,
}

REVIEW_MESSAGES = (
    Message(role="system", content="You are a strict code reviewer. Answer only with JSON findings."),
    Message(role="user", content="Review this function:\n```python\ndef add(a, b):\n    return a - b\n```"),
)


def forced_text_schema(min_chars: int) -> dict[str, Any]:
    """A schema whose grammar forces at least `min_chars` characters of output."""
    text = {"type": "string", "minLength": min_chars, "maxLength": min_chars + 10}
    return {"type": "object", "properties": {"text": text}, "required": ["text"], "additionalProperties": False}


def request(**overrides: Any) -> CompletionRequest:
    fields: dict[str, Any] = {"model": "local", "messages": REVIEW_MESSAGES, "temperature": 0.0, "timeout_s": 120.0}
    fields.update(overrides)
    return CompletionRequest(**fields)


# ----------------------------------------------------------------------------- no extra needed


def test_importing_the_module_does_not_import_llama_cpp() -> None:
    code = "import sys, amicus_mcp.providers.embedded; print('llama_cpp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.anyio
async def test_missing_extra_gives_bad_model_with_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` raise ImportError
    provider = EmbeddedProvider(LocalSettings())
    with pytest.raises(LocalModelUnavailable) as info:
        await provider.complete(request(timeout_s=30.0))
    assert info.value.code == "BAD_MODEL"
    assert "llama-cpp-python" in info.value.message
    assert "pip install 'amicus-mcp[local]'" in (info.value.hint or "")


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("local", LocalModelRef(name="gemma3-270m-q4_k_m")),
        ("local/gemma3-270m-q4_k_m", LocalModelRef(name="gemma3-270m-q4_k_m")),
        ("local//models/tiny.gguf", LocalModelRef(name="tiny", path=Path("/models/tiny.gguf"))),
        ("local/sub/dir/m.gguf", LocalModelRef(name="m", path=Path("sub/dir/m.gguf"))),
        ("other.gguf", LocalModelRef(name="other", path=Path("other.gguf"))),
    ],
)
def test_model_ids_resolve(model_id: str, expected: LocalModelRef) -> None:
    assert resolve_local_model(model_id, LocalSettings()) == expected


def test_bare_local_uses_config_model_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(tmp_path))
    settings = LocalSettings.from_config({"local": {"modelPath": "models/mine.gguf", "nCtx": 4096}})
    ref = resolve_local_model("local", settings)
    assert ref == LocalModelRef(name="mine", path=tmp_path / "models" / "mine.gguf")
    assert ref.resolved_model == "local/mine"
    assert settings.n_ctx == 4096


def test_named_model_is_found_in_the_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_CACHE_DIR", str(tmp_path))
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "qwen-tiny.gguf").write_bytes(b"GGUF")
    assert resolve_local_model("local/qwen-tiny", LocalSettings()).path == tmp_path / "models" / "qwen-tiny.gguf"
    with pytest.raises(BadModel, match="unknown local model 'local/nope'"):
        resolve_local_model("local/nope", LocalSettings())


@pytest.mark.parametrize("section", [{"nCtx": 0}, {"nThreads": "2"}, {"maxTokens": True}, {"modelPath": 3}, []])
def test_bad_local_config_is_bad_args(section: Any) -> None:
    with pytest.raises(BadArgs):
        LocalSettings.from_config({"local": section})


def test_make_embedded_provider_reads_the_given_config() -> None:
    provider = make_embedded_provider({"local": {"maxTokens": 77}})
    assert provider.name == "embedded"  # the provider name routing gives `local` routes
    assert provider.settings.max_tokens == 77


def test_system_message_folds_into_the_first_user_turn() -> None:
    folded = fold_system_message(
        (Message("system", "Be brief."), Message("user", "Hi"), Message("assistant", "Hello"), Message("user", "Bye"))
    )
    assert folded == (Message("user", "Be brief.\n\nHi"), Message("assistant", "Hello"), Message("user", "Bye"))
    assert fold_system_message((Message("system", "Only me"),)) == (Message("user", "Only me"),)


class FakeLlama:
    """Just what the prompt formatter reads from a Llama."""

    def __init__(self, metadata: dict[str, str]):
        self.metadata = metadata

    def token_eos(self) -> int:
        return 1

    def token_bos(self) -> int:
        return 2

    def detokenize(self, tokens: list[int], special: bool = False) -> bytes:
        return {1: b"<eos>", 2: b"<bos>"}[tokens[0]]


NO_SYSTEM_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}"
    "{% if m['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "<|{{ m['role'] }}|>{{ m['content'] }}{{ eos_token }}{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def test_gguf_template_without_system_role_gets_the_system_text_folded_in() -> None:
    pytest.importorskip("llama_cpp")
    formatter = embedded._PromptFormatter(FakeLlama({"tokenizer.chat_template": NO_SYSTEM_TEMPLATE}))
    prompt = formatter.render((Message("system", "Be brief."), Message("user", "Hi")))
    assert prompt.text == "<bos><|user|>Be brief.\n\nHi<eos><|assistant|>"
    assert prompt.stop == ("<eos>",)
    assert prompt.add_bos is False  # the template already wrote <bos>


def test_a_template_that_rejects_every_conversation_is_bad_model() -> None:
    pytest.importorskip("llama_cpp")
    formatter = embedded._PromptFormatter(FakeLlama({"tokenizer.chat_template": "{{ raise_exception('no') }}"}))
    with pytest.raises(BadModel, match="chat template rejected the conversation: no"):
        formatter.render((Message("user", "Hi"),))


def test_gemma_without_template_uses_gemma_turns_and_others_a_transcript() -> None:
    messages = (Message("system", "Be brief."), Message("user", "Hi"))
    gemma = embedded._PromptFormatter(FakeLlama({"general.architecture": "gemma3"})).render(messages)
    assert gemma.text == "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\n"
    assert (gemma.stop, gemma.add_bos) == (("<end_of_turn>",), True)
    other = embedded._PromptFormatter(FakeLlama({"general.architecture": "llama"})).render(messages)
    assert other.text == "System: Be brief.\n\nUser: Hi\n\nAssistant:"


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "does not exist"), (b"PK\x03\x04 a zip, not a model", "is not a GGUF model file")],
)
def test_bad_gguf_paths_are_rejected_before_loading(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(BadModel, match=message):
        check_gguf_file(path)
    with pytest.raises(BadModel, match="is not a file"):
        check_gguf_file(tmp_path)


@pytest.mark.parametrize(
    ("text", "finish", "message"),
    [
        ('{"overall": "ok", "findings": [', "length", r"cut off by max_tokens\): not JSON"),
        ('{"overall": "ok", "findings": [{"id": 1}]}', "stop", "at findings/0: 'severity' is a required property"),
    ],
)
def test_a_reply_that_breaks_the_schema_raises_with_the_raw_text(text: str, finish: str, message: str) -> None:
    raw = embedded._Raw(text=text, finish_reason=finish, prompt_tokens=10, completion_tokens=5)
    with pytest.raises(LocalReplyInvalid, match=message) as info:
        embedded._validate_json(raw, FINDINGS_SCHEMA, "local/x")
    assert isinstance(info.value, MalformedReply)  # the engine's repair path handles every provider alike
    assert info.value.text == text
    assert info.value.usage is not None and info.value.usage.tokens.output == 5


# ----------------------------------------------------------------------------- assembly cache


def fake_model(tmp_path: Path, parts: list[bytes], *, sha: str | None = None) -> gguf_cache.ShippedModel:
    chunks = []
    for i, data in enumerate(parts):
        chunk = tmp_path / f"chunk{i}"
        chunk.write_bytes(data)
        chunks.append(chunk)
    digest = sha or hashlib.sha256(b"".join(parts)).hexdigest()
    return gguf_cache.ShippedModel(file_name="fake.gguf", sha256=digest, chunks=tuple(chunks))


def test_assembly_concatenates_verifies_and_leaves_no_temp_files(tmp_path: Path) -> None:
    model = fake_model(tmp_path, [b"GGUF-one-", b"two-", b"three"])
    out = gguf_cache.ensure_assembled(model, tmp_path / "cache")
    assert out.read_bytes() == b"GGUF-one-two-three"
    assert sorted(p.name for p in out.parent.iterdir() if not p.name.endswith(".lock")) == ["fake.gguf"]


def test_assembly_with_a_bad_checksum_fails_and_writes_nothing(tmp_path: Path) -> None:
    model = fake_model(tmp_path, [b"GGUF", b"data"], sha="0" * 64)
    with pytest.raises(BadModel, match="sha256"):
        gguf_cache.ensure_assembled(model, tmp_path / "cache")
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")] == []


def test_a_truncated_cached_file_is_replaced(tmp_path: Path) -> None:
    model = fake_model(tmp_path, [b"GGUF", b"-complete"])
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "fake.gguf").write_bytes(b"GGUF-")  # e.g. left by the package's own assemble()
    assert gguf_cache.ensure_assembled(model, tmp_path / "cache").read_bytes() == b"GGUF-complete"


def test_bundled_model_is_assembled_once_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip(gguf_cache.MODEL_PACKAGE)
    monkeypatch.setenv("AMICUS_CACHE_DIR", str(tmp_path))
    calls: list[Path] = []
    real_assemble = gguf_cache._assemble

    def counting_assemble(model: gguf_cache.ShippedModel, target: Path) -> None:
        calls.append(target)
        real_assemble(model, target)

    monkeypatch.setattr(gguf_cache, "_assemble", counting_assemble)
    first = gguf_cache.default_model_path()
    before = first.stat()
    second = gguf_cache.default_model_path()
    assert second == first == tmp_path / "models" / "gemma-3-270m-q4_k_m.gguf"
    assert calls == [first]  # the second call found the file and did not re-assemble
    after = second.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert first.read_bytes()[:4] == b"GGUF"


# ----------------------------------------------------------------------------- real model


@pytest.fixture(scope="session")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedProvider]:
    """The bundled model, assembled into a session cache dir and loaded once."""
    pytest.importorskip("llama_cpp")
    pytest.importorskip(gguf_cache.MODEL_PACKAGE)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AMICUS_CACHE_DIR", str(tmp_path_factory.mktemp("amicus-cache")))
        prov = EmbeddedProvider(LocalSettings())
        assert anyio.run(prov.preload) == "local/gemma3-270m-q4_k_m"
        yield prov


def loaded_model(provider: EmbeddedProvider) -> embedded._LoadedModel:
    (model,) = [m for key, m in embedded._models.items() if key[0].endswith("gemma-3-270m-q4_k_m.gguf")]
    return model


@pytest.mark.anyio
async def test_real_completion_returns_schema_valid_findings(provider: EmbeddedProvider) -> None:
    completion = await provider.complete(request(json_schema=FINDINGS_SCHEMA, max_tokens=400))
    doc = json.loads(completion.text)
    jsonschema.validate(doc, FINDINGS_SCHEMA)
    assert completion.structured == doc
    assert completion.resolved_model == "local/gemma3-270m-q4_k_m"
    assert completion.finish_reason == "stop"
    usage = completion.usage.to_doc()
    assert usage["cost"] == {"amount": 0.0, "currency": "USD", "source": "reported"}
    assert usage["tokens"]["input"] > 20 and usage["tokens"]["output"] > 5


@pytest.mark.anyio
async def test_event_loop_keeps_running_during_generation(provider: EmbeddedProvider) -> None:
    ticks = 0
    done = anyio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await anyio.sleep(0.005)

    async def generate() -> None:
        try:
            completion = await provider.complete(request(json_schema=forced_text_schema(20), max_tokens=200))
            assert len(json.loads(completion.text)["text"]) >= 20
        finally:
            done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(ticker)
        tg.start_soon(generate)
    # A blocked loop would let the ticker run once before and once after the generation.
    assert ticks > 10


@pytest.mark.anyio
async def test_timeout_stops_generation_and_the_model_stays_usable(
    provider: EmbeddedProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    verdicts: list[bool] = []  # what the stopping criterion answered, token after token
    real_should_stop = embedded._Job.should_stop

    def recording_should_stop(job: embedded._Job, input_ids: Any, logits: Any) -> bool:
        verdicts.append(real_should_stop(job, input_ids, logits))
        return verdicts[-1]

    monkeypatch.setattr(embedded._Job, "should_stop", recording_should_stop)
    # The grammar demands 2000+ characters: hundreds of tokens, far more than 1.5 s allows.
    long_reply = request(json_schema=forced_text_schema(2000), max_tokens=4000, timeout_s=1.5)
    with anyio.fail_after(60):  # the bound under test is 1.5 s; this only keeps a hang finite
        with pytest.raises(LocalModelTimeout, match="did not answer within 1.5 s") as info:
            await provider.complete(long_reply)
    assert isinstance(info.value, ProviderTimeout) and isinstance(info.value, TimeoutError)

    model = loaded_model(provider)
    assert await anyio.to_thread.run_sync(model.lock.acquire, True, 60.0)  # the abandoned thread let go
    model.lock.release()
    # Generation was cut by the criterion: its first "stop" ended the loop (llama-cpp-python
    # asks once more after the loop), instead of running on towards max_tokens.
    assert True in verdicts
    assert verdicts.count(True) <= 2
    monkeypatch.undo()

    again = await provider.complete(request(max_tokens=8))
    assert again.usage.tokens.output is not None and 0 < again.usage.tokens.output <= 8


@pytest.mark.anyio
async def test_a_corrupt_gguf_gives_a_clear_load_error(provider: EmbeddedProvider, tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x00" * 64)  # right magic, nonsense header
    with pytest.raises(BadModel, match="llama.cpp could not load") as info:
        await provider.complete(request(model=f"local/{broken}", timeout_s=60.0))
    assert info.value.code == "BAD_MODEL"


@pytest.mark.anyio
async def test_a_missing_gguf_path_gives_a_clear_error(provider: EmbeddedProvider, tmp_path: Path) -> None:
    with pytest.raises(BadModel, match="does not exist"):
        await provider.complete(request(model=f"local/{tmp_path / 'absent.gguf'}", timeout_s=60.0))


@pytest.mark.anyio
async def test_a_prompt_longer_than_the_context_is_rejected(provider: EmbeddedProvider) -> None:
    small = EmbeddedProvider(LocalSettings(n_ctx=256))
    huge = (Message(role="user", content="word " * 2000),)
    with pytest.raises(ProviderRejected, match="context of 256"):
        await small.complete(request(messages=huge, timeout_s=60.0))
