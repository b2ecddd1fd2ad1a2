"""TesseraStore: LangGraph's store API, and a compiled graph, reading and writing through Tessera.

A live API and worker (real Postgres, Redis and migrations) serve the store; LangGraph is the
real library. No model is involved: the graph's nodes use the store directly.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError

from tessera import Tessera
from tessera.integrations.langgraph import TesseraStore
from tests.integration.live import api_and_worker, tenant_key

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ADMIN_TOKEN = "langgraph-admin-token"
EXAMPLE = Path(__file__).resolve().parents[2] / "sdk" / "python" / "examples" / "langgraph_store.py"


@pytest.fixture(scope="module")
def url(settings, tmp_path_factory) -> Iterator[str]:  # type: ignore[no-untyped-def]
    with api_and_worker(settings, tmp_path_factory.mktemp("lg"), "tessera-lg", ADMIN_TOKEN) as u:
        yield u


@pytest.fixture
def key(url: str) -> str:
    return tenant_key(url, ADMIN_TOKEN, "langgraph")


def test_put_get_search_list_and_delete(url: str, key: str) -> None:
    store = TesseraStore(url, key)
    where = ("ada", "memories")
    store.put(where, "food", {"likes": "spicy ramen", "times": 3})
    store.put(where, "pet", {"kind": "grey cat", "name": "Pixel"})
    store.put(("ada", "projects", "home"), "shed", {"task": "paint the garden shed"})

    item = store.get(where, "food")
    assert item is not None
    assert (item.key, item.namespace) == ("food", where)
    assert item.value == {"likes": "spicy ramen", "times": 3}
    store.put(where, "food", {"likes": "miso soup", "times": 4})  # replaced, not added
    replaced = store.get(where, "food")
    assert replaced is not None and replaced.value == {"likes": "miso soup", "times": 4}
    assert store.get(where, "nothing") is None
    assert store.get(("nobody", "memories"), "food") is None

    listed = store.search(where)
    assert sorted(i.key for i in listed) == ["food", "pet"]
    assert sorted(i.key for i in store.search(("ada",), limit=10)) == ["food", "pet", "shed"]
    ranked = store.search(where, query="what is the cat called")
    assert ranked[0].key == "pet" and ranked[0].score is not None and ranked[0].score > 0
    assert [i.key for i in store.search(where, filter={"times": {"$gt": 3}})] == ["food"]
    assert store.search(where, filter={"name": "Rex"}) == []
    assert [i.key for i in store.search(where, limit=1, offset=1)] != [
        i.key for i in store.search(where, limit=1)
    ]

    assert store.list_namespaces() == [("ada", "memories"), ("ada", "projects", "home")]
    assert store.list_namespaces(prefix=("ada", "projects")) == [("ada", "projects", "home")]
    assert store.list_namespaces(suffix=("memories",)) == [("ada", "memories")]
    assert store.list_namespaces(max_depth=2) == [("ada", "memories"), ("ada", "projects")]

    # An item is a memory of the user like any other: the agent's context shows it...
    with Tessera(url, key) as memory:
        assert "Pixel" in memory.context("ada", "what is the cat called?")
        store.delete(where, "pet")
        assert store.get(where, "pet") is None
        # ...and a delete forgets it everywhere, with a receipt.
        assert "Pixel" not in memory.context("ada", "what is the cat called?")
        assert memory.versions("ada")[0].cause == "forget"
    store.close()


def test_the_async_store_agrees_and_the_user_can_stand_last(url: str, key: str) -> None:
    store = TesseraStore(url, key, user_at=-1)

    async def run() -> tuple[Any, Any, Any]:
        await store.aput(("notes", "bo"), "trip", {"to": "Lisbon", "month": "May"})
        got = await store.aget(("notes", "bo"), "trip")
        found = await store.asearch(("notes", "bo"), query="Lisbon trip")
        spaces = await store.alist_namespaces()
        await store.aclose()
        return got, found, spaces

    got, found, spaces = asyncio.run(run())
    assert got is not None and got.value == {"to": "Lisbon", "month": "May"}
    assert got.namespace == ("notes", "bo")
    assert [i.key for i in found] == ["trip"]
    assert spaces == [("notes", "bo")]
    assert store.get(("notes", "bo"), "trip") == got  # the sync path reads the same item
    with pytest.raises(InvalidNamespaceError):
        store.get((), "trip")


class Chat(TypedDict, total=False):
    user: str
    said: str
    recalled: list[str]


def remember(state: Chat, *, store: BaseStore) -> Chat:
    """A node that keeps what the user said, by LangGraph's store API."""
    store.put((state["user"], "said"), f"n{len(state['said'])}", {"text": state["said"]})
    return {}


def recall(state: Chat, *, store: BaseStore) -> Chat:
    """A node that reads back what bears on what the user said."""
    found = store.search((state["user"], "said"), query=state["said"], limit=3)
    return {"recalled": [item.value["text"] for item in found]}


def test_a_compiled_graph_reads_and_writes_through_tessera(url: str, key: str) -> None:
    graph = StateGraph(Chat)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", END)
    store = TesseraStore(url, key)
    app = graph.compile(store=store)

    out = app.invoke({"user": "cy", "said": "my sister's wedding is in Porto in June"})
    assert out["recalled"] == ["my sister's wedding is in Porto in June"]
    with Tessera(url, key) as memory:
        assert "Porto" in memory.context("cy", "where is the wedding?")
    store.close()


def test_the_example_runs_as_written(url: str, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESSERA_URL", url)
    monkeypatch.setenv("TESSERA_API_KEY", key)
    spec = importlib.util.spec_from_file_location("langgraph_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    recalled = example.main("dee")
    assert recalled[0] == "My daughter starts violin lessons on Tuesdays."
