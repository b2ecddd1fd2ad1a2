"""The MCP endpoint through the SDK's own client, over real HTTP, against a live server.

One `tessera api` and one `tessera worker` subprocess on this run's database and Redis. Each
test connects as a tenant of its own, as an agent framework would: Streamable HTTP at /mcp,
the tenant's key as a Bearer token.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent, TextResourceContents

from tests.integration.live import free_port, service_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ADMIN_TOKEN = "mcp-admin-token"
TOOLS = {"remember", "recall", "search", "get_beliefs", "forget", "verify", "job_status"}
MELANIE = [
    {"speaker": "Melanie", "text": "I moved to Kwekwe last week for a new job.", "id": "m1"},
    {"speaker": "Caroline", "text": "Congrats! How is it going?", "id": "m2"},
    {"speaker": "Melanie", "text": "I ran a charity race for mental health yesterday.", "id": "m3"},
]


@dataclass
class Live:
    """A running API server and worker, and a way to make tenants on it."""

    url: str

    def new_key(self) -> str:
        """A fresh tenant's first API key."""
        created = httpx.post(
            f"{self.url}/admin/tenants",
            json={"name": f"mcp-{uuid.uuid4().hex[:6]}"},
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
            timeout=10,
        )
        assert created.status_code == 201, created.text
        key: str = created.json()["api_key"]["key"]
        return key

    def rest(self, key: str) -> httpx.Client:
        """A REST client holding a key."""
        return httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {key}"}, timeout=60
        )


@pytest.fixture(scope="module")
def live(settings, tmp_path_factory) -> Iterator[Live]:  # type: ignore[no-untyped-def]
    """`tessera api` on a free port and `tessera worker`, both on this run's servers."""
    logs = tmp_path_factory.mktemp("mcp-live")
    port = free_port()
    env = service_env(settings, logs, "tessera-mcp", ADMIN_TOKEN)
    base = [sys.executable, "-m", "app.cli.main"]
    commands = {"api": [*base, "api", "--port", str(port)], "worker": [*base, "worker"]}
    with serving(commands, env, logs, port) as url:
        yield Live(url=url)


@asynccontextmanager
async def connect(url: str, key: str, mode: str = "auto") -> AsyncIterator[Client]:
    """The SDK's client on /mcp, sending the key as a Bearer token."""
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {key}"}, timeout=httpx2.Timeout(30, read=120)
    )
    async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as c:
        yield c


def text_of(result: CallToolResult) -> str:
    """The text a tool answered with."""
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


def data_of(result: CallToolResult) -> Any:
    """The structured answer of a tool that succeeded."""
    assert not result.is_error, text_of(result)
    return result.structured_content


