"""One structured-output call with one repair attempt, for any provider.

A provider client (``StructuredClient``) turns a ``StructuredRequest`` into a ``Completion``
through its native mechanism and retries transient failures itself. ``ask_structured`` validates
the answer and, when it does not validate, asks once more with the reason; a second failure is a
``SegmentOutputError``. Usage counts every call that returned, the repair included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

from app.llm.errors import InvalidOutputError, SegmentOutputError
from app.llm.schema import decode_json

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Completion:
    """What one call returned: the answer, as text and (when the provider parsed it) as data."""

    text: str
    data: object | None = None  # Anthropic hands back the tool input already parsed
    input_tokens: int = 0
    output_tokens: int = 0
    refusal: str | None = None  # the model declined; a repair turn will not change its mind
    call_id: str | None = None  # Anthropic: the forced tool call, answered in a repair turn


@dataclass(frozen=True, slots=True)
class StructuredRequest:
    """A prompt, the schema its answer must follow, and (on a repair) what went wrong before."""

    system: str
    user: str
    schema_name: str
    schema: dict[str, Any]
    repair: tuple[Completion, str] | None = None  # the rejected answer and why it was rejected


class StructuredClient(Protocol):
    """A provider that answers a prompt in a given JSON schema, retrying transient failures."""

    provider: str
    model: str

    async def complete(self, request: StructuredRequest) -> Completion:
        """One answer (after any retries); raises FatalProviderError or TransientProviderError."""
        ...

    async def aclose(self) -> None:
        """Release the connections this client opened itself."""
        ...


@dataclass(frozen=True, slots=True)
class Structured(Generic[T]):
    """A validated answer and what it cost."""

    value: T
    calls: int
    input_tokens: int
    output_tokens: int


async def ask_structured(
    client: StructuredClient, request: StructuredRequest, validate: Callable[[object], T]
) -> Structured[T]:
    """Ask, validate, repair once; raises SegmentOutputError when the repair fails too."""
    calls = input_tokens = output_tokens = 0
    current = request
    for attempt in (1, 2):
        completion = await client.complete(current)
        calls += 1
        input_tokens += completion.input_tokens
        output_tokens += completion.output_tokens
        try:
            if completion.refusal is not None:
                raise SegmentOutputError(f"the model refused: {completion.refusal}")
            data = completion.data if completion.data is not None else decode_json(completion.text)
            value = validate(data)
        except (InvalidOutputError, SegmentOutputError) as exc:
            reason = exc.reason if isinstance(exc, SegmentOutputError) else str(exc)
            if attempt == 2 or isinstance(exc, SegmentOutputError):
                raise SegmentOutputError(
                    reason if attempt == 1 else f"still invalid after a repair: {reason}",
                    calls=calls,
                    input_tokens=input_tokens,
                    output_tokens=output_tokens,
                ) from exc
            current = replace(request, repair=(completion, reason))
            continue
        return Structured(value, calls, input_tokens, output_tokens)
    raise AssertionError("unreachable: the second attempt returns or raises")
