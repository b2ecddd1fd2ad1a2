"""Tessera as a LangGraph store: ``TesseraStore`` (``pip install 'tessera-client[langgraph]'``).

A namespace names a Tessera user and a section: the element at ``user_at`` (the first, unless
told) is the user key, the others the section, so ``("ada", "memories")`` is the section
``memories`` of the user ``ada``. An item is one turn of that user, sent with the id
``store:<section>:<key>`` in the session ``store:<section>`` and its value as JSON text: it is
kept verbatim, shown in the user's context like any memory, found by Tessera's ranking, listed by
its session, and forgotten everywhere (with a signed receipt) when deleted or replaced.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, unquote

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from tessera import calls
from tessera.client import AsyncTessera, Tessera
from tessera.errors import NotFound
from tessera.steps import Steps, arun_steps, run_steps

# What marks a turn (by its id and session) as a store item.
PREFIX = "store:"
# The most passages a query asks Tessera for, and sessions and turns a listing reads.
SEARCH_LIMIT = 200
PAGE = 500


def _path(parts: Sequence[str]) -> str:
    """A section as one string: each part escaped, so '/' and ':' only ever separate."""
    return "/".join(quote(part, safe="") for part in parts)


def _parts(path: str) -> tuple[str, ...]:
    return tuple(unquote(part) for part in path.split("/")) if path else ()


def _turn_id(section: Sequence[str], key: str) -> str:
    return f"{PREFIX}{_path(section)}:{quote(key, safe='')}"


def _session(section: Sequence[str]) -> str:
    return PREFIX + _path(section)


def _key_of(turn_id: str) -> tuple[tuple[str, ...], str] | None:
    """The section and key a store turn's id names; None for any other turn."""
    if not turn_id.startswith(PREFIX) or ":" not in turn_id[len(PREFIX) :]:
        return None
    path, key = turn_id[len(PREFIX) :].rsplit(":", 1)
    return _parts(path), unquote(key)


def _matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's namespace match: a prefix or suffix of it, '*' standing for any part."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"unknown match type {condition.match_type!r}")
    return all(wanted == "*" or part == wanted for part, wanted in pairs)


def _compared(value: Any, wanted: Any, holds: Callable[[float, float], bool]) -> bool:
    """A numeric comparison; a field that is missing or not a number never meets it."""
    try:
        return holds(float(value), float(wanted))
    except (TypeError, ValueError):
        return False


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda value, wanted: bool(value == wanted),
    "$ne": lambda value, wanted: bool(value != wanted),
    "$gt": lambda value, wanted: _compared(value, wanted, float.__gt__),
    "$gte": lambda value, wanted: _compared(value, wanted, float.__ge__),
    "$lt": lambda value, wanted: _compared(value, wanted, float.__lt__),
    "$lte": lambda value, wanted: _compared(value, wanted, float.__le__),
}


def _meets(value: Any, wanted: Any) -> bool:
    """A store filter as LangGraph reads one: equal values, nested fields, ``$`` operators."""
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            unknown = [op for op in wanted if op not in _OPERATORS]
            if unknown:
                raise ValueError(f"unsupported filter operators {unknown}")
            return all(_OPERATORS[op](value, arg) for op, arg in wanted.items())
        fields = wanted.items()
        return isinstance(value, Mapping) and all(_meets(value.get(k), v) for k, v in fields)
    return bool(value == wanted)


def _time(turn: Mapping[str, Any]) -> datetime:
    ts = turn.get("ts")
    return datetime.fromisoformat(ts) if isinstance(ts, str) else datetime.now(UTC)


class TesseraStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items are Tessera memories of the user each names.

    ``url`` and ``key`` default to ``TESSERA_URL`` and ``TESSERA_API_KEY``; ``user_at`` is where
    the user key stands in a namespace (``-1``: last, as in ``("memories", user_id)``); a put
    waits up to ``wait`` seconds for its write, so a get that follows finds it.
    """

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        user_at: int = 0,
        wait: float = 60.0,
    ) -> None:
        self.client = Tessera(url, key)
        self.aclient = AsyncTessera(url, key)
        self.user_at = user_at
        self.wait = wait

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run each operation in order with the sync client."""
        return [run_steps(self.client, self._steps(op)) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run each operation in order with the async client."""
        return [await arun_steps(self.aclient, self._steps(op)) for op in ops]

    def close(self) -> None:
        """Close the sync client's connections (``aclose`` the async one's)."""
        self.client.close()

    async def aclose(self) -> None:
        """Close the async client's connections."""
        await self.aclient.aclose()

    # -- where a namespace points -------------------------------------------------------------

    def _split(self, namespace: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        """The user key a namespace names, and its section (the other parts, in order)."""
        at = self.user_at if self.user_at >= 0 else len(namespace) + self.user_at
        if not 0 <= at < len(namespace):
            raise InvalidNamespaceError(
                f"namespace {namespace!r} names no user: the user key is its part {self.user_at}"
            )
        return namespace[at], namespace[:at] + namespace[at + 1 :]

    def _join(self, user: str, section: tuple[str, ...]) -> tuple[str, ...]:
        at = self.user_at if self.user_at >= 0 else len(section) + 1 + self.user_at
        return (*section[:at], user, *section[at:])

    def _item(
        self, user: str, turn: Mapping[str, Any], score: float | None = None
    ) -> SearchItem | None:
        """The item a store turn holds; None for a turn that is not one."""
        named = _key_of(str(turn.get("id", "")))
        if named is None:
            return None
        try:
            value = json.loads(str(turn.get("text", "")))
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        section, key = named
        when = _time(turn)
        return SearchItem(self._join(user, section), key, value, when, when, score)

    # -- the operations, each a sequence of calls ---------------------------------------------

    def _steps(self, op: Op) -> Steps[Any]:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise ValueError(f"unknown store operation {type(op).__name__}")

    def _get(self, op: GetOp) -> Steps[Item | None]:
        user, section = self._split(op.namespace)
        try:
            turn = yield calls.turn(user, _turn_id(section, op.key))
        except NotFound:
            return None
        found = self._item(user, turn)
        if found is None:
            return None
        return Item(
            value=found.value,
            key=found.key,
            namespace=found.namespace,
            created_at=found.created_at,
            updated_at=found.updated_at,
        )

    def _put(self, op: PutOp) -> Steps[None]:
        """Forget the item that was there, then remember the new value (none: a delete)."""
        user, section = self._split(op.namespace)
        turn_id = _turn_id(section, op.key)
        with contextlib.suppress(NotFound):  # nothing there yet
            yield calls.forget_turn(user, turn_id)
        if op.value is None:
            return None
        message = {
            "role": "user",
            "content": json.dumps(op.value, ensure_ascii=False),
            "id": turn_id,
            "session": _session(section),
            "ts": datetime.now(UTC).isoformat(),
        }
        body = calls.ingest_body([message])
        job = yield calls.remember(user, body, wait=self.wait, idempotency_key=None)
        if job.status != "done":
            raise RuntimeError(f"storing {op.key!r} for {user!r}: job {job.job_id} {job.status}")
        return None

    def _search(self, op: SearchOp) -> Steps[list[SearchItem]]:
        user, section = self._split(op.namespace_prefix)
        want = op.offset + op.limit
        found: list[SearchItem] = []
        try:
            if op.query:
                items = self._ranked(user, section, op.query)
            else:
                items = self._listed(user, section)
            for item in (yield from items):
                if op.filter is None or _meets(item.value, op.filter):
                    found.append(item)
                if len(found) >= want:
                    break
        except NotFound:
            return []
        return found[op.offset : want]

    def _ranked(
        self, user: str, section: tuple[str, ...], query: str
    ) -> Steps[Iterator[SearchItem]]:
        """The items under ``section`` among the passages Tessera ranks best for ``query``."""
        result = yield calls.search(user, query, SEARCH_LIMIT)
        seen: set[str] = set()
        items: list[SearchItem] = []
        for hit in result.items:
            for turn_id in hit.turn_ids:
                named = _key_of(turn_id)
                if named is None or named[0][: len(section)] != section or turn_id in seen:
                    continue
                seen.add(turn_id)
                try:
                    turn = yield calls.turn(user, turn_id)
                except NotFound:
                    continue
                item = self._item(user, turn, hit.score)
                if item is not None:
                    items.append(item)
        return iter(items)

    def _listed(self, user: str, section: tuple[str, ...]) -> Steps[Iterator[SearchItem]]:
        """Every item under ``section``, the newest first."""
        page = yield calls.sessions(user, _session(section), PAGE, None)
        items: list[SearchItem] = []
        for session in page.items:
            if _parts(session.name[len(PREFIX) :])[: len(section)] != section:
                continue  # "store:a" also starts "store:ab"
            said = yield calls.turns(user, session.name, PAGE, None)
            items += [i for i in (self._item(user, t) for t in said["items"]) if i is not None]
        return iter(sorted(items, key=lambda item: item.updated_at, reverse=True))

    def _namespaces(self, op: ListNamespacesOp) -> Steps[list[tuple[str, ...]]]:
        """The namespaces that hold items: each user's store sessions, matched and cut."""
        conditions = op.match_conditions or ()
        named = [
            c.path[self.user_at]
            for c in conditions
            if c.match_type == "prefix" and 0 <= self.user_at < len(c.path)
        ]
        users = [u for u in named if u != "*"][:1]
        if not users:
            page = yield calls.users(1000, None)
            users = [u.user_key for u in page.items]
        found: set[tuple[str, ...]] = set()
        for user in users:
            try:
                sessions = yield calls.sessions(user, PREFIX, PAGE, None)
            except NotFound:
                continue
            for session in sessions.items:
                found.add(self._join(user, _parts(session.name[len(PREFIX) :])))
        matching = [ns for ns in found if all(_matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            matching = list({ns[: op.max_depth] for ns in matching})
        return sorted(matching)[op.offset : op.offset + op.limit]
