"""Semantic recall over HTTP: with the local embedding model on, a question that shares no content
word with the turn that answers it still gets that turn; with it off (the default) it does not."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx
import numpy as np
import psycopg
import pytest

from app.domain.context.segment_checks import segment_digest
from app.domain.context.segments import Segment, decode, encode
from app.services import reading
from app.services.stored_index import FANOUT
from tests.conftest import _libpq, make_tenant
from tests.integration.test_stored_index import (
    api_starter,
    contexts,
    segments,
    whole_log_reads,
    write,
)

pytestmark = pytest.mark.integration

ANSWER = "Last spring we adopted a greyhound from the rescue shelter."
QUESTION = "What kind of dog do I have?"
# Later turns that share no word with either, and one that shares a word with the question
# only, so a reading by words alone has something else to show.
LATER = [
    *(
        f"Reminder {i}: the quarterly report draft needs section {i} reviewed by Friday."
        for i in range(30)
    ),
    "I have a meeting with the accountant on Tuesday.",
]


@pytest.fixture
async def semantic(settings: Any) -> AsyncIterator[httpx.AsyncClient]:
    """A client on an API process with ``TESSERA_EMBEDDINGS=local``."""
    from app.main import create_app

    application = create_app(settings.model_copy(update={"embeddings": "local"}))
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as c:
            yield c


async def test_a_paraphrased_question_finds_its_answer_only_with_embeddings_on(
    client: httpx.AsyncClient, semantic: httpx.AsyncClient, worker: Any
) -> None:
    tenant = await make_tenant(semantic, "semantic")
    turns = [{"id": "t0", "speaker": "Ana", "text": ANSWER}] + [
        {"id": f"t{i + 1}", "speaker": "Ana" if i % 2 else "Bo", "text": text}
        for i, text in enumerate(LATER)
    ]
    session = {"subject": "Ana", "session_ts": "2024-03-01T10:00:00Z", "turns": turns}
    done = await semantic.post(
        "/users/sem-ana/ingest?wait=20", json=session, headers=tenant.headers
    )
    assert done.status_code == 200 and done.json()["job"]["status"] == "done", done.text
    ask = {"q": QUESTION, "budget_chars": 400}

    on = await semantic.get("/users/sem-ana/context", params=ask, headers=tenant.headers)
    assert on.status_code == 200
    assert "greyhound" in on.text
    found = await semantic.get(
        "/users/sem-ana/search", params={"q": QUESTION}, headers=tenant.headers
    )
    assert found.json()["items"][0]["turn_ids"] == ["t0"]

    off = await client.get("/users/sem-ana/context", params=ask, headers=tenant.headers)
    assert off.status_code == 200
    assert "greyhound" not in off.text and "accountant" in off.text


async def test_a_forgotten_turn_is_found_by_no_vector_and_no_export_holds_vectors(
    semantic: httpx.AsyncClient, worker: Any
) -> None:
    tenant = await make_tenant(semantic, "semantic-forget")
    turns = [{"id": "t0", "speaker": "Ana", "text": ANSWER}] + [
        {"id": f"t{i + 1}", "speaker": "Bo", "text": text} for i, text in enumerate(LATER[:10])
    ]
    session = {"subject": "Ana", "session_ts": "2024-03-01T10:00:00Z", "turns": turns}
    done = await semantic.post("/users/sem-bo/ingest?wait=20", json=session, headers=tenant.headers)
    assert done.json()["job"]["status"] == "done", done.text
    ask = {"q": QUESTION, "budget_chars": 400}
    before = await semantic.get("/users/sem-bo/context", params=ask, headers=tenant.headers)
    assert "greyhound" in before.text  # the index and its vectors are held now

    gone = await semantic.delete("/users/sem-bo/turns/t0", headers=tenant.headers)
    assert gone.status_code == 200, gone.text
    # The receipt counts the vectors the process let go of: one per passage of the 11 turns.
    assert gone.json()["receipt"]["removed"]["index_vectors"] >= len(turns)
    after = await semantic.get("/users/sem-bo/context", params=ask, headers=tenant.headers)
    assert after.status_code == 200 and "greyhound" not in after.text
    found = await semantic.get(
        "/users/sem-bo/search", params={"q": QUESTION}, headers=tenant.headers
    )
    assert all(hit["turn_ids"] != ["t0"] for hit in found.json()["items"])
    # Vectors are derived: an export is the passport, without them.
    export = await semantic.get("/users/sem-bo/passport", headers=tenant.headers)
    assert export.status_code == 200 and "vector" not in export.text.lower()


@asynccontextmanager
async def worker_of(settings: Any) -> AsyncIterator[None]:
    """An arq worker of ``settings`` running in this event loop while the block runs."""
    from workers.main import build_worker

    running = build_worker(settings)
    running.handle_signals = False  # type: ignore[attr-defined]
    task = asyncio.create_task(running.async_run())
    try:
        yield
    finally:
        task.cancel()
        await running.close()


async def test_the_stored_index_carries_the_vectors_so_a_started_process_embeds_nothing(
    settings: Any, database_url: str
) -> None:
    on = settings.model_copy(
        update={"embeddings": "local", "queue_name": f"semantic:{uuid.uuid4().hex[:8]}"}
    )
    async with worker_of(on), api_starter(on) as start:
        api, _ = await start()
        tenant = await make_tenant(api, "semantic-stored")
        assert await write(api, "sem-kim", 1, tenant.headers) == 1
        # The first read builds from the log and stores the base, with its vectors; the writes
        # after it store segments whose vectors the worker made.
        await contexts(api, "sem-kim", tenant.headers)
        for n in range(2, 2 + FANOUT + 2):
            await write(api, "sem-kim", n, tenant.headers)
        stored = [decode(body) for *_, body in segments(database_url, "sem-kim")]
        assert len(stored) > 1
        for part in stored:
            held = part.vectors()
            assert held is not None and held[0] == "wordllama-l2-supercat-256"
            assert held[1].shape == (part.passages, 256)

        later, application = await start()
        reads = whole_log_reads(application)
        made: list[int] = []
        caches = application.state.runtime.caches
        model = caches.embedder
        assert model is not None
        original = model.embed

        async def counted(texts: Sequence[str]) -> Any:
            made.append(len(texts))
            return await original(texts)

        model.embed = counted  # type: ignore[method-assign]
        got = await later.get(
            "/users/sem-kim/context", params={"q": "Which dog did I adopt?"}, headers=tenant.headers
        )
        assert got.status_code == 200
        assert reads == []  # loaded from the stored index, not the log
        assert made == [1]  # the question only: every passage's vector came stored
        held = caches.indexes.peek(uuid.UUID(tenant.id), "sem-kim")
        assert held is not None and held.index.evidence.vectors is not None
        assert len(held.index.evidence.vectors) == held.index.evidence.n_passages


def similar(memory: dict[str, Any]) -> bool:
    """Whether a context's memory was ranked with some similarity to the question."""
    why = memory.get("why")
    return bool(why) and why["features"]["similarity"]["value"] > 0


