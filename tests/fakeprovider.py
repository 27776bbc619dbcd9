"""A fake OpenAI-compatible provider: a real HTTP server on 127.0.0.1.

The engine and the providers talk to it through their ordinary code and a base URL, so
what is tested is the real request/response path: sockets, headers, timeouts, retries.

Replies are scripted per model. `fake.script("m", rate_limited(1), chat("hi"))` makes
the first request for model "m" get a 429 and every later one the chat reply (the last
scripted reply repeats). Unscripted models get `default` (a 404 "model not found" unless
set). Every request is recorded (method, path, lower-cased headers, JSON body) so tests
can assert on what was actually sent.

    with FakeProvider() as fake:
        fake.script("vendor/model", chat("hello", usage=usage(10, 5, cost=0.001)))
        provider = OpenAICompatibleProvider("fake", fake.base_url, "sk-test")

A model can also answer by what it is asked: `fake.respond("m", fn)` calls `fn(body)` for
each request to "m" and sends the Reply it returns (None falls back to the script).
`by_prompt(classify, {...})` builds such a function from a prompt classifier and one reply
queue per kind, so one model can answer, say, review prompts and judge prompts differently.
`configure_fake(config_dir, fake, **settings)` writes the config.json that routes `fake/<model>` to it.
`copycat(example)` is a weak model that answers with the example block its prompt shows.
What a prompt asks for — a review, a judgement, a chair packet, a question council's answer,
its answers' bundle, its ANSWER-line chair, a repair — is read off the prompt's fixed wording
by `council_prompts.kind`; `question_members.py` (and `engine/council_helpers.py`) build council
members from it that answer every one of those, well or as a weak model would.

`KnownRecall` makes fake models of known recall for the eval's tests: which planted flaws each
finds on each case and which false claims it adds, how the judges vote on each, the chair's
verdicts, and an oracle matcher — so the eval's figures can be checked against that truth.

A hung reply waits on the server's stop event, so stopping the server releases it at
once; handler threads are daemons and the server never blocks on them when it closes.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from amicus_mcp.providers.base import CompletionRequest, Message
from amicus_mcp.providers.retry import RetryPolicy

CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = None  # dict/list → JSON; str/bytes → sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # latency before the reply is sent
    hang_s: float | None = None  # accept the request, then send nothing for this long
    echo_auth: bool = False  # put the received Authorization header into the error text
    truncate_at: int | None = None  # promise the whole body (Content-Length), send this many bytes, hang up


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


# Fast backoff so retry tests take milliseconds; Retry-After values still apply as sent.
FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05, min_attempt_s=0.2)


def ask(model: str, *, timeout_s: float = 10.0, **kwargs: Any) -> CompletionRequest:
    """A one-message request for `model` (kwargs: json_schema, max_tokens, temperature)."""
    return CompletionRequest(model=model, messages=(Message("user", "Review this."),), timeout_s=timeout_s, **kwargs)


# ------------------------------------------------------------------ reply builders


def usage(
    prompt: int | None = 10,
    completion: int | None = 5,
    *,
    cost: float | None = None,
    reasoning: int | None = None,
    cached: int | None = None,
    cache_write: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    if prompt is not None:
        doc["prompt_tokens"] = prompt
    if completion is not None:
        doc["completion_tokens"] = completion
    if prompt is not None and completion is not None:
        doc["total_tokens"] = prompt + completion
    if cost is not None:
        doc["cost"] = cost
    if reasoning is not None:
        doc["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    if cached is not None or cache_write is not None:
        doc["prompt_tokens_details"] = {
            k: v for k, v in (("cached_tokens", cached), ("cache_write_tokens", cache_write)) if v is not None
        }
    doc.update(extra)
    return doc


def chat(
    text: str | None,
    *,
    model: str | None = "fake/served-model",
    usage: dict[str, Any] | None = None,
    finish: str = "stop",
    reasoning: str | None = None,
    delay_s: float = 0.0,
) -> Reply:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning is not None:
        message["reasoning"] = reasoning
    body: dict[str, Any] = {
        "id": "gen-fake-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if model is not None:
        body["model"] = model
    if usage is not None:
        body["usage"] = usage
    return Reply(body=body, delay_s=delay_s)


def structured(value: Any, **kwargs: Any) -> Reply:
    return chat(json.dumps(value), **kwargs)


def error(
    status: int,
    message: str,
    *,
    code: Any = None,
    metadata: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    err: dict[str, Any] = {"code": status if code is None else code, "message": message}
    if metadata is not None:
        err["metadata"] = metadata
    return Reply(status=status, body={"error": err}, headers=headers or {})


def rate_limited(retry_after: str | float | None = 1) -> Reply:
    headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
    return error(429, "Rate limit exceeded", headers=headers)


def malformed(status: int = 200) -> Reply:
    return Reply(status=status, body="<html><body>Bad gateway</body></html>", headers={"Content-Type": "text/html"})


def hang(seconds: float) -> Reply:
    return Reply(hang_s=seconds)


def error_in_body(code: int, message: str, *, usage: dict[str, Any] | None = None) -> Reply:
    """OpenRouter's way of failing after generation started: status 200, an error body."""
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    if usage is not None:
        body["usage"] = usage
    return Reply(body=body)


