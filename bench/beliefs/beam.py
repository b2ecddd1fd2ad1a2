"""Belief precision on user–assistant chats: ``python -m bench.beliefs --set beam``.

Each BEAM chat (``../shared/data/beam500k``, Tavakoli et al. 2025; see its ``SOURCE.md``) is
ingested as ``bench.conversations`` does: one job per batch, the rule extractor, the merge. From
every passport's facts, preferences, entities, open loops, standing instructions and values with
history a fixed sample is drawn by the seed, and each sampled item was judged against the message
it came from. The verdicts live in ``labels_beam.tsv`` beside this file, by reference only
(chat, message id, kind, key, a short hash of the value), never the chat's text. The kinds are
judged by one rule: is the item, as an agent reads it, true of this user by what they said in
that message?
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.domain.passport import Passport
from bench.beliefs.run import Item, belief_items, first_turn, short_hash
from bench.conversations.data import Chat, load
from bench.conversations.run import ingest

KINDS = ("fact", "pref", "entity", "loop", "instruction", "value")


@dataclass(frozen=True, slots=True)
class Said:
    """A message as the judging file shows it: who said it (the role) and what."""

    id: str
    speaker: str
    text: str


@dataclass
class ChatBeliefs:
    """A chat's passport and its messages by id, for the sample and the judging file."""

    id: str
    passport: Passport
    messages: tuple[Said, ...]


async def extract(chat: Chat) -> ChatBeliefs:
    """The chat through the pipeline, as ``bench.conversations`` ingests it."""
    done = await ingest(chat)
    said = tuple(Said(m.id, m.role, m.text) for session in chat.sessions for m in session)
    return ChatBeliefs(chat.id, Passport.from_dict(done.user.document()), said)


def items_of(chat: ChatBeliefs) -> list[Item]:
    """Every belief of a chat's passport, instructions and values included, with its reference."""
    cid, p = chat.id, chat.passport
    items = belief_items(cid, p, chat.messages)
    for i in p.instructions:
        turn = first_turn(i.to_dict())
        items.append(Item(cid, turn, "instruction", i.key, short_hash(i.text), i.text))
    for v in p.values:
        # The current value and each one it replaced are judged on their own messages.
        for entry in [v.to_dict(), *v.history]:
            said = str(entry.get("value", ""))
            shown = f"{v.about}: {said}"
            items.append(Item(cid, first_turn(entry), "value", v.key, short_hash(said), shown))
    return items


def chats_of(data: Path) -> list[ChatBeliefs]:
    """Every chat under ``data``, ingested."""
    return [asyncio.run(extract(chat)) for chat in load(data)]


def messages_by_ref(chats: Sequence[ChatBeliefs]) -> dict[tuple[str, str], Said]:
    """Each message by (chat, message id)."""
    return {(c.id, m.id): m for c in chats for m in c.messages}
