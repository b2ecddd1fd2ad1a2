"""A tenant's quotas, checked and counted in turn: the daily bytes every write sends, and the
turns one user's memory holds.

Every write route counts what it sends (an ingest's body, a passport put, a facts write) in the
tenant's hourly usage, in the transaction that accepts it. The check reads totals and the count
adds to them, so two requests checked at once would each see room for one: the check runs under
the tenant's quota lock (a transaction-scoped advisory lock), held until that transaction ends.
Requests of one tenant are checked one at a time; the overshoot is never more than one request.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.db.repository import TenantRepository
from app.services.errors import LimitExceeded
from app.settings import Settings


def hour_of(now: datetime) -> datetime:
    """The start of the UTC hour ``now`` falls in: the key of the tenant's usage rows."""
    return now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


async def check_bytes(repo: TenantRepository, size: int, now: datetime, settings: Settings) -> None:
    """Refuse ``size`` more bytes (429) past the tenant's day; ``count_bytes`` counts them.

    Takes the tenant's quota lock: call it first in the transaction that accepts the write, and
    ``count_bytes`` last in it (the usage row is locked last, as a job's writes lock it last).
    """
    await repo.lock_quota()
    daily = settings.tenant_ingest_bytes_per_day
    hour = hour_of(now)
    if daily > 0:
        sent = await repo.ingest_bytes_since(hour - timedelta(hours=23))
        if sent + size > daily:
            # The oldest hour of the rolling day leaves it at the next hour's start.
            wait = int((hour + timedelta(hours=1) - now).total_seconds()) + 1
            raise LimitExceeded(
                f"this tenant has sent {sent} bytes in the last 24 hours; {size} more would "
                f"pass tenant_ingest_bytes_per_day ({daily})",
                limit="tenant_ingest_bytes_per_day",
                retry_after=wait,
            )


async def count_bytes(repo: TenantRepository, size: int, now: datetime) -> None:
    """Count ``size`` bytes in the tenant's usage of this hour (after ``check_bytes``)."""
    await repo.add_usage(hour_of(now), {"ingest_bytes": size})


async def check_turns(
    repo: TenantRepository, user_key: str, turns: int, settings: Settings
) -> None:
    """Refuse (413) ``turns`` more for a user whose log and queued ingests hold the most.

    Checked under the quota lock ``charge_bytes`` takes, in the same transaction.
    """
    most = settings.user_max_turns
    if most <= 0:
        return
    stored, pending = await repo.turn_counts(user_key)
    if stored + pending + turns > most:
        raise LimitExceeded(
            f"user {user_key!r} holds {stored} turns and {pending} more are queued; "
            f"{turns} more would pass user_max_turns ({most}): forget or compact some first",
            limit="user_max_turns",
            status=413,
        )
