"""TesseraSession and the memory tools in a real OpenAI Agents SDK run, against a live Tessera.

The model is the SDK's own Chat Completions model on an OpenAI client whose HTTP transport
answers in the Chat Completions wire format from a script (no key, no network); the Runner,
the session protocol and the tools are the real library's.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from tessera import Tessera
from tessera.integrations.openai_agents import TesseraSession, memory_tools
from tests.integration.live import api_and_worker, tenant_key

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ADMIN_TOKEN = "agents-admin-token"
EXAMPLE = Path(__file__).resolve().parents[2] / "sdk" / "python" / "examples" / "openai_agents.py"


@pytest.fixture(scope="module")
def url(settings, tmp_path_factory) -> Iterator[str]:  # type: ignore[no-untyped-def]
    set_tracing_disabled(True)  # the SDK would send traces to OpenAI
    logs = tmp_path_factory.mktemp("agents")
    with api_and_worker(settings, logs, "tessera-agents", ADMIN_TOKEN) as u:
        yield u


@pytest.fixture
def key(url: str) -> str:
    return tenant_key(url, ADMIN_TOKEN, "agents")


class ScriptedChat:
    """A Chat Completions endpoint answering from a script, keeping each request's messages."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.requests: list[list[dict[str, Any]]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        self.requests.append(json.loads(request.content)["messages"])
        message = self.replies.pop(0)
        reason = "tool_calls" if message.get("tool_calls") else "stop"
        body = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
        return httpx.Response(200, json=body)

    def model(self) -> OpenAIChatCompletionsModel:
        """The SDK's Chat Completions model, on this endpoint."""
        http = httpx.AsyncClient(transport=httpx.MockTransport(self))
        client = AsyncOpenAI(api_key="unused", base_url="http://model.test/v1", http_client=http)
        return OpenAIChatCompletionsModel(model="scripted", openai_client=client)


def _say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def _call(name: str, **arguments: str) -> dict[str, Any]:
    call = {"name": name, "arguments": json.dumps(arguments)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": f"call_{name}", "type": "function", "function": call}],
    }


def test_a_session_keeps_the_conversation_in_tessera(url: str, key: str) -> None:
    chat = ScriptedChat([_say("Lisbon is lovely in spring!"), _say("You moved to Lisbon.")])
    agent = Agent(name="helper", instructions="Be brief.", model=chat.model())

    async def run() -> tuple[list[Any], Any, list[Any]]:
        session = TesseraSession("ana", "chat-7", url=url, key=key)
        first = await Runner.run(agent, "I just moved to Lisbon.", session=session)
        assert first.final_output == "Lisbon is lovely in spring!"
        second = await Runner.run(agent, "Where did I move?", session=session)
        assert second.final_output == "You moved to Lisbon."
        kept = await session.get_items()
        last = await session.get_items(limit=1)
        popped = await session.pop_item()
        after = await session.get_items()
        await session.clear_session()
        cleared = await session.get_items()
        await session.close()
        return kept, (last, popped, after), cleared

    kept, (last, popped, after), cleared = asyncio.run(run())
    # The second run's model saw the first exchange: the history came back from Tessera.
    seen = [(m["role"], m["content"]) for m in chat.requests[1] if m["role"] != "system"]
    assert seen == [
        ("user", "I just moved to Lisbon."),
        ("assistant", "Lisbon is lovely in spring!"),
        ("user", "Where did I move?"),
    ]
    assert [(i["role"], i["content"]) for i in kept] == [
        *seen,
        ("assistant", "You moved to Lisbon."),
    ]
    assert last == kept[-1:] and popped == kept[-1] and after == kept[:-1]
    assert cleared == []
    with Tessera(url, key) as memory:
        # Forgotten everywhere: the popped answer and the cleared session are nowhere now.
        assert memory.sessions("ana") == []
        assert memory.versions("ana")[0].cause == "forget"


def test_the_memory_tools_remember_and_recall(url: str, key: str) -> None:
    chat = ScriptedChat(
        [
            _call("remember", note="The user is allergic to peanuts."),
            _say("I will keep that in mind."),
            _call("recall", question="What is the user allergic to?"),
            _say("Peanuts."),
        ]
    )
    agent = Agent(
        name="helper",
        instructions="Use your memory.",
        model=chat.model(),
        tools=memory_tools("bo", url=url, key=key),
    )

    async def run() -> tuple[str, str]:
        first = await Runner.run(agent, "Please note: I'm allergic to peanuts.")
        second = await Runner.run(agent, "What am I allergic to?")
        return first.final_output, second.final_output

    assert asyncio.run(run()) == ("I will keep that in mind.", "Peanuts.")
    stored = [m for m in chat.requests[1] if m["role"] == "tool"]
    assert stored and stored[0]["content"] == "remembered"
    recalled = [m for m in chat.requests[3] if m["role"] == "tool"]
    assert recalled and "peanuts" in recalled[0]["content"].lower()


def test_a_tool_call_in_the_history_comes_back_whole(url: str, key: str) -> None:
    chat = ScriptedChat([_call("recall", question="anything?"), _say("Nothing yet.")])
    agent = Agent(name="helper", model=chat.model(), tools=memory_tools("cy", url=url, key=key))

    async def run() -> list[Any]:
        session = TesseraSession("cy", "chat-1", url=url, key=key)
        await Runner.run(agent, "What do you know about me?", session=session)
        items = await session.get_items()
        await session.close()
        return items

    items = asyncio.run(run())
    kinds = [i.get("type", "message") for i in items]
    assert kinds == ["message", "function_call", "function_call_output", "message"]
    assert items[1]["name"] == "recall" and items[2]["call_id"] == items[1]["call_id"]


def test_the_example_runs_as_written(url: str, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESSERA_URL", url)
    monkeypatch.setenv("TESSERA_API_KEY", key)
    spec = importlib.util.spec_from_file_location("agents_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    chat = ScriptedChat([_say("Noted: Thursdays."), _say("On Thursdays.")])
    answers = asyncio.run(example.main(model=chat.model(), user="dee"))
    assert answers == ["Noted: Thursdays.", "On Thursdays."]
    assert "Thursdays" in json.dumps(chat.requests[1])
