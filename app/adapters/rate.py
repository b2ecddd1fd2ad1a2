"""Per-tenant request rates in Redis: requests per fixed one-second window, shared by processes."""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Callable

from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

PREFIX = "tessera:rate"
# A window's counter outlives it a little, so a slow clock on one process still finds it.
KEY_TTL_SECONDS = 3


class RequestRate:
    """Counts each tenant's API requests per second; 0 for the limit means unlimited."""

    def __init__(
        self, redis: Redis, per_second: int, clock: Callable[[], float] = time.time
    ) -> None:
        self.redis = redis
        self.per_second = per_second
        self.clock = clock

    async def admit(self, tenant_id: uuid.UUID) -> float | None:
        """Count one request: None if it fits this second, else seconds until the next one.

        A Redis that cannot be reached admits the request: the limit protects the service,
        and refusing every tenant because a counter is unavailable would not.
        """
        if self.per_second <= 0:
            return None
        now = self.clock()
        key = f"{PREFIX}:{tenant_id}:{math.floor(now)}"
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.incr(key)
                pipe.expire(key, KEY_TTL_SECONDS)
                count, _ = await pipe.execute()
        except (RedisError, OSError) as exc:
            log.warning("request rate not counted (%s): admitted", type(exc).__name__)
            return None
        if int(count) <= self.per_second:
            return None
        return max(0.001, math.floor(now) + 1 - now)
