"""In-process caches: each user's index and recent context answers (LRU by bytes), API keys."""

from __future__ import annotations

import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from threading import Lock
from typing import Generic, TypeVar

from app.adapters.embeddings import Embedder
from app.domain.text import forget_cached_words
from app.services.held_index import HeldIndex
from app.services.stored_index import IndexStore

V = TypeVar("V")


@dataclass
class _Entry(Generic[V]):
    stamp: object
    value: V
    size: int


class VersionedLRU(Generic[V]):
    """Values per (tenant, user) at one stamp (version), evicted LRU past max_bytes."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[uuid.UUID, str], _Entry[V]] = OrderedDict()
        self._bytes = 0
        self._lock = Lock()
        self.hits = 0
        self.misses = 0

    def get(self, tenant_id: uuid.UUID, user_key: str, stamp: object) -> V | None:
        """The cached value if it is for exactly this stamp."""
        key = (tenant_id, user_key)
        with self._lock:
            entry = self._items.get(key)
            if entry is None or entry.stamp != stamp:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return entry.value

    def peek(self, tenant_id: uuid.UUID, user_key: str) -> V | None:
        """The value held for a user, if any, without counting a hit or a miss."""
        with self._lock:
            entry = self._items.get((tenant_id, user_key))
            return None if entry is None else entry.value

    def latest(self, tenant_id: uuid.UUID, user_key: str) -> V | None:
        """The value held for a user, whatever its stamp (the caller checks it)."""
        with self._lock:
            entry = self._items.get((tenant_id, user_key))
            if entry is None:
                self.misses += 1
                return None
            self._items.move_to_end((tenant_id, user_key))
            self.hits += 1
            return entry.value

    def put(self, tenant_id: uuid.UUID, user_key: str, stamp: object, value: V, size: int) -> None:
        """Remember a value; an entry larger than the whole cache is not kept."""
        key = (tenant_id, user_key)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old.size
            if size > self.max_bytes:
                return
            self._items[key] = _Entry(stamp, value, size)
            self._bytes += size
            while self._bytes > self.max_bytes and self._items:
                _, evicted = self._items.popitem(last=False)
                self._bytes -= evicted.size

    def drop(self, tenant_id: uuid.UUID, user_key: str) -> int:
        """Forget a user (after a delete); how many indexes went (0 or 1)."""
        with self._lock:
            old = self._items.pop((tenant_id, user_key), None)
            if old is not None:
                self._bytes -= old.size
        return int(old is not None)

    @property
    def bytes(self) -> int:
        """Bytes held now (as estimated by the callers)."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)


class KeyCache:
    """Recently verified API keys (by their SHA-256) -> tenant, and keys just refused.

    Both for ``ttl`` seconds. The refused are a bounded LRU, so a client retrying a wrong key
    costs no database lookup each time, and one sending endless new wrong keys grows nothing.
    """

    def __init__(
        self,
        ttl_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        max_refused: int = 10_000,
    ) -> None:
        self.ttl = ttl_seconds
        self._clock = clock
        self._items: dict[str, tuple[uuid.UUID, str, float]] = {}
        self._refused: OrderedDict[str, float] = OrderedDict()
        self._max_refused = max_refused
        self._lock = Lock()

    def get(self, key_sha256: str) -> uuid.UUID | None:
        """The tenant of a key verified less than ttl seconds ago."""
        with self._lock:
            found = self._items.get(key_sha256)
            if found is None:
                return None
            tenant_id, _, expires = found
            if self._clock() >= expires:
                del self._items[key_sha256]
                return None
            return tenant_id

    def put(self, key_sha256: str, tenant_id: uuid.UUID, prefix: str) -> None:
        """Remember a verified key."""
        if self.ttl <= 0:
            return
        with self._lock:
            if len(self._items) > 10_000:  # bounded: stale entries go first
                now = self._clock()
                self._items = {k: v for k, v in self._items.items() if v[2] > now}
            self._items[key_sha256] = (tenant_id, prefix, self._clock() + self.ttl)

    def refused(self, key_sha256: str) -> bool:
        """Whether this key was refused less than ttl seconds ago."""
        with self._lock:
            expires = self._refused.get(key_sha256)
            if expires is None:
                return False
            if self._clock() >= expires:
                del self._refused[key_sha256]
                return False
            return True

    def refuse(self, key_sha256: str) -> None:
        """Remember a key that is unknown or revoked."""
        if self.ttl <= 0:
            return
        with self._lock:
            self._refused[key_sha256] = self._clock() + self.ttl
            self._refused.move_to_end(key_sha256)
            while len(self._refused) > self._max_refused:
                self._refused.popitem(last=False)

    def forget_prefix(self, prefix: str) -> None:
        """Drop a revoked key at once (in this process)."""
        with self._lock:
            self._items = {k: v for k, v in self._items.items() if v[1] != prefix}


