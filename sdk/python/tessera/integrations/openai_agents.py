"""Tessera in the OpenAI Agents SDK: a ``Session`` and two tools (``tessera-client[agents]``).

``TesseraSession(user, session_id)`` keeps a conversation's items as turns of ``user`` in the
Tessera session ``session_id``: the Runner reads the history from it and adds each exchange to
it, so what was said is also the user's long-term memory. ``memory_tools(user)`` gives an agent
``remember`` (keep a note about the user) and ``recall`` (the user's context for a question).
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, cast

from agents import FunctionTool, function_tool
from agents.items import TResponseInputItem
from agents.memory import SessionABC, SessionSettings

from tessera import calls
from tessera.client import AsyncTessera
from tessera.errors import NotFound
from tessera.steps import Steps, arun_steps

# Roles a message item says; anything else an agent adds (a tool call, its output, reasoning)
# is kept whole, as JSON, in a tool turn.
SAID = frozenset({"user", "assistant", "system", "developer"})


def _text(content: Any) -> str:
    """A message's words: its content, or the text of each of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "\n".join(str(p) for p in parts if p)
    return ""


def _turn(item: Mapping[str, Any], session: str) -> dict[str, Any] | None:
    """The turn that keeps an item (None for a message without words)."""
    turn_id = f"{session}:{uuid.uuid4().hex}"
    role = item.get("role")
    if role in SAID and item.get("type", "message") == "message":
        text = _text(item.get("content"))
        return {"role": role, "content": text, "id": turn_id} if text.strip() else None
    return {"role": "tool", "content": json.dumps(item, ensure_ascii=False), "id": turn_id}


def _item(turn: Mapping[str, Any]) -> TResponseInputItem | None:
    """The item a turn keeps: a message again, or the whole item a tool turn holds."""
    role, text = turn.get("role"), str(turn.get("text", ""))
    if role in SAID:
        return cast(TResponseInputItem, {"role": role, "content": text})
    try:
        kept = json.loads(text)
    except ValueError:
        return None
    return cast(TResponseInputItem, kept) if isinstance(kept, dict) and "type" in kept else None


class TesseraSession(SessionABC):
    """A conversation of ``user`` kept in Tessera, as a Runner's ``session``.

    ``url`` and ``key`` default to ``TESSERA_URL`` and ``TESSERA_API_KEY``. Adding items waits
    up to ``wait`` seconds for them to be stored, so the next run reads them back.
    """

    def __init__(
        self,
        user: str,
        session_id: str,
        *,
        url: str | None = None,
        key: str | None = None,
        wait: float = 60.0,
        session_settings: SessionSettings | None = None,
    ) -> None:
        self.user = user
        self.session_id = session_id
        self.session_settings = session_settings
        self.client = AsyncTessera(url, key)
        self.wait = wait

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's latest ``limit`` items (all, by default), in the order said."""
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        return await arun_steps(self.client, self._items(limit))

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Remember the items, in order, as turns of the session."""
        await arun_steps(self.client, self._add(items))

    async def pop_item(self) -> TResponseInputItem | None:
        """Forget the session's newest item everywhere; that item (None if it has none)."""
        return await arun_steps(self.client, self._pop())

    async def clear_session(self) -> None:
        """Forget every turn of the session everywhere (a signed receipt is kept)."""
        with contextlib.suppress(NotFound):
            await self.client.forget_session(self.user, self.session_id)

    async def close(self) -> None:
        """Close the client's connections."""
        await self.client.aclose()

    def _items(self, limit: int | None) -> Steps[list[TResponseInputItem]]:
        newest: list[dict[str, Any]] = []
        cursor: str | None = None
        try:
            while limit is None or len(newest) < limit:
                asked = calls.TURNS_PAGE if limit is None else min(limit - len(newest), 500)
                page = yield calls.turns(self.user, self.session_id, asked, cursor)
                newest += page["items"]
                cursor = page["next_cursor"]
                if cursor is None:
                    break
        except NotFound:
            return []  # a user with nothing kept yet
        items = (_item(turn) for turn in reversed(newest))
        return [item for item in items if item is not None]

    def _add(self, items: Sequence[TResponseInputItem]) -> Steps[None]:
        said = [t for t in (_turn(cast(Mapping[str, Any], i), self.session_id) for i in items) if t]
        if not said:
            return None
        body = calls.ingest_body(said, session=self.session_id)
        job = yield calls.remember(self.user, body, wait=self.wait, idempotency_key=None)
        if job.status != "done":
            raise RuntimeError(f"keeping {len(said)} items: job {job.job_id} {job.status}")
        return None

    def _pop(self) -> Steps[TResponseInputItem | None]:
        try:
            page = yield calls.turns(self.user, self.session_id, 1, None)
        except NotFound:
            return None
        if not page["items"]:
            return None
        newest = page["items"][0]
        yield calls.forget_turn(self.user, str(newest["id"]))
        return _item(newest)


def memory_tools(
    user: str, *, url: str | None = None, key: str | None = None, budget_chars: int = 2000
) -> list[FunctionTool]:
    """``remember`` and ``recall`` for an agent that serves ``user``."""
    client = AsyncTessera(url, key)

    @function_tool
    async def remember(note: str) -> str:
        """Keep a note about the user for later conversations.

        Args:
            note: What to remember, in a full sentence about the user.
        """
        job = await client.remember(user, text=note, wait=30)
        return "remembered" if job.status == "done" else f"queued (job {job.job_id})"

    @function_tool
    async def recall(question: str) -> str:
        """What is known about the user that bears on a question.

        Args:
            question: The question to answer, in the user's words.
        """
        try:
            return await client.context(user, question, budget_chars=budget_chars)
        except NotFound:
            return "Nothing is known about this user yet."

    return [remember, recall]