def failed_mid_generation(message: str = "upstream stream broke") -> Reply:
    return Reply(
        body={
            "id": "gen-fake-err",
            "model": "fake/served-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "partial"},
                    "finish_reason": "error",
                    "error": {"message": message},
                }
            ],
        }
    )


def model_not_found(model: str) -> Reply:
    return error(404, f"model '{model}' not found")


def context_too_long(limit: int = 8192, requested: int = 12000, *, status: int = 400) -> Reply:
    """A provider saying the prompt does not fit, in OpenRouter's words (its `code` is the HTTP
    status, so only the message tells it apart from any other 400)."""
    return error(status, f"This endpoint's maximum context length is {limit} tokens. However, you requested "
                         f"about {requested} tokens ({requested - 1000} of text input, 1000 in the output). "
                         "Please reduce the length of either one.")


def catalog_row(model_id: str, *, context: int | None = 100_000, prompt: str = "0.000001",
                completion: str = "0.00001") -> dict[str, Any]:
    """One row of the fake's OpenRouter model listing (`/models`): its window and its prices."""
    return {"id": model_id, "name": model_id, "context_length": context,
            "pricing": {"prompt": prompt, "completion": completion}}


# ------------------------------------------------------------- content-based replies

Responder = Callable[[Any], "Reply | None"]
ReplySource = Reply | Sequence[Reply] | Callable[[Any], Reply]


def prompt_of(body: Any) -> str:
    """The text of the first user message of a chat request body ("" when there is none): the
    prompt, also in a tool-calling conversation's later turns (their last message is a tool's)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return ""
    first = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), None)
    content = first.get("content") if first is not None else None
    return content if isinstance(content, str) else ""


# ------------------------------------------------------------------------- tool calling
#
# OpenRouter's tool-calling format: a request offers `tools` (function specs); a reply that calls
# them has `finish_reason: "tool_calls"` and `message.tool_calls` ([{id, type: "function",
# function: {name, arguments: "<JSON text>"}}]) with null content; the next request carries the
# assistant turn and one `{"role": "tool", "tool_call_id", "content"}` message per call.


def tool_call(name: str, arguments: dict[str, Any] | str, *, call_id: str | None = None) -> dict[str, Any]:
    """One `tool_calls` entry; `arguments` as a dict (sent as JSON text) or as raw text (malformed JSON)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id or f"call_{name}_{abs(hash(text)) % 10**8}", "type": "function",
            "function": {"name": name, "arguments": text}}


def calling(*calls: dict[str, Any], text: str | None = None, model: str | None = "fake/served-model",
            usage: dict[str, Any] | None = None) -> Reply:
    """A reply that calls tools, as OpenRouter sends it."""
    body: dict[str, Any] = {"id": "gen-fake-tools", "object": "chat.completion", "choices": [{
        "index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": text, "tool_calls": list(calls)}}]}
    if model is not None:
        body["model"] = model
    if usage is not None:
        body["usage"] = usage
    return Reply(body=body)


def offered_tools(body: Any) -> list[str]:
    """The names of the function tools a request offers ([] when none)."""
    tools = body.get("tools") if isinstance(body, dict) else None
    return [t["function"]["name"] for t in tools or [] if isinstance(t, dict) and isinstance(t.get("function"), dict)]


def tool_results(body: Any) -> list[str]:
    """The tool messages' contents a request carries, in order."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return [m.get("content") or "" for m in messages or [] if isinstance(m, dict) and m.get("role") == "tool"]


def turn_of(body: Any) -> int:
    """How many assistant turns the conversation already has (0: the first request)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return sum(1 for m in messages or [] if isinstance(m, dict) and m.get("role") == "assistant")


