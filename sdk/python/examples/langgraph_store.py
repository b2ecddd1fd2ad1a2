"""A LangGraph graph whose long-term memory is Tessera: run it beside `make dev`.

    pip install './sdk/python[langgraph]'
    TESSERA_API_KEY=$(cat .tessera/dev-api-key) python sdk/python/examples/langgraph_store.py

The graph reads back what the user said before that bears on the new message, then keeps the
message (one store item each). No model is called: a real agent would put the recalled notes
in its prompt.
"""

from __future__ import annotations

import sys
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from tessera.integrations.langgraph import TesseraStore


class Turn(TypedDict, total=False):
    user: str
    said: str
    recalled: list[str]


def keep(state: Turn, *, store: BaseStore) -> Turn:
    """Store what the user said, in their "notes" section."""
    notes = (state["user"], "notes")
    store.put(notes, f"note-{len(store.search(notes, limit=100))}", {"text": state["said"]})
    return {}


def recall(state: Turn, *, store: BaseStore) -> Turn:
    """Read back the notes that bear on what the user said, best first."""
    found = store.search((state["user"], "notes"), query=state["said"], limit=3)
    return {"recalled": [item.value["text"] for item in found]}


def main(user: str = "example-user") -> list[str]:
    """Run the graph over two messages; what the second recalled."""
    graph = StateGraph(Turn)
    graph.add_node("keep", keep)
    graph.add_node("recall", recall)
    graph.add_edge(START, "recall")  # what was said before, then keep this message
    graph.add_edge("recall", "keep")
    graph.add_edge("keep", END)
    store = TesseraStore()  # TESSERA_URL (default http://127.0.0.1:8000), TESSERA_API_KEY
    app = graph.compile(store=store)
    app.invoke({"user": user, "said": "My daughter starts violin lessons on Tuesdays."})
    out = app.invoke({"user": user, "said": "When are the violin lessons?"})
    store.close()
    return list(out["recalled"])


if __name__ == "__main__":
    for note in main(*sys.argv[1:]):
        print(note)
