"""The in-process caches: LRU by bytes per version, and the short-lived key cache."""

from __future__ import annotations

import uuid

from app.services.cache import KeyCache, VersionedLRU

T = uuid.uuid4()


def test_lru_serves_only_the_cached_version_and_evicts_by_bytes():
    cache: VersionedLRU[str] = VersionedLRU(max_bytes=100)
    cache.put(T, "a", 1, "a@1", 60)
    assert cache.get(T, "a", 1) == "a@1"
    assert cache.get(T, "a", 2) is None  # a new version is never served stale
    cache.put(T, "b", 1, "b@1", 30)
    cache.get(T, "a", 1)  # a is now the most recent
    cache.put(T, "c", 1, "c@1", 30)  # over 100 bytes: b, the least recent, goes
    assert cache.get(T, "b", 1) is None
    assert cache.get(T, "a", 1) == "a@1" and cache.get(T, "c", 1) == "c@1"
    assert cache.bytes == 90
    cache.put(T, "huge", 1, "x", 1000)  # larger than the whole cache: not kept
    assert cache.get(T, "huge", 1) is None and cache.bytes == 90
    cache.drop(T, "a")
    assert cache.get(T, "a", 1) is None and cache.bytes == 30


def test_key_cache_expires_and_forgets_revoked_prefixes():
    now = [0.0]
    cache = KeyCache(ttl_seconds=10, clock=lambda: now[0])
    cache.put("sha-1", T, "prefix1")
    assert cache.get("sha-1") == T
    now[0] = 10.5
    assert cache.get("sha-1") is None
    cache.put("sha-1", T, "prefix1")
    cache.forget_prefix("prefix1")
    assert cache.get("sha-1") is None
    off = KeyCache(ttl_seconds=0)
    off.put("sha-2", T, "p")
    assert off.get("sha-2") is None


def test_result_lru_keeps_recent_bodies_within_bytes():
    from app.services.cache import ResultLRU

    cache = ResultLRU(max_bytes=1000)
    cache.put("a", b"x" * 300, "text/plain")
    cache.put("b", b"y" * 300, "text/plain")
    assert cache.get("a") == (b"x" * 300, "text/plain")  # a is now the most recent
    cache.put("c", b"z" * 300, "text/plain")  # 3 x (300 + 200) > 1000: b goes
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    cache.put("huge", b"h" * 2000, "text/plain")
    assert cache.get("huge") is None


def test_key_cache_remembers_refused_keys_for_a_while_and_only_so_many():
    now = [0.0]
    cache = KeyCache(ttl_seconds=10, clock=lambda: now[0], max_refused=3)
    cache.refuse("bad-1")
    assert cache.refused("bad-1") and not cache.refused("bad-2")
    now[0] = 10.5
    assert not cache.refused("bad-1")  # expired: the next try asks the database again
    for n in range(5):
        cache.refuse(f"bad-{n}")
    assert [cache.refused(f"bad-{n}") for n in range(5)] == [False, False, True, True, True]
    off = KeyCache(ttl_seconds=0)
    off.refuse("bad")
    assert not off.refused("bad")