def tool_user(plan: Callable[[Any, int], Sequence[dict[str, Any]] | None], answer: Callable[[Any], Reply], *,
              usage: dict[str, Any] | None = None) -> Callable[[Any], Reply]:
    """A model that calls tools: `plan(body, turn)` gives the calls it makes on that turn (None or
    [] — it answers, with `answer(body)`). A naive plan may call whatever it likes, past the
    budget, or go on calling when no tools are offered any more. `usage`: each calling turn's."""

    def respond(body: Any) -> Reply:
        calls = plan(body, turn_of(body))
        return calling(*calls, usage=usage) if calls else answer(body)

    return respond


def by_prompt(classify: Callable[[str], str], replies: Mapping[str, ReplySource]) -> Responder:
    """A responder that answers by the kind of prompt it receives.

    `classify(prompt text)` names the kind; `replies[kind]` is a Reply, a sequence of
    Replies (a queue whose last reply repeats, like `script`), or a function of the request
    body returning a Reply. A kind with no entry returns None: the model's script answers.
    """
    lock = threading.Lock()
    queues: dict[str, deque[Reply]] = {
        kind: deque(source) for kind, source in replies.items() if not isinstance(source, Reply) and not callable(source)
    }

    def respond(body: Any) -> Reply | None:
        kind = classify(prompt_of(body))
        source = replies.get(kind)
        if source is None:
            return None
        if isinstance(source, Reply):
            return source
        if callable(source):
            return source(body)
        with lock:
            queue = queues[kind]
            if not queue:
                return None
            return queue.popleft() if len(queue) > 1 else queue[0]

    return respond


def copycat(example: Callable[[str], str | None], **chat_kwargs: Any) -> Callable[[Any], Reply]:
    """A weak model that copies the example block its prompt shows, verbatim.

    `example(prompt)` finds the block (see `council_prompts.example_block`); a prompt with no
    example gets a reply with no block at all, as a copying model would give."""

    def answer(body: Any) -> Reply:
        block = example(prompt_of(body))
        return chat(f"I follow the example given.\n\n{block}\n" if block else "I follow the example given.\n", **chat_kwargs)

    return answer


# ----------------------------------------------------------------------- server


class _Server(ThreadingHTTPServer):
    # The stdlib default listen backlog is 5: a burst of more simultaneous connections (a
    # 16-seat council, a 32-leg wave) overflows it and the dropped SYNs are retried by the
    # kernel a second later — latency that is the fake's, not the engine's.
    request_queue_size = 256


