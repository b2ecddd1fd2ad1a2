"""The MCP tools and resource: each calls the service its REST route calls, for the key's tenant.

The endpoint (``app.mcp.endpoint``) checks the API key before the SDK sees the request and puts
the tenant on it; a tool reads the tenant and the app's state from there. A service's refusal
becomes an MCP tool error (a resource error for ``passport://``) in the words of the REST
problem: its title, then its detail.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import orjson
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import ToolAnnotations
from pydantic import AfterValidator, Field, ValidationError
from starlette.requests import Request

from app.api.deps import actor_of, runtime_of
from app.api.problems import service_status
from app.api.schemas.jobs import Accepted, JobOut, accepted_out, job_out
from app.api.schemas.reading import SearchResult, search_result
from app.api.schemas.records import reply_of
from app.api.schemas.users import ForgottenOut, IntegrityOut, forgotten_out
from app.domain.dates import DateWindow
from app.domain.ingest.payload import IngestPayload, TurnIn
from app.domain.passport import (
    USER_KEY_MAX_CHARS,
    USER_KEY_PATTERN,
    USER_KEY_RULE,
    normal_user_key,
)
from app.runtime import Runtime
from app.services import forget, ingest, integrity, jobs, passports, reading
from app.services.embedding import in_process
from app.services.errors import NotFound, ServiceError
from app.services.origin import Origin
from app.settings import Settings

INSTRUCTIONS = (
    "Long-term memory of the people you talk with, one memory per user key. Before answering "
    "a user, call recall with their question and put the text in your context; after a "
    "conversation, call remember with its turns (each with the id your app gave the message). "
    "get_beliefs shows what is believed about the user now, search finds past messages, and "
    "forget deletes a message for good."
)
# The name the endpoint stores the checked key's tenant under, on the request's state.
TENANT = "tenant_id"
_USER_KEY = re.compile(USER_KEY_PATTERN)

User = Annotated[
    str,
    Field(
        min_length=1,
        max_length=USER_KEY_MAX_CHARS,
        pattern=USER_KEY_PATTERN,
        description=f"Your app's id for the end user: {USER_KEY_RULE}",
    ),
    AfterValidator(normal_user_key),
]
Query = Annotated[
    str, Field(max_length=2000, description="What you are about to answer; ranks the memories.")
]
# What the read tools tell a client: they change nothing, and reach only this tenant's memory.
READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)


@dataclass(frozen=True)
class Caller:
    """Who calls (the tenant of the key the endpoint checked) and the app's runtime."""

    tenant: uuid.UUID
    runtime: Runtime
    actor: str = ""  # the prefix of the key: the versions its calls make name it

    @property
    def settings(self) -> Settings:
        """The app's settings."""
        return self.runtime.settings


def caller(ctx: Context) -> Caller:
    """The tenant and app state of the HTTP request this MCP message came in."""
    request = ctx.request_context.request
    tenant = getattr(request.state, TENANT, None) if isinstance(request, Request) else None
    if not isinstance(request, Request) or not isinstance(tenant, uuid.UUID):
        # Only reachable when the server is run outside the endpoint that checks the key.
        raise ToolError("Unauthorized: send the key as 'Authorization: Bearer <key>'")
    return Caller(tenant, runtime_of(request), actor_of(request))


def problem_words(exc: ServiceError) -> str:
    """A service's refusal as the REST problem says it: its title, then its detail."""
    _, title = service_status(exc)
    return f"{title}: {exc.detail}"


@contextmanager
def refusals() -> Iterator[None]:
    """Turn a service's refusal, or input it cannot take, into an MCP tool error."""
    try:
        yield
    except ServiceError as exc:
        raise ToolError(problem_words(exc)) from exc
    except ValidationError as exc:
        # As the REST validation problem words it: where, then what.
        found = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
            for e in exc.errors()[:5]
        )
        raise ToolError(f"Validation error: {found}") from exc


