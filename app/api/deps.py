"""Dependencies shared by the routers, as Annotated aliases."""

from __future__ import annotations

import hmac
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

import structlog
from fastapi import Depends, Path, Query, Request, Response, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.security.base import SecurityBase
from pydantic import AfterValidator

from app.adapters.signals import JobSignals
from app.api.auth import TENANT_STATE, bearer
from app.api.schemas.jobs import JobOut, job_out
from app.api.schemas.params import MAX_VERSION
from app.db.uow import UowFactory
from app.domain.apikeys import key_prefix
from app.domain.passport import (
    USER_KEY_MAX_CHARS,
    USER_KEY_PATTERN,
    USER_KEY_RULE,
    normal_user_key,
)
from app.runtime import Runtime
from app.services import jobs, tenants
from app.services.errors import Forbidden, Unauthorized
from app.services.reading import AtLeast
from app.services.views import JobView
from app.settings import Settings


def runtime_of(request: Request) -> Runtime:
    """The runtime the app's lifespan opened (``app.main``): databases, queue, caches."""
    runtime: Runtime = request.app.state.runtime
    return runtime


# async, like every dependency here: FastAPI runs a plain def in a worker thread.
async def get_runtime(request: Request) -> Runtime:
    """The app's runtime."""
    return runtime_of(request)


async def get_settings(request: Request) -> Settings:
    """The Settings the app was built with."""
    return runtime_of(request).settings


async def get_uows(request: Request) -> UowFactory:
    """The units of work the services run in: the app's sessions, jobs enqueued after commit."""
    return runtime_of(request).uows


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
UowsDep = Annotated[UowFactory, Depends(get_uows)]


# Declared as bearer security schemes, so the spec (and the generated SDK) know the auth.
_api_key = HTTPBearer(auto_error=False, scheme_name="ApiKey", description="A tenant API key.")
_admin = HTTPBearer(auto_error=False, scheme_name="AdminToken", description="TESSERA_ADMIN_TOKEN.")
Credentials = HTTPAuthorizationCredentials | None


_NO_KEY = "send the key as 'Authorization: Bearer <key>'"


def _bearer(credentials: Credentials) -> str:
    if credentials is None or not credentials.credentials.strip():
        raise Unauthorized(_NO_KEY)
    return credentials.credentials.strip()


class TenantKey(SecurityBase):
    """The API key dependency: the ApiKey bearer scheme in the spec, the tenant in the handler."""

    def __init__(self, bearer: HTTPBearer) -> None:
        # One dependency, not a function over a sub-dependency: FastAPI's per-request cost
        # grows with each level of the tree. The bearer scheme is only borrowed for the spec.
        self.model = bearer.model
        self.scheme_name = bearer.scheme_name

    async def __call__(self, request: Request) -> uuid.UUID:
        """The tenant whose API key is presented; 401 for a missing, unknown or revoked key."""
        # A request with a body was authenticated before it was read (``app.api.auth``).
        checked = getattr(request.state, TENANT_STATE, None)
        if isinstance(checked, uuid.UUID):
            structlog.contextvars.bind_contextvars(tenant_id=str(checked))
            return checked
        # HTTPBearer's parsing, without the credentials model it builds on every request.
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not credentials.strip():
            raise Unauthorized(_NO_KEY)
        token = credentials.strip()
        runtime = runtime_of(request)
        # No unit of work is opened on a key-cache hit: most requests then touch no ORM at all.
        tenant_id = await tenants.authenticate(runtime.uows, token, runtime.key_cache)
        if tenant_id is None:
            raise Unauthorized("unknown or revoked API key")
        # Every later log line of the request, and its access line, names the tenant.
        structlog.contextvars.bind_contextvars(tenant_id=str(tenant_id))
        return tenant_id


get_tenant = TenantKey(_api_key)


async def require_admin(
    settings: SettingsDep, authorization: Annotated[Credentials, Depends(_admin)]
) -> None:
    """Only the admin token opens /admin; tenant keys never do."""
    if settings.admin_token is None:
        raise Forbidden("the admin API is disabled: set TESSERA_ADMIN_TOKEN to enable it")
    token = _bearer(authorization)
    if not hmac.compare_digest(
        token.encode("utf-8"), settings.admin_token.get_secret_value().encode("utf-8")
    ):
        raise Unauthorized("invalid admin token")


TenantDep = Annotated[uuid.UUID, Depends(get_tenant)]


async def heavy_slot(request: Request, tenant: TenantDep) -> AsyncIterator[None]:
    """Hold one of the tenant's heavy-request slots until the response is sent (429 past them)."""
    slots = runtime_of(request).heavy
    if slots is None:
        yield
        return
    with slots.taken(tenant):
        yield


HeavyDep = Annotated[None, Depends(heavy_slot)]


async def get_actor(request: Request) -> str:
    """The public prefix of the API key the request presents: who a version names as its actor."""
    return actor_of(request)


def actor_of(request: Request) -> str:
    """The prefix of a request's API key ('' without a well-formed one)."""
    return key_prefix(bearer(request.scope.get("headers", ())) or "") or ""


ActorDep = Annotated[str, Depends(get_actor)]
AdminDep = Annotated[None, Depends(require_admin)]
UserKey = Annotated[
    str,
    Path(
        min_length=1,
        max_length=USER_KEY_MAX_CHARS,
        pattern=USER_KEY_PATTERN,
        description=f"Your identifier for the end user: {USER_KEY_RULE}",
    ),
    AfterValidator(normal_user_key),
]


Wait = Annotated[float, Query(ge=0, description="Seconds to wait for the job to finish (capped).")]
MinVersion = Annotated[
    int | None,
    Query(
        ge=0,
        le=MAX_VERSION,
        description="Read at least this version (the version_after a write reported): the "
        "read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying how far "
        "behind it is.",
    ),
]


def at_least(request: Request, min_version: int | None) -> AtLeast:
    """What a read's ``min_version`` asks, with this deployment's wait."""
    runtime = runtime_of(request)
    wait = runtime.settings.min_version_wait_seconds
    return AtLeast(min_version, wait, runtime.primary_reads)


@dataclass(frozen=True)
class Accepting:
    """How a route that queues a job answers: 202, or the job's end within ``?wait``."""

    tenant: uuid.UUID
    uows: UowFactory
    settings: Settings
    response: Response
    wait: float
    signals: JobSignals | None = None
    actor: str = ""  # the prefix of the key that asked: the versions it leads to name it

    async def answer(self, job: JobView) -> JobOut:
        """The job as queued, or as it ended within ?wait: 202, or 200 once it ended; Location."""
        if self.wait > 0:
            seconds = min(self.wait, self.settings.ingest_wait_max_seconds)
            job = await jobs.wait_for_job(job, self.uows, self.tenant, seconds, self.signals)
        out = job_out(job)
        self.response.headers["Location"] = out.status_url
        if job.finished:
            self.response.status_code = status.HTTP_200_OK
        return out


async def get_accepting(
    tenant: TenantDep, runtime: RuntimeDep, response: Response, actor: ActorDep, wait: Wait = 0
) -> Accepting:
    """What a route that accepts a job answers with, for the ?wait it was given."""
    return Accepting(tenant, runtime.uows, runtime.settings, response, wait, runtime.signals, actor)


AcceptingDep = Annotated[Accepting, Depends(get_accepting)]