class FakeProvider:
    def __init__(self, *, default: Reply | None = None) -> None:
        self.default = default
        self.requests: list[Recorded] = []
        self.catalog: list[dict[str, Any]] = []
        self.catalog_reply: Reply | None = None  # overrides the catalog listing when set
        self._scripts: dict[str, deque[Reply]] = {}
        self._responders: dict[str, Responder] = {}
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "the fake provider is not running"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, model: str, *replies: Reply) -> None:
        with self._lock:
            self._scripts[model] = deque(replies)

    def respond(self, model: str, responder: Responder) -> None:
        """Answer requests for `model` with `responder(body)`; a None from it falls back to the script."""
        with self._lock:
            self._responders[model] = responder

    def reply_for(self, model: str, body: Any) -> Reply:
        with self._lock:
            responder = self._responders.get(model)
        if responder is not None:
            reply = responder(body)
            if reply is not None:
                return reply
        return self.next_reply(model)

    def prompts(self, model: str | None = None) -> list[str]:
        """The last message's text of every chat request (for `model`), in arrival order."""
        return [prompt_of(r.body) for r in self.chat_requests(model)]

    def chat_requests(self, model: str | None = None) -> list[Recorded]:
        with self._lock:
            rows = [r for r in self.requests if r.path == CHAT_PATH]
        return [r for r in rows if model is None or (isinstance(r.body, dict) and r.body.get("model") == model)]

    def next_reply(self, model: str) -> Reply:
        with self._lock:
            queue = self._scripts.get(model)
            if not queue:
                return self.default or model_not_found(model)
            return queue.popleft() if len(queue) > 1 else queue[0]

    def record(self, row: Recorded) -> None:
        with self._lock:
            self.requests.append(row)

    def start(self) -> FakeProvider:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.block_on_close = False  # hung handlers are released by `stopping`, never joined
        server.fake = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def configure_fake(config_dir: Path, fake: FakeProvider, *, extra: Mapping[str, Any] | None = None,
                   **settings: Any) -> None:
    """config.json that makes `fake` the server "fake" (models `fake/<name>`): its base URL with
    `settings` beside it (`cost="reported"`, `apiKeyEnv=…`, `structuredOutputs=True`), and any other
    top-level keys in `extra` (`councils`, …). The one way every test folder configures the fake."""
    doc = {"providers": {"fake": {"baseUrl": fake.base_url, **settings}}, **(extra or {})}
    (config_dir / "config.json").write_text(json.dumps(doc), encoding="utf-8")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # One buffered write per reply and no Nagle: otherwise headers and body go out as two
    # segments and loopback calls stall ~40 ms on delayed ACKs.
    wbufsize = -1
    disable_nagle_algorithm = True
    server: ThreadingHTTPServer

    @property
    def fake(self) -> FakeProvider:
        return self.server.fake  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return  # keep test output clean

    def do_GET(self) -> None:
        self._record(None)
        if self.path != MODELS_PATH:
            self._send(Reply(status=404, body={"error": {"code": 404, "message": "no such path"}}))
            return
        self._send(self.fake.catalog_reply or Reply(body={"data": self.fake.catalog}))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", errors="replace")
        self._record(body)
        if self.path != CHAT_PATH:
            self._send(Reply(status=404, body={"error": {"code": 404, "message": "no such path"}}))
            return
        model = body.get("model") if isinstance(body, dict) else None
        self._send(self.fake.reply_for(model if isinstance(model, str) else "", body))

    def _record(self, body: Any) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.fake.record(Recorded(self.command, self.path, headers, body))

    def _send(self, reply: Reply) -> None:
        if reply.hang_s is not None:
            self.fake.stopping.wait(reply.hang_s)
            self.close_connection = True
            return
        if reply.delay_s:
            self.fake.stopping.wait(reply.delay_s)
        payload = self._payload(reply)
        try:
            self.send_response(reply.status)
            headers = {"Content-Type": "application/json", **reply.headers}
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload if reply.truncate_at is None else payload[: reply.truncate_at])
            self.wfile.flush()
            if reply.truncate_at is not None:
                self.close_connection = True  # the body stops short of its Content-Length
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (its timeout); nothing to tell it

    def _payload(self, reply: Reply) -> bytes:
        body = reply.body
        if reply.echo_auth and isinstance(body, dict) and isinstance(body.get("error"), dict):
            # Like a careless server that quotes the credential it rejected.
            body = {
                "error": {
                    **body["error"],
                    "message": f"{body['error'].get('message')}: got {self.headers.get('Authorization')}",
                }
            }
        if isinstance(body, bytes):
            return body
        if isinstance(body, str):
            return body.encode("utf-8")
        return json.dumps(body).encode("utf-8")


# ------------------------------------------------------------- a bench of known recall
#
# For the eval's own tests: fake models whose findings on every case are configured — which
# planted flaw each finding is about, or that it is a false claim — with judges that vote on
# each finding as configured, a chair that gives each case a configured verdict, and a matcher
# that knows which flaw each claim was written about. The eval's figures can then be checked
# against the configured truth exactly.


@dataclass(frozen=True)
class Claim:
    """One finding a fake reviewer raises about a case."""

    text: str  # the claim; unique across the bench (the oracle matcher's key)
    location: str
    severity: str = "major"
    flaw: str | None = None  # the planted flaw it is about; None: a false claim
    votes: str = "agree"  # every other judge's vote: agree | dispute | neutral | split (first peer agrees, the rest dispute)
    evidence: str | None = None  # the quote it gives (a real line, or one it fabricates); None: no quote