class ResultLRU:
    """Finished responses keyed by whatever determines them, evicted LRU past max_bytes."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[object, tuple[bytes, str]] = OrderedDict()
        self._bytes = 0
        self._lock = Lock()

    def get(self, key: object) -> tuple[bytes, str] | None:
        """The cached (body, media type), if any."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def drop_where(self, matches: Callable[[object], bool]) -> int:
        """Forget every response whose key ``matches``; how many went."""
        with self._lock:
            gone = [key for key in self._items if matches(key)]
            for key in gone:
                body, _ = self._items.pop(key)
                self._bytes -= len(body) + 200
        return len(gone)

    def values(self) -> list[bytes]:
        """Every body held (for checks that something is no longer cached)."""
        with self._lock:
            return [body for body, _ in self._items.values()]

    def put(self, key: object, body: bytes, media_type: str) -> None:
        """Remember a response body."""
        size = len(body) + 200
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= len(old[0]) + 200
            self._items[key] = (body, media_type)
            self._bytes += size
            while self._bytes > self.max_bytes and self._items:
                _, (evicted, _) = self._items.popitem(last=False)
                self._bytes -= len(evicted) + 200


IndexCache = VersionedLRU[HeldIndex]


@dataclass(frozen=True)
class ContextCaches:
    """What this process keeps of its users to read fast: their indexes and recent answers.

    The service that forgets or deletes drops what it held (``forget``); other processes never
    serve it again either, since their entries are keyed by the passport's stamp.
    """

    indexes: IndexCache
    results: ResultLRU
    # Where indexes not held are loaded from, and built ones stored (None: built from the log).
    stored: IndexStore | None = None
    # Called with a user whose held index a forget here dropped, or whose index lacks more vectors
    # than a read embeds: the API indexes (and embeds) the user again in the background, and
    # stores it, so the read that follows does not index the whole log (None: it does).
    index_again: Callable[[uuid.UUID, str], None] | None = None
    # The embedding model whose vectors held indexes carry (None: embeddings are off).
    embedder: Embedder | None = None

    @classmethod
    def of_size(cls, max_bytes: int, stored: IndexStore | None = None) -> ContextCaches:
        """Caches within ``max_bytes`` for indexes, an eighth of it for answers."""
        return cls(VersionedLRU(max_bytes), ResultLRU(max_bytes // 8), stored)

    def forget(self, tenant_id: uuid.UUID, user_key: str) -> Dropped:
        """Drop everything held of a user (after a delete or a forget)."""
        held = self.indexes.peek(tenant_id, user_key)
        vectors = held.index.evidence.vectors if held is not None else None
        indexes = self.indexes.drop(tenant_id, user_key)
        answers = self.forget_answers(tenant_id, user_key)
        return Dropped(indexes, answers, len(vectors) if vectors is not None else 0)

    def forget_answers(self, tenant_id: uuid.UUID, user_key: str) -> int:
        """Drop the answers built from a user's log (it was rewritten); how many went."""
        return self.results.drop_where(
            lambda k: isinstance(k, tuple) and k[:2] == (tenant_id, user_key)
        )


@dataclass(frozen=True)
class Dropped:
    """What this process dropped of a user: its index, and answers built from it."""

    indexes: int
    contexts: int
    vectors: int = 0  # passage vectors its index held (an embedding model on)


def forget_cached(caches: ContextCaches, tenant_id: uuid.UUID, user_key: str) -> Dropped:
    """Drop what this process holds of a user, and every cached word (after a forget, a delete)."""
    dropped = caches.forget(tenant_id, user_key)
    forget_cached_words()
    return dropped