async def remember(
    ctx: Context,
    user: User,
    turns: Annotated[
        list[TurnIn] | None,
        Field(description="Chat turns in order: speaker, text, and the message's own id."),
    ] = None,
    text: Annotated[
        str | None, Field(description="A block of free text, instead of turns.")
    ] = None,
    session_ts: Annotated[
        str | None,
        Field(
            max_length=100,
            description="When the conversation happened (ISO 8601), for turns without a ts.",
        ),
    ] = None,
    subject: Annotated[
        str | None,
        Field(min_length=1, max_length=200, description="The speaker the memory is about."),
    ] = None,
    wait: Annotated[
        float, Field(ge=0, description="Seconds to wait for the outcome (capped); 0: do not wait.")
    ] = 0,
    idempotency_key: Annotated[
        str | None,
        Field(max_length=256, description="Send a retry with the same key: stored once."),
    ] = None,
) -> Accepted:
    """Store what was said (chat turns or a text) in a user's memory; the job, or its outcome."""
    who = caller(ctx)
    given = {"turns": turns, "text": text, "session_ts": session_ts, "subject": subject}
    with refusals():
        payload = IngestPayload.model_validate({k: v for k, v in given.items() if v is not None})
        accepted = await ingest.accept(
            who.runtime.uows,
            who.tenant,
            user,
            payload,
            who.settings,
            Origin(who.actor, idempotency_key),
        )
        job = accepted.job
        if wait > 0:
            seconds = min(wait, who.settings.ingest_wait_max_seconds)
            job = await jobs.wait_for_job(job, who.runtime.uows, who.tenant, seconds)
    return accepted_out(job_out(job), accepted.plan)


async def recall(
    ctx: Context,
    user: User,
    query: Query,
    budget_chars: Annotated[
        int, Field(ge=400, le=100_000, description="Most characters of text returned.")
    ] = 3000,
    min_version: Annotated[
        int | None,
        Field(
            ge=0,
            le=2**31 - 1,
            description="Read at least this version (remember's version_after): waits for it "
            "a few seconds, else an error saying how far behind it is.",
        ),
    ] = None,
) -> str:
    """The memory to put in your prompt: beliefs about the user, then the messages that answer."""
    who = caller(ctx)
    with refusals():
        wait = who.settings.min_version_wait_seconds
        wanted = reading.AtLeast(min_version, wait, who.runtime.primary_reads)
        ask = reading.ContextQuery(query or None, budget_chars, at_least=wanted)
        reply = await reading.read_context(
            who.runtime.read_uows, who.runtime.caches, who.tenant, user, ask
        )
    return reply.body.decode()


async def search(
    ctx: Context,
    user: User,
    query: Annotated[str, Field(min_length=1, max_length=2000, description="What to look for.")],
    limit: Annotated[int, Field(ge=1, le=200, description="Most hits returned.")] = 20,
) -> SearchResult:
    """A user's past messages that match a query, best first, with date, speaker and ids."""
    who = caller(ctx)
    with refusals():
        index, stamp = await reading.index_for(
            who.runtime.read_uows, who.runtime.caches, who.tenant, user
        )
        hits = await reading.search_memories(who.runtime.caches, index, query, limit, DateWindow())
    return search_result(stamp.version, hits)


async def head_of(who: Caller, user: str) -> dict[str, Any]:
    """The head of a user's passport now: what is believed, without the log."""
    exported = await passports.export(who.runtime.read_uows, who.tenant, user, None, passports.HEAD)
    doc: dict[str, Any] = orjson.loads(await exported.body())
    return doc


async def get_beliefs(ctx: Context, user: User) -> dict[str, Any]:
    """What is believed about a user now: facts, preferences, entities, open loops, changes."""
    who = caller(ctx)
    with refusals():
        return await head_of(who, user)


