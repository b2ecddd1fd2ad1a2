"""Per-tenant model budgets in Redis: calls and tokens per fixed one-minute window."""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable

from redis.asyncio import Redis

WINDOW_SECONDS = 60
# A window's counters outlive it a little, so a slow clock on one worker still finds them.
KEY_TTL_SECONDS = 2 * WINDOW_SECONDS
PREFIX = "tessera:budget"


class TenantBudget:
    """Counts each tenant's model calls and tokens per minute; 0 for a limit means unlimited."""

    def __init__(
        self,
        redis: Redis,
        *,
        calls_per_minute: int,
        tokens_per_minute: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.redis = redis
        self.calls_per_minute = calls_per_minute
        self.tokens_per_minute = tokens_per_minute
        self.clock = clock

    @property
    def limited(self) -> bool:
        """Whether any limit is set (otherwise Redis is never asked)."""
        return self.calls_per_minute > 0 or self.tokens_per_minute > 0

    def _keys(self, tenant_id: uuid.UUID) -> tuple[str, str, float]:
        now = self.clock()
        window = math.floor(now / WINDOW_SECONDS)
        base = f"{PREFIX}:{tenant_id}:{window}"
        return f"{base}:calls", f"{base}:tokens", now

    async def reserve_call(self, tenant_id: uuid.UUID) -> float | None:
        """Count one call about to be made: None if it fits, else seconds to the next window."""
        if not self.limited:
            return None
        calls_key, tokens_key, now = self._keys(tenant_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(calls_key)
            pipe.expire(calls_key, KEY_TTL_SECONDS)
            pipe.get(tokens_key)
            calls, _, tokens = await pipe.execute()
        over_calls = 0 < self.calls_per_minute < int(calls)
        # Tokens are known only after a call, so a call is refused once the window is spent.
        over_tokens = 0 < self.tokens_per_minute <= int(tokens or 0)
        if not (over_calls or over_tokens):
            return None
        return max(1.0, WINDOW_SECONDS - now % WINDOW_SECONDS)

    async def charge_tokens(self, tenant_id: uuid.UUID, tokens: int) -> None:
        """Add the tokens a call used to this window."""
        if self.tokens_per_minute <= 0 or tokens <= 0:
            return
        _, tokens_key, _ = self._keys(tenant_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incrby(tokens_key, tokens)
            pipe.expire(tokens_key, KEY_TTL_SECONDS)
            await pipe.execute()