async def test_a_model_turned_on_embeds_a_stored_index_in_the_background_and_stores_it(
    client: httpx.AsyncClient,
    worker: Any,
    settings: Any,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tenant = await make_tenant(client, "semantic-turned-on")
    for n in range(1, 4):
        await write(client, "sem-lee", n, tenant.headers)
    await contexts(client, "sem-lee", tenant.headers)  # a base without vectors is stored
    assert all(decode(body).vectors() is None for *_, body in segments(database_url, "sem-lee"))
    # As for a user too long to embed during a read: every one of this one's passages.
    monkeypatch.setattr(reading, "READ_EMBEDS", 0)

    on = settings.model_copy(update={"embeddings": "local"})
    async with api_starter(on) as start:
        first, application = await start()
        reads = whole_log_reads(application)
        ask = {"q": "Which port does the build server use?", "format": "json"}
        url = "/users/sem-lee/context"
        before = (await first.get(url, params=ask, headers=tenant.headers)).json()
        assert reads == []  # served at once from the stored index, without similarity
        assert before["memories"] and not any(similar(m) for m in before["memories"])
        for _ in range(100):  # embedded and stored again in the background
            stored = [decode(body) for *_, body in segments(database_url, "sem-lee")]
            if stored and all(part.vectors() is not None for part in stored):
                break
            await asyncio.sleep(0.05)
        assert all(part.vectors() is not None for part in stored)
        # The same question again is ranked with similarity: the answer without it was not kept.
        after = (await first.get(url, params=ask, headers=tenant.headers)).json()
        assert any(similar(m) for m in after["memories"])
        second, application = await start()
        reads = whole_log_reads(application)
        caches = application.state.runtime.caches
        await contexts(second, "sem-lee", tenant.headers)
        assert reads == []
        held = caches.indexes.peek(uuid.UUID(tenant.id), "sem-lee")
        assert reading.lacking_vectors(caches, held.index) == 0


async def test_integrity_finds_stored_vectors_edited_with_their_digest_recomputed(
    semantic: httpx.AsyncClient, worker: Any, database_url: str
) -> None:
    tenant = await make_tenant(semantic, "semantic-integrity")
    h = tenant.headers
    await write(semantic, "sem-rob", 0, h)
    await contexts(semantic, "sem-rob", h)  # the base, with its vectors, is stored
    whole = (await semantic.get("/users/sem-rob/integrity", headers=h)).json()
    assert whole["valid"] is True and whole["index_segments"] == 1, whole
    with psycopg.connect(_libpq(database_url)) as db:
        to_version, body, root = db.execute(
            "SELECT s.to_version, s.body, v.hash FROM index_segment s JOIN passport_version v"
            " ON v.tenant_id = s.tenant_id AND v.user_key = s.user_key"
            " AND v.version = s.to_version WHERE s.user_key = 'sem-rob'"
        ).fetchone()
        part = decode(bytes(body))
        turned = -np.asarray(part.numbers["vectors"])  # every vector pointing the other way
        forged = encode(Segment({**part.numbers, "vectors": turned}, part.texts, part.episodes))
        db.execute(
            "UPDATE index_segment SET body = %s, digest = %s"
            " WHERE user_key = 'sem-rob' AND to_version = %s",
            (forged, segment_digest(root, forged), to_version),
        )
    found = (await semantic.get("/users/sem-rob/integrity", headers=h)).json()
    assert found["valid"] is False and "vectors" in found["reason"], found
