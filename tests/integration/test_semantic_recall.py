"""Semantic recall over HTTP: with the local embedding model on, a question that shares no content
word with the turn that answers it still gets that turn; with it off (the default) it does not."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.conftest import make_tenant

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
    done = await semantic.post("/users/ana/ingest?wait=20", json=session, headers=tenant.headers)
    assert done.status_code == 200 and done.json()["job"]["status"] == "done", done.text
    ask = {"q": QUESTION, "budget_chars": 400}

    on = await semantic.get("/users/ana/context", params=ask, headers=tenant.headers)
    assert on.status_code == 200
    assert "greyhound" in on.text
    found = await semantic.get("/users/ana/search", params={"q": QUESTION}, headers=tenant.headers)
    assert found.json()["items"][0]["turn_ids"] == ["t0"]

    off = await client.get("/users/ana/context", params=ask, headers=tenant.headers)
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
    done = await semantic.post("/users/bo/ingest?wait=20", json=session, headers=tenant.headers)
    assert done.json()["job"]["status"] == "done", done.text
    ask = {"q": QUESTION, "budget_chars": 400}
    before = await semantic.get("/users/bo/context", params=ask, headers=tenant.headers)
    assert "greyhound" in before.text  # the index and its vectors are held now

    gone = await semantic.delete("/users/bo/turns/t0", headers=tenant.headers)
    assert gone.status_code == 200, gone.text
    after = await semantic.get("/users/bo/context", params=ask, headers=tenant.headers)
    assert after.status_code == 200 and "greyhound" not in after.text
    found = await semantic.get("/users/bo/search", params={"q": QUESTION}, headers=tenant.headers)
    assert all(hit["turn_ids"] != ["t0"] for hit in found.json()["items"])
    # Vectors are derived: an export is the passport, without them.
    export = await semantic.get("/users/bo/passport", headers=tenant.headers)
    assert export.status_code == 200 and "vector" not in export.text.lower()