async def remember(client: Client, user: str, turns: list[dict[str, str]]) -> dict[str, Any]:
    """Ingest turns and wait for the outcome."""
    args = {"user": user, "turns": turns, "session_ts": "2023-05-08T13:56:00Z", "wait": 30}
    job: dict[str, Any] = data_of(await client.call_tool("remember", args))
    assert job["status"] == "done", job
    return job


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_lists_the_tools_with_schemas_and_the_passport_resource(live: Live, mode: str):
    """Both the 2026 discovery and the initialize handshake (what desktop clients send)."""
    async with connect(live.url, live.new_key(), mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        templates = (await client.list_resource_templates()).resource_templates
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and "\n" not in tool.description, tool.name
        assert tool.input_schema["type"] == "object"
    assert set(tools["remember"].input_schema["properties"]) >= {"user", "turns", "text", "wait"}
    assert tools["recall"].input_schema["required"] == ["user", "query"]
    assert tools["recall"].input_schema["properties"]["budget_chars"]["minimum"] == 400
    assert tools["forget"].annotations is not None and tools["forget"].annotations.destructive_hint
    assert tools["recall"].annotations is not None and tools["recall"].annotations.read_only_hint
    assert [t.uri_template for t in templates] == ["passport://{user}"]


async def test_remember_then_recall_search_beliefs_and_the_job(live: Live):
    key = live.new_key()
    async with connect(live.url, key) as client:
        job = await remember(client, "mel", MELANIE)
        assert job["job"]["version_after"] >= 1
        status = data_of(await client.call_tool("job_status", {"job_id": job["job_id"]}))
        recalled = await client.call_tool(
            "recall", {"user": "mel", "query": "Where does Melanie live?", "budget_chars": 1200}
        )
        found = data_of(await client.call_tool("search", {"user": "mel", "query": "charity race"}))
        beliefs = data_of(await client.call_tool("get_beliefs", {"user": "mel"}))
        resource = await client.read_resource("passport://mel")
    assert status["status"] == "done" and status["job_id"] == job["job_id"]
    with live.rest(key) as rest:
        context = rest.get(
            "/users/mel/context", params={"q": "Where does Melanie live?", "budget_chars": 1200}
        )
        head = rest.get(
            "/users/mel/passport",
            params={"sections": "facts,prefs,entities,open_loops,contradictions,meta"},
        ).json()
    # The agent is told exactly what GET /context tells a REST client.
    assert not recalled.is_error
    assert text_of(recalled) == context.text
    assert "Kwekwe" in context.text
    said = [hit for hit in found["items"] if hit["kind"] == "turn"]
    assert said[0]["turn_ids"] == ["m3"] and "charity race" in said[0]["text"]
    assert said[0]["speaker"] == "Melanie" and said[0]["ts"].startswith("2023-05-08")
    assert beliefs == head
    assert any(f["value"] == "Kwekwe" for f in beliefs["facts"]), beliefs["facts"]
    (content,) = resource.contents
    assert isinstance(content, TextResourceContents)
    assert content.mime_type == "application/json"
    assert json.loads(content.text) == head


async def test_forget_removes_the_turn_everywhere_and_a_second_forget_is_refused(live: Live):
    key = live.new_key()
    async with connect(live.url, key) as client:
        await remember(client, "mel", MELANIE)
        gone = data_of(await client.call_tool("forget", {"user": "mel", "turn_id": "m3"}))
        found = data_of(await client.call_tool("search", {"user": "mel", "query": "charity race"}))
        recalled = text_of(
            await client.call_tool("recall", {"user": "mel", "query": "charity race"})
        )
        again = await client.call_tool("forget", {"user": "mel", "turn_id": "m3"})
        verified = data_of(await client.call_tool("verify", {"user": "mel"}))
    assert gone["turns"] == 1 and gone["version"] >= 2
    # The forget's receipt, signed for the key that asked; the chain still whole after it.
    assert gone["receipt"]["scope"] == "turn" and gone["receipt"]["target"] == "m3"
    assert gone["receipt"]["actor"] == key.split("_")[1]
    assert verified["valid"] is True and verified["root"] == gone["receipt"]["root"]
    assert all("m3" not in hit["turn_ids"] for hit in found["items"])
    assert "charity" not in recalled
    with live.rest(key) as rest:
        turns = rest.get("/users/mel/passport", params={"sections": "turns"}).json()["turns"]
        rest_again = rest.delete("/users/mel/turns/m3")
    assert [t["id"] for t in turns] == ["m1", "m2"]
    # The same refusal in the same words as the REST problem.
    assert again.is_error
    assert rest_again.status_code == 404
    assert rest_again.json()["detail"] in text_of(again)
    assert "Not found" in text_of(again)


async def test_a_wrong_or_missing_key_is_the_rest_401(live: Live):
    for headers, detail in (
        ({"Authorization": "Bearer tsr_nobodyhere_" + "x" * 40}, "unknown or revoked API key"),
        ({}, "send the key as 'Authorization: Bearer <key>'"),
    ):
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        async with httpx.AsyncClient(base_url=live.url, timeout=10) as http:
            answer = await http.post(
                "/mcp",
                json=body,
                headers={**headers, "Accept": "application/json, text/event-stream"},
            )
            rest = await http.get("/users", headers=headers)
        assert answer.status_code == rest.status_code == 401
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.headers["www-authenticate"] == "Bearer"
        assert answer.json()["detail"] == rest.json()["detail"] == detail
    # The SDK's client cannot even connect with it (it reports a non-JSON-RPC error answer
    # as a generic MCP error; the problem above is what curl or the server's log shows).
    with pytest.raises(BaseExceptionGroup) as refused:
        async with connect(live.url, "tsr_nobodyhere_" + "x" * 40) as client:
            await client.list_tools()
    assert refused.group_contains(MCPError)


async def test_a_tenant_reaches_only_its_own_users_and_jobs(live: Live):
    owner, other = live.new_key(), live.new_key()
    async with connect(live.url, owner) as client:
        job = await remember(client, "mel", MELANIE)
    async with connect(live.url, other) as client:
        recalled = await client.call_tool("recall", {"user": "mel", "query": "Kwekwe"})
        beliefs = await client.call_tool("get_beliefs", {"user": "mel"})
        forgotten = await client.call_tool("forget", {"user": "mel", "turn_id": "m1"})
        status = await client.call_tool("job_status", {"job_id": job["job_id"]})
        with pytest.raises(MCPError) as resource:
            await client.read_resource("passport://mel")
    with live.rest(other) as rest:
        problem = rest.get("/users/mel/context", params={"q": "Kwekwe"}).json()
        job_problem = rest.get(f"/jobs/{job['job_id']}").json()
    for result in (recalled, beliefs, forgotten):
        assert result.is_error
        assert text_of(result).endswith(f"Not found: {problem['detail']}")
    assert status.is_error and job_problem["detail"] in text_of(status)
    assert problem["detail"] in str(resource.value)
    # The owner's memory is untouched by the other tenant's forget.
    with live.rest(owner) as rest:
        turns = rest.get("/users/mel/passport", params={"sections": "turns"}).json()["turns"]
    assert [t["id"] for t in turns] == ["m1", "m2", "m3"]


async def test_bad_arguments_are_tool_errors_that_say_what_to_fix(live: Live):
    async with connect(live.url, live.new_key()) as client:
        empty = await client.call_tool("remember", {"user": "mel", "wait": 5})
        too_small = await client.call_tool(
            "recall", {"user": "mel", "query": "x", "budget_chars": 10}
        )
        no_user = await client.call_tool("recall", {"user": "", "query": "x"})
    assert empty.is_error and "nothing to ingest" in text_of(empty)
    assert too_small.is_error and "budget_chars" in text_of(too_small)
    assert no_user.is_error and "user" in text_of(no_user)


@pytest.mark.parametrize("levels", [300, 990, 5000])
async def test_json_nested_deep_at_mcp_is_refused_not_a_500(live: Live, levels: int):
    key = live.new_key()
    deep = '{"a":[' * levels + "1" + "]}" * levels
    body = '{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": ' + deep + "}"
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        answer = await http.post(
            "/mcp",
            content=body,
            headers={
                "Authorization": f"Bearer {key}",
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            },
        )
    assert answer.status_code in (400, 422), answer.text
