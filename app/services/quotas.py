"""A tenant's quotas, checked and counted in turn: the daily bytes every write sends, and the
turns one user's memory holds.

Every write route charges what it sends (an ingest's body, a passport put, a facts write) to the
tenant's hourly usage, last in the transaction that accepts it: the hour's usage row is counted
first and the rolling day summed after, so the row stays locked from the count to the commit and
writes charged at once are counted one after another. Together they never pass the quota (across
the turn of an hour, by at most one request), and a tenant's writes wait for each other only for
that last step, not for the whole of each other's transactions. A write whose work is heavy checks
first, without the lock, so a day already spent is refused before the work (``check_bytes``).

A user's turns are checked under a lock of that user (a transaction-scoped advisory lock): two
writes for one user are checked one after another; writes for different users never wait.
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
    """Refuse ``size`` more bytes (429) when the tenant's day is already past, before any work.

    Reads without a lock: ``charge_bytes`` at the end of the transaction is what holds exactly.
    """
    daily = settings.tenant_ingest_bytes_per_day
    if daily > 0:
        hour = hour_of(now)
        sent = await repo.ingest_bytes_since(hour - timedelta(hours=23))
        if sent + size > daily:
            raise _past_day(sent, size, daily, hour, now)


async def charge_bytes(
    repo: TenantRepository, size: int, now: datetime, settings: Settings
) -> None:
    """Count ``size`` bytes in this hour's usage, then refuse (429) if the day is past it.

    Call it last in the transaction that accepts the write: a refusal rolls the write back, and
    the hour's usage row stays locked only from here to the commit.
    """
    hour = hour_of(now)
    daily = settings.tenant_ingest_bytes_per_day
    if daily <= 0:
        await repo.add_usage(hour, {"ingest_bytes": size})
        return
    sent = await repo.charge_ingest_bytes(hour, size, hour - timedelta(hours=23))
    if sent > daily:
        raise _past_day(sent - size, size, daily, hour, now)


def _past_day(sent: int, size: int, daily: int, hour: datetime, now: datetime) -> LimitExceeded:
    # The oldest hour of the rolling day leaves it at the next hour's start.
    wait = int((hour + timedelta(hours=1) - now).total_seconds()) + 1
    return LimitExceeded(
        f"this tenant has sent {sent} bytes in the last 24 hours; {size} more would "
        f"pass tenant_ingest_bytes_per_day ({daily})",
        limit="tenant_ingest_bytes_per_day",
        retry_after=wait,
    )


async def check_turns(
    repo: TenantRepository, user_key: str, turns: int, settings: Settings
) -> bool | None:
    """Refuse (413) ``turns`` more for a user whose log and queued ingests hold the most.

    Takes the user's turn lock, held until the transaction ends. Returns whether the user's
    passport exists (None when the limit is off and nothing was read).
    """
    most = settings.user_max_turns
    if most <= 0:
        return None
    await repo.lock_user_turns(user_key)
    stored, pending, exists = await repo.turn_counts(user_key)
    if stored + pending + turns > most:
        raise LimitExceeded(
            f"user {user_key!r} holds {stored} turns and {pending} more are queued; "
            f"{turns} more would pass user_max_turns ({most}): forget or compact some first",
            limit="user_max_turns",
            status=413,
        )
    return exists
