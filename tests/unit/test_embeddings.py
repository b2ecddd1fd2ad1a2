"""Embedding models: the local one on CPU, an OpenAI-compatible endpoint over its real wire format,
the vectors an index holds, and a read that goes on when the model fails."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace

import httpx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.adapters.embeddings import EmbeddingError, make_embedder, parse_spec
from app.adapters.embeddings.openai_compatible import RESTING_SECONDS, OpenAIEmbedder
from app.adapters.embeddings.static import StaticEmbedder
from app.domain.context import EvidenceIndex, TurnRecord
from app.domain.context.index import segment_of
from app.domain.context.records import records_of
from app.domain.context.segment_checks import records_differ
from app.domain.context.segments import Segment, decode, encode, merged
from app.domain.context.vectors import Embedding, PassageVectors, Vectors
from app.services.embedding import catch_up, question_vector
from tests.unit.test_context_budget import chat

LOCAL = StaticEmbedder()


def test_the_local_model_puts_a_paraphrase_nearer_than_an_unrelated_sentence() -> None:
    said, asked, other = LOCAL.vectors(
        ["we adopted a greyhound from the shelter", "what dog do I have", "filing my taxes late"]
    )
    assert float(said @ asked) > float(other @ asked) + 0.1
    assert np.linalg.norm(said) == pytest.approx(1.0, abs=1e-5)


@given(st.lists(st.text(max_size=300), max_size=12))
@settings(max_examples=60, deadline=None)
def test_any_text_gets_a_finite_unit_vector_or_zeros(texts: list[str]) -> None:
    rows = LOCAL.vectors(texts)
    assert rows.shape == (len(texts), LOCAL.dim)
    norms = np.linalg.norm(rows, axis=1)
    assert np.isfinite(rows).all()
    assert all(n == pytest.approx(1.0, abs=1e-4) or n == 0.0 for n in norms)


def test_a_long_adversarial_text_embeds_like_its_parts_summed() -> None:
    # One pathological input (a single "word" of a million characters, then repeats) is read in
    # one pass: the tokenizer and the sum are linear in it.
    odd = "a" * 1_000_000 + " ab" * 100_000
    assert np.isfinite(LOCAL.vectors([odd])).all()


def test_specs_name_off_local_or_an_openai_compatible_model() -> None:
    assert parse_spec("off") == ("off", "")
    assert parse_spec(" Local ") == ("local", "")
    assert parse_spec("openai:nomic-embed-text") == ("openai", "nomic-embed-text")
    for bad in ("", "openai", "openai:", "cohere:embed", "bert"):
        with pytest.raises(ValueError, match="embeddings"):
            parse_spec(bad)
    assert make_embedder("off") is None
    assert isinstance(make_embedder("local"), StaticEmbedder)


# --- an OpenAI-compatible endpoint ----------------------------------------------------------------


def endpoint(
    answer: object = None, status: int = 200, seen: list[httpx.Request] | None = None
) -> httpx.AsyncClient:
    """A client whose server answers /v1/embeddings as OpenAI does (vectors in shuffled order)."""

    def reply(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        body = json.loads(request.content)
        if answer is not None:
            return httpx.Response(status, json=answer)
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
            for i, t in enumerate(body["input"])
        ]
        usage = {"prompt_tokens": 3, "total_tokens": 3}
        payload = {"object": "list", "data": data[::-1], "model": body["model"], "usage": usage}
        return httpx.Response(status, json=payload)

    return httpx.AsyncClient(transport=httpx.MockTransport(reply))


async def test_an_openai_compatible_endpoint_is_asked_as_its_api_says_and_read_in_index_order() -> (
    None
):
    seen: list[httpx.Request] = []
    model = OpenAIEmbedder(
        "nomic-embed-text",
        base_url="http://ollama.local:11434/v1/",
        api_key="sk-test",
        http_client=endpoint(seen=seen),
    )
    rows = await model.embed(["a", "abc"])
    request = seen[0]
    assert str(request.url) == "http://ollama.local:11434/v1/embeddings"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert json.loads(request.content) == {
        "model": "nomic-embed-text",
        "input": ["a", "abc"],
        "encoding_format": "float",
    }
    # Unit length, and each row its own text's though the server answered them reversed.
    assert rows[0] == pytest.approx(np.array([1, 1, 0]) / np.sqrt(2))
    assert rows[1] == pytest.approx(np.array([3, 1, 0]) / np.sqrt(10))
    assert model.model == "openai:nomic-embed-text"


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ({"error": {"message": "invalid api key", "type": "auth"}}, 401),
        ({"error": {"message": "overloaded"}}, 503),
        ({"object": "list", "data": []}, 200),
        ({"object": "list", "data": [{"index": 0, "embedding": ["x"]}]}, 200),
        ("not json at all", 200),
    ],
)
async def test_a_refusal_or_a_reply_without_vectors_is_an_embedding_error(
    answer: object, status: int
) -> None:
    model = OpenAIEmbedder("m", http_client=endpoint(answer, status))
    with pytest.raises(EmbeddingError):
        await model.embed(["hello"])


async def test_an_unreachable_endpoint_is_an_embedding_error() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(down))
    with pytest.raises(EmbeddingError, match="unreachable"):
        await OpenAIEmbedder("m", http_client=client).embed(["hello"])


async def test_a_failing_model_leaves_the_question_without_a_vector() -> None:
    model = OpenAIEmbedder("m", http_client=endpoint({"error": "down"}, 500))
    assert await question_vector(model, "what dog do I have") is None
    assert await question_vector(None, "anything") is None
    assert await question_vector(LOCAL, "   ") is None


# --- the vectors an index holds -------------------------------------------------------------------


def test_passage_vectors_are_unit_length_and_of_one_size() -> None:
    vectors = PassageVectors("m", 2)
    vectors.extend(np.array([[3.0, 4.0], [0.0, 0.0]]))
    vectors.extend(np.array([[0.0, 2.0]]))
    assert len(vectors) == 3 and vectors.matrix().shape == (3, 2)
    assert vectors.cosine(np.array([0.0, 5.0])).tolist() == pytest.approx([0.8, 0.0, 1.0], 1e-3)
    with pytest.raises(ValueError):
        vectors.extend(np.ones((1, 3)))
    with pytest.raises(ValueError):
        vectors.cosine(np.ones(3))


class Counting:
    """The local model, counting the texts it embeds and yielding to the loop on each call."""

    model = LOCAL.model

    def __init__(self) -> None:
        self.texts = 0

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts += len(texts)
        await asyncio.sleep(0)
        return LOCAL.vectors(texts)

    async def aclose(self) -> None:
        return None


async def test_catching_up_embeds_each_new_passage_once_even_when_two_reads_race() -> None:
    index = EvidenceIndex(chat([("Ana", "we adopted a greyhound"), ("Ben", "nice, what name?")]))
    model = Counting()
    added = await asyncio.gather(catch_up(index, model), catch_up(index, model))
    assert sorted(added) == [0, 2]
    assert index.vectors is not None and len(index.vectors) == index.n_passages == 2
    later = replace(chat([("Ana", "we named him Biscuit")])[0], id="row9", turn_id="t9", position=9)
    index.extend([later])
    assert await catch_up(index, model) == 1 and len(index.vectors) == 3
    assert await catch_up(index, model) == 0


async def test_vectors_of_another_model_are_made_again_not_compared() -> None:
    index = EvidenceIndex(chat([("Ana", "we adopted a greyhound")]))
    index.vectors = PassageVectors("an older model", 3)
    index.vectors.extend(np.ones((1, 3)))
    assert await catch_up(index, LOCAL) == 1
    assert index.vectors.model == LOCAL.model and index.vectors.dim == LOCAL.dim


# --- vectors in the stored index ------------------------------------------------------------------


def records(lines: list[tuple[str, str]], first: int) -> list[TurnRecord]:
    """Turns of ``lines`` at log positions from ``first`` on."""
    return [
        replace(r, id=f"row{first + i}", turn_id=f"t{first + i}", position=first + i)
        for i, r in enumerate(chat(lines))
    ]


MODEL = Embedding(LOCAL.model, LOCAL.vectors)
FIRST = records([("Ana", "we adopted a greyhound"), ("Bo", "what is his name?")], 0)
SECOND = records([("Ana", "Biscuit, he is three")], 2)
THIRD = records([("Bo", "a fine name for a dog")], 3)


def test_a_segment_round_trips_its_vectors_and_a_merge_keeps_the_prefix_one_model_made() -> None:
    with_model = decode(encode(segment_of(FIRST, MODEL)))
    held = with_model.vectors()
    assert held is not None and held[0] == LOCAL.model and held[1].shape == (2, LOCAL.dim)
    assert np.allclose(
        held[1], LOCAL.vectors(["we adopted a greyhound", "what is his name?"]), atol=1e-3
    )
    # A part without vectors (a write no local model embedded) ends the prefix: the passages
    # after it are embedded when the index is loaded.
    merged_parts = decode(
        encode(merged([with_model, segment_of(SECOND), segment_of(THIRD, MODEL)]))
    )
    kept = merged_parts.vectors()
    assert kept is not None and kept[1].shape == (2, LOCAL.dim)
    assert decode(encode(merged([segment_of(SECOND), with_model]))).vectors() is None
    other = segment_of(SECOND, Embedding("another model", LOCAL.vectors))
    assert merged([with_model, other]).vectors()[1].shape[0] == 2  # type: ignore[index]


async def test_an_index_loaded_from_segments_embeds_only_the_passages_they_lack() -> None:
    parts = [segment_of(FIRST, MODEL), segment_of(SECOND), segment_of(THIRD, MODEL)]
    index = EvidenceIndex.of_segments([decode(encode(p)) for p in parts])
    assert index.vectors is not None and len(index.vectors) == 2
    model = Counting()
    assert await catch_up(index, model) == 2 and model.texts == 2
    whole = EvidenceIndex(FIRST + SECOND + THIRD)
    await catch_up(whole, LOCAL)
    assert np.allclose(index.vectors.matrix(), whole.vectors.matrix(), atol=1e-3)  # type: ignore[union-attr]


def test_a_segment_whose_vectors_do_not_fit_its_passages_is_not_read() -> None:
    segment = segment_of(FIRST, MODEL)
    for said, flat in (
        ([LOCAL.model, LOCAL.dim], np.zeros(3 * LOCAL.dim)),  # more rows than passages
        ([LOCAL.model, 7], np.zeros(10)),  # not whole rows
        ([], np.zeros(4)),  # vectors without a model
        ([LOCAL.model], np.zeros(0)),
    ):
        bad = Segment(
            {**segment.numbers, "vectors": flat}, {**segment.texts, "vector_model": said}, ()
        )
        with pytest.raises(ValueError, match="damaged"):
            decode(encode(bad))


def test_the_integrity_check_finds_vectors_that_are_not_what_the_model_makes() -> None:
    rows = [
        (r.position, "turn", {"id": r.turn_id, "speaker": r.speaker, "text": r.text, "ts": r.ts})
        for r in FIRST
    ]
    body = encode(segment_of(records_of(rows), MODEL))
    assert records_differ(body, rows, MODEL) is None
    assert records_differ(body, rows) is None  # without the model, vectors are not read
    segment = decode(body)
    wrong = segment.numbers["vectors"].copy()
    wrong[:3] = -wrong[:3]
    tampered = encode(
        Segment({**segment.numbers, "vectors": wrong}, segment.texts, segment.episodes)
    )
    why = records_differ(tampered, rows, MODEL)
    assert why is not None and "vectors" in why
    # Another model's vectors are not judged by this one.
    assert records_differ(tampered, rows, Embedding("another model", LOCAL.vectors)) is None


async def test_a_failed_endpoint_is_not_asked_again_until_it_has_rested() -> None:
    now = [0.0]
    seen: list[httpx.Request] = []
    model = OpenAIEmbedder(
        "m", http_client=endpoint({"error": "down"}, 503, seen), clock=lambda: now[0]
    )
    for _ in range(3):  # one failed call, then refusals that cost no request
        with pytest.raises(EmbeddingError):
            await model.embed(["hello"])
    assert len(seen) == 1
    now[0] += RESTING_SECONDS + 1
    with pytest.raises(EmbeddingError):
        await model.embed(["hello"])
    assert len(seen) == 2