async def forget_turn(
    ctx: Context,
    user: User,
    turn_id: Annotated[
        str, Field(min_length=1, max_length=200, description="The id the message was sent with.")
    ],
) -> ForgottenOut:
    """Delete one of a user's messages for good, and what was derived only from it."""
    who = caller(ctx)
    with refusals():
        target = forget.ForgetTarget(turn_id=turn_id, actor=who.actor)
        done = await forget.forget(
            who.runtime.uows, who.runtime.caches, who.tenant, user, target, who.settings
        )
    return forgotten_out(done)


async def verify(ctx: Context, user: User) -> IntegrityOut:
    """Recompute a user's history hash chain: whether it is whole, its root, where it breaks."""
    who = caller(ctx)
    with refusals():
        model = in_process(who.runtime.caches.embedder)
        found = await integrity.check(who.runtime.uows, who.tenant, user, model=model)
    return reply_of(IntegrityOut, found)


async def job_status(
    ctx: Context,
    job_id: Annotated[uuid.UUID, Field(description="The job_id remember returned.")],
) -> JobOut:
    """Where an ingest job stands: queued, running, done or failed, and what it produced."""
    who = caller(ctx)
    with refusals():
        return job_out(await jobs.get_job(who.runtime.uows, who.tenant, job_id))


async def passport_resource(user: str, ctx: Context) -> str:
    """The head of the user's passport as JSON."""
    who = caller(ctx)
    if not 1 <= len(user) <= USER_KEY_MAX_CHARS or not _USER_KEY.match(user):
        raise ResourceError(f"Validation error: a user key has {USER_KEY_RULE}")
    try:
        return orjson.dumps(await head_of(who, normal_user_key(user))).decode()
    except ServiceError as exc:
        refused = ResourceNotFoundError if isinstance(exc, NotFound) else ResourceError
        raise refused(problem_words(exc)) from exc


def build_server(settings: Settings) -> MCPServer:
    """The MCP server with Tessera's tools and resource; its session manager is ready to run."""
    server: MCPServer = MCPServer(
        "tessera", instructions=INSTRUCTIONS, version="0.1.0", log_level="WARNING"
    )
    server.add_tool(
        remember,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
        description="Store what was said (chat turns, or a text) in a user's long-term memory; "
        "returns the ingest job, and with wait > 0 its outcome.",
    )
    server.add_tool(
        recall,
        annotations=READS,
        structured_output=False,
        description="The memory context to put in your prompt before answering a user: what "
        "is believed about them, then the past messages that answer the query, within "
        "budget_chars (the text GET /users/{key}/context returns).",
    )
    server.add_tool(
        search,
        annotations=READS,
        description="Find a user's past messages, observations and episodes that match a "
        "query, best first, each with its date, speaker, score and message ids.",
    )
    server.add_tool(
        get_beliefs,
        annotations=READS,
        description="What is believed about a user now, as JSON: facts, preferences, "
        "entities, open loops and recent contradictions.",
    )
    server.add_tool(
        forget_turn,
        name="forget",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True),
        description="Permanently delete one of a user's messages (by the id it was sent "
        "with) and everything derived only from it, from every version.",
    )
    server.add_tool(
        verify,
        annotations=READS,
        description="Check that a user's stored history is whole: recompute its hash chain "
        "from the stored rows; returns valid, the root hash, and the first version that fails.",
    )
    server.add_tool(
        job_status,
        annotations=READS,
        description="Where an ingest job stands (queued, running, done or failed): progress, "
        "error, and the passport version it produced.",
    )
    server.resource(
        "passport://{user}",
        name="passport",
        mime_type="application/json",
        description="What is believed about the user now: the head of their passport as JSON.",
    )(passport_resource)
    # Stateless, JSON answers: any API process serves any request, and nothing is kept between
    # them. Every request carries the tenant's key, so the SDK's Host/Origin check (a guard for
    # servers that trust whoever reaches them) adds nothing here and would refuse proxied hosts.
    server.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=True,
        stateless_http=True,
        max_request_body_size=settings.max_body_bytes,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return server