class KnownRecall:
    """Fake council members (and a matcher) that behave like models of known recall.

    `reviews[case id][model] = [Claim …]` is what each model raises on each case (a model or a
    case left out raises nothing); `verdicts[case id]` is the chair's verdict (None: it gives no
    VERDICT line). `titles[case id]` is how a prompt is recognised as that case's: every prompt
    of a case's council, and its matcher prompt, carries the case's title."""

    def __init__(self, reviews: Mapping[str, Mapping[str, Sequence[Claim]]], *, bench: Sequence[str],
                 titles: Mapping[str, str], verdicts: Mapping[str, str | None] | None = None,
                 usage: Mapping[str, Any] | None = None) -> None:
        from council_prompts import judge_index, kind, matcher_questions

        self.reviews, self.bench, self.titles = reviews, list(bench), dict(titles)
        self.verdicts = dict(verdicts or {})
        self.usage = dict(usage or {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150})
        self._kind, self._index, self._questions = kind, judge_index, matcher_questions
        self.by_text: dict[str, tuple[str, Claim]] = {}
        for per_model in reviews.values():
            for model, claims in per_model.items():
                for claim in claims:
                    assert claim.text not in self.by_text, f"claim text {claim.text!r} is not unique"
                    self.by_text[claim.text] = (model, claim)

    def case_of(self, prompt: str) -> str:
        found = [cid for cid, title in self.titles.items() if title in prompt]
        assert len(found) == 1, f"prompt matches cases {found}"
        return found[0]

    def install(self, fake: FakeProvider, *, chair: str, matcher: str) -> None:
        """`fake/<name>` models: every bench member, the chair and the matcher."""
        for model in self.bench:
            fake.respond(model.removeprefix("fake/"), lambda body, m=model: self.answer(m, body))
        fake.respond(chair.removeprefix("fake/"), self.chair)
        fake.respond(matcher.split("/", 1)[1], self.matcher)

    def _reply(self, text: str, served: str) -> Reply:
        return chat(text, model=served, usage=dict(self.usage))

    def answer(self, model: str, body: Any) -> Reply:
        prompt = prompt_of(body)
        served = f"vendor/{model.removeprefix('fake/')}-1"
        what = self._kind(prompt)
        if what == "stage1":
            claims = self.reviews.get(self.case_of(prompt), {}).get(model, [])
            block = {"overall": f"{model} reviewed it.", "findings": [
                {"id": i, "severity": c.severity, "claim": c.text, "location": c.location,
                 "rationale": f"because of what {c.location} says",
                 **({"evidence": c.evidence} if c.evidence is not None else {})} for i, c in enumerate(claims, 1)]}
            return self._reply(f"My review.\n\n```json\n{json.dumps(block)}\n```\n", served)
        if what == "judge":
            labels = re.findall(r"^### (Review [A-Z])$", prompt, re.M)
            votes = [{"id": fid, "verdict": self.vote(model, claim)} for fid, claim in self._index(prompt).items()]
            block = {"ranking": labels, "adjudications": votes}
            return self._reply(f"I checked each.\n\n```json\n{json.dumps(block)}\n```\n", served)
        raise AssertionError(f"{model} was asked a {what} prompt")

    def vote(self, judge: str, claim_text: str) -> str:
        raiser, claim = self.by_text[claim_text]
        if claim.votes != "split":
            return claim.votes
        peers = [m for m in self.bench if m != raiser]
        return "agree" if judge == peers[0] else "dispute"

    def chair(self, body: Any) -> Reply:
        """The case's configured verdict (None: no VERDICT line, in the synthesis or in a repair)."""
        prompt = prompt_of(body)
        what = self._kind(prompt)
        if what == "verifier":  # --verify: the chair's model refutes exactly the findings whose quote is not there
            refuted = "mechanical lookup of that quote in the material): evidence not found" in prompt
            block = {"answer": "refuted" if refuted else "holds", "lines": [],
                     "reason": "the quoted line is not in the source" if refuted else "the source shows it"}
            return self._reply(f"Checked.\n\n```json\n{json.dumps(block)}\n```\n", "vendor/chair-1")
        assert what in ("chair", "chair-repair"), what
        case = self.case_of(prompt)  # a repair quotes the synthesis, which names the case
        verdict = self.verdicts.get(case, "Fix these first")
        if what == "chair-repair":
            return self._reply(f"VERDICT: {verdict}\n" if verdict else "I cannot say.\n", "vendor/chair-1")
        line = f"\n\nVERDICT: {verdict}" if verdict else ""
        text = f"Synthesis of {self.titles[case]}.\n\n## Hard questions\n\n1. Why?\n2. How?\n3. When?{line}\n"
        return self._reply(text, "vendor/chair-1")

    def matcher(self, body: Any) -> Reply:
        prompt = prompt_of(body)
        assert self._kind(prompt) == "matcher", self._kind(prompt)
        self.case_of(prompt)  # a matcher prompt names its case
        matches = []
        for fid, claim_text, candidates in self._questions(prompt):
            flaw = self.by_text[claim_text][1].flaw
            matches.append({"finding": fid, "flaw": flaw if flaw in candidates else None, "reason": "oracle"})
        value = {"matches": matches}
        structured = isinstance(body, dict) and "response_format" in body
        text = json.dumps(value) if structured else f"Matched.\n\n```json\n{json.dumps(value)}\n```\n"
        return self._reply(text, "vendor/matcher-1")
