"""Typed failures of a provider call.

A provider call fails in a small number of ways that the engine treats differently
(retry, wait, give up, record as a timeout). Each way has its own class, and every
instance carries the real cause (`__cause__`), the provider name, the model, and — when
the failure came from an HTTP reply — the status code and `Retry-After`.

    ProviderError             any failure of one provider call
    ├── AuthError             401, or 403 for a bad/unauthorised key
    ├── OutOfCredits          402: no credits left, or the key's spend limit was hit
    ├── ModelNotFound         404, or a 400 saying the model id is unknown
    ├── RateLimited           429 (retry_after from the Retry-After header)
    ├── ProviderDown          5xx, or the server could not be reached at all
    ├── ProviderTimeout       408, a connect/read timeout, or the leg's deadline passed
    │                         (also a builtin `TimeoutError`)
    ├── MalformedReply        non-JSON body, no choices, or structured output that is
    │                         not JSON / does not match the requested schema
    └── ProviderRejected      400, 413, 422, a moderation/guardrail 403, a refusal, and
        │                     any other 4xx the provider used to say "not this request"
        └── ContextTooLong    the prompt (plus the output cap) is longer than the model's
                              context window: "context length exceeded", whatever the status
                              (also raised without a request when the run can see it will not fit)

How these relate to `amicus_mcp.errors.AmicusError`: they do not inherit from it, on
purpose. A `ProviderError` is the outcome of one leg — the engine records it on that
leg's document (`code`, `leg_status`, message) and carries on with the rest of the wave;
it is never a reason to abort a run by itself. Problems found *before* any call is made
are configuration errors and are raised as `AmicusError`s by the routing, catalog and
cost modules: a key that is not set → `MissingKey`, an unknown alias or an id missing
from the catalog → `BadModel`, a model over the price threshold → `BudgetExceeded`.

A failure that happens after the model has generated (a schema-invalid structured reply,
a refusal, an error object inside a 200 body) still cost tokens: such an error carries
`usage` (priced like a success) so the leg's usage record stays honest, and a
`MalformedReply` keeps the raw `text` for a repair prompt.

No message built here contains an API key: providers pass every server-supplied text
through `keys.redact` before they cut it to a snippet, and every `ProviderError` masks its
message again when it is made (configured keys and credential-shaped tokens,
`secrets.redact_text`) — the last gate before a leg document, a log line or stdout.
"""

from __future__ import annotations

from ..vocabulary import LegFailure
from .base import Usage


class ProviderError(Exception):
    """One provider call failed. `retryable` says whether trying again can help."""

    code = "PROVIDER_ERROR"
    retryable = False
    leg_status: LegFailure = "error"
    usage: Usage | None = None  # what the failed call consumed, when the server said
    # The server answered the request itself with a 4xx/5xx status: nothing was generated,
    # so a failure with no usage cost a known $0 (a 200 body carrying an error may not have).
    refused_by_status: bool = False

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool | None = None,
    ) -> None:
        from ..secrets import redact_text

        message = redact_text(message)
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.model = model
        self.status = status
        self.retry_after = retry_after
        if retryable is not None:
            self.retryable = retryable

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(message={self.message!r}, provider={self.provider!r}, "
            f"model={self.model!r}, status={self.status!r}, retry_after={self.retry_after!r})"
        )

    def to_doc(self) -> dict[str, object]:
        """The shape a leg document records for a failed call."""
        return {
            "code": self.code,
            "message": self.message,
            "provider": self.provider,
            "model": self.model,
            "status": self.status,
            "retryAfter": self.retry_after,
            "usage": self.usage.to_doc() if self.usage is not None else None,
        }


class AuthError(ProviderError):
    code = "PROVIDER_AUTH"


class OutOfCredits(ProviderError):
    # Never retried: waiting does not add credits, and the brief for 402 is "stop".
    code = "OUT_OF_CREDITS"


class ModelNotFound(ProviderError):
    code = "MODEL_NOT_FOUND"


class RateLimited(ProviderError):
    code = "RATE_LIMITED"
    retryable = True


class ProviderDown(ProviderError):
    code = "PROVIDER_DOWN"
    retryable = True


class ProviderTimeout(ProviderError, TimeoutError):
    # Also a builtin TimeoutError, like anyio.fail_after's and the embedded model's
    # LocalModelTimeout, so the engine can treat every provider's timeout alike.
    code = "PROVIDER_TIMEOUT"
    retryable = True
    leg_status: LegFailure = "timeout"


class MalformedReply(ProviderError):
    # Not retried here: the council's bounded repair re-prompt owns that decision.
    code = "MALFORMED_REPLY"
    text: str | None = None  # the model's reply, when there was one, for a repair prompt


class ProviderRejected(ProviderError):
    code = "PROVIDER_REJECTED"


class ContextTooLong(ProviderRejected):
    # Not a provider outage and not worth a retry: the same prompt will not fit next time either.
    code = "CONTEXT_LENGTH_EXCEEDED"
    retryable = False


__all__ = [
    "AuthError",
    "ContextTooLong",
    "MalformedReply",
    "ModelNotFound",
    "OutOfCredits",
    "ProviderDown",
    "ProviderError",
    "ProviderRejected",
    "ProviderTimeout",
    "RateLimited",
]
