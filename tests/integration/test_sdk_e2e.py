"""The generated client (tessera_client) and the client commands against a live server.

One `tessera api` and one `tessera worker` subprocess, on this run's database and Redis, with a
queue of their own, serve every test here.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import tessera as sdk
from app.cli.main import main
from tessera_client import AuthenticatedClient
from tessera_client.api.admin import admin_create_tenant
from tessera_client.api.context import context_get_context
from tessera_client.api.ingest import ingest_ingest
from tessera_client.api.jobs import jobs_get_job
from tessera_client.api.users import (
    users_delete_user,
    users_get_passport,
    users_list_versions,
)
from tessera_client.models import (
    Accepted,
    ContextGetContextFormat,
    IngestPayload,
    JobOut,
    Passport,
    TenantCreate,
    TenantCreated,
    TurnIn,
    VersionPage,
)
from tests.integration.live import api_and_worker, free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ADMIN_TOKEN = "sdk-admin-token"
SDK_GUIDE = Path(__file__).resolve().parents[2] / "docs" / "sdk.md"


@dataclass
class Live:
    """A running API server and worker."""

    url: str

    def admin(self) -> AuthenticatedClient:
        """A client holding the admin token."""
        return AuthenticatedClient(base_url=self.url, token=ADMIN_TOKEN)

    def new_tenant_key(self, name: str) -> str:
        """Create a tenant through the admin API; its first API key."""
        with self.admin() as admin:
            created = admin_create_tenant.sync(client=admin, body=TenantCreate(name=name))
        assert isinstance(created, TenantCreated), created
        return created.api_key.key


@pytest.fixture(scope="module")
def live(settings, tmp_path_factory) -> Iterator[Live]:  # type: ignore[no-untyped-def]
    """`tessera api` on a free port and `tessera worker`, both on this run's servers."""
    logs = tmp_path_factory.mktemp("sdk-live")
    with api_and_worker(settings, logs, "tessera-sdk", ADMIN_TOKEN) as url:
        yield Live(url=url)


@pytest.fixture
def tenant_client(live: Live) -> Iterator[AuthenticatedClient]:
    """A client holding a fresh tenant's key."""
    key = live.new_tenant_key(f"sdk-{uuid.uuid4().hex[:6]}")
    with AuthenticatedClient(base_url=live.url, token=key) as client:
        yield client


def _session(text: str, turn_id: str, ts: str) -> IngestPayload:
    return IngestPayload(
        subject="Melanie",
        session_ts=ts,
        turns=[
            TurnIn(speaker="Melanie", text=text, id=turn_id),
            TurnIn(speaker="Caroline", text="That sounds great!", id=f"{turn_id}-r"),
        ],
    )


def test_sdk_flow_ingest_jobs_passport_versions_delete(tenant_client):
    client = tenant_client
    first = ingest_ingest.sync_detailed(
        "mel",
        client=client,
        body=_session("I moved to Kwekwe last week for a new job.", "m1", "2023-05-08T13:56:00Z"),
        wait=30,
    )
    assert first.status_code == 200, first.content  # finished within ?wait
    assert isinstance(first.parsed, Accepted)
    assert first.parsed.status == "done"
    assert first.parsed.plan.segments == 1

    # Without ?wait: 202 and a job to poll.
    second = ingest_ingest.sync_detailed(
        "mel",
        client=client,
        body=_session("We took the kids camping at Lake Tahoe.", "m2", "2023-07-02T18:00:00Z"),
    )
    assert second.status_code == 202
    assert isinstance(second.parsed, Accepted)
    deadline = time.monotonic() + 30
    job = jobs_get_job.sync(second.parsed.job_id, client=client)
    while isinstance(job, JobOut) and job.status not in ("done", "failed"):
        assert time.monotonic() < deadline, f"job still {job.status}"
        time.sleep(0.2)
        job = jobs_get_job.sync(second.parsed.job_id, client=client)
    assert isinstance(job, JobOut)
    assert (job.status, job.version_after, job.progress.done) == ("done", 2, 1)

    current = users_get_passport.sync_detailed("mel", client=client)
    assert current.status_code == 200 and current.headers["etag"] == '"2"'
    passport = current.parsed
    assert isinstance(passport, Passport)
    assert passport.user_key == "mel"
    assert [s.ts[:10] for s in passport.sources] == ["2023-05-08", "2023-07-02"]
    assert [s.turn_ids for s in passport.sources] == [["m1", "m1-r"], ["m2", "m2-r"]]

    context = context_get_context.sync(
        "mel", client=client, q="where did Melanie move", format_=ContextGetContextFormat.JSON
    )
    assert isinstance(context, str)
    assert "Kwekwe" in json.dumps(json.loads(context))  # the move is a belief now
    text = context_get_context.sync("mel", client=client, q="where did Melanie move")
    assert isinstance(text, str) and "Kwekwe" in text

    page = users_list_versions.sync("mel", client=client)
    assert isinstance(page, VersionPage)
    assert [(v.version, v.cause) for v in page.items][:2] == [(2, "ingest"), (1, "ingest")]
    earlier = users_get_passport.sync("mel", client=client, version=1)
    assert isinstance(earlier, Passport)
    assert [s.to_dict() for s in earlier.sources] == [passport.sources[0].to_dict()]

    assert users_delete_user.sync_detailed("mel", client=client).status_code == 200
    gone = users_get_passport.sync_detailed("mel", client=client)
    assert gone.status_code == 404
    assert json.loads(gone.content)["detail"] == "no user 'mel'"


def test_the_idiomatic_client_remembers_reads_and_forgets(live):
    key = live.new_tenant_key("idiomatic")
    exchange = [
        {"role": "user", "content": "I adopted a grey cat called Pixel last weekend.", "id": "u1"},
        {"role": "assistant", "content": "Pixel is a fine name for a cat!", "id": "a1"},
    ]
    with sdk.Tessera(live.url, key) as memory:
        job = memory.remember("ada", exchange, session="s-1", wait=30)
        assert (job.status, job.version_after) == ("done", 1)
        again = memory.remember("ada", exchange, idempotency_key="same", wait=30)
        repeat = memory.remember("ada", exchange, idempotency_key="same", wait=30)
        assert repeat.job_id == again.job_id  # the same key: stored once
        text = memory.context("ada", "what is the cat called?", min_version=again.version_after)
        assert "Pixel" in text
        sections = memory.context_sections("ada", "what is the cat called?")
        assert any("Pixel" in m["text"] for m in sections["memories"])
        hits = memory.search("ada", "cat Pixel")
        assert hits and hits[0].turn_ids and "Pixel" in hits[0].text
        assert "facts" in memory.beliefs("ada")
        document = memory.export("ada")
        assert document["user_key"] == "ada"
        assert memory.import_passport("copy", document).created is True
        assert [v.version for v in memory.versions("ada", limit=1)] == [2, 1, 0]  # paged
        assert memory.verify("ada").valid is True
        assert memory.job(str(job.job_id)).status == "done"
        queued = memory.remember("ada", text="A note about the allotment.")
        assert memory.job(str(queued.job_id), wait=30).status == "done"  # no polling
        said = memory.recent_turns("ada", session="s-1")
        assert [t["id"] for t in said] == ["u1", "a1"]  # in the order they were said
        assert memory.turn("ada", "a1")["text"] == exchange[1]["content"]
        assert [s.name for s in memory.sessions("ada")] == ["s-1"]

        forgotten = memory.forget_turn("ada", "u1")
        assert forgotten.turns >= 1 and forgotten.receipt.scope == "turn"
        assert "grey cat" not in memory.context("ada", "what is the cat called?")
        assert memory.forget_user("copy").scope == "user"
        with pytest.raises(sdk.NotFound) as missing:
            memory.export("copy")
        assert missing.value.detail == "no user 'copy'"
        with pytest.raises(sdk.InvalidInput) as invalid:
            memory.remember("ada", [{"speakr": "Ada", "text": "hi"}])
        assert any("speakr" in str(e["loc"]) for e in invalid.value.errors)
    stranger = sdk.Tessera(live.url, "tsr_nope_nope")
    with stranger, pytest.raises(sdk.AuthenticationError):
        stranger.context("ada")

    async def read_async() -> tuple[str, list[int]]:
        async with sdk.AsyncTessera(live.url, key) as memory:
            text = await memory.context("ada", "cat?")
            return text, [v.version for v in await memory.versions("ada")]

    with sdk.Tessera(live.url, key) as memory:
        expected = memory.context("ada", "cat?"), [v.version for v in memory.versions("ada")]
    assert asyncio.run(read_async()) == expected


def test_sdk_rejects_a_wrong_key(live):
    with AuthenticatedClient(base_url=live.url, token="tsr_nope_nope") as client:
        reply = users_get_passport.sync_detailed("mel", client=client)
    assert reply.status_code == 401
    assert json.loads(reply.content)["detail"] == "unknown or revoked API key"


def test_the_sdk_guide_runs_as_written(live, monkeypatch, capsys):
    # docs/sdk.md is one script in its python blocks; run it as a reader would.
    script = "\n".join(re.findall(r"```python\n(.*?)```", SDK_GUIDE.read_text(), flags=re.S))
    assert "memory.remember(" in script
    monkeypatch.setenv("TESSERA_URL", live.url)
    monkeypatch.setenv("TESSERA_API_KEY", live.new_tenant_key("guide"))
    monkeypatch.setenv("TESSERA_ADMIN_TOKEN", ADMIN_TOKEN)
    exec(compile(script, str(SDK_GUIDE), "exec"), {"__name__": "sdk_guide"})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "done 1"  # the job's end state: version 1 holds the exchange
    assert printed[1:3] == ["Beliefs:", "- The user lives in Lisbon"]  # the context after it
    assert "404 no user 'nobody'" in printed


# --- the `tessera` client commands -----------------------------------------------------------


def tessera(capsys, *argv: str) -> tuple[int, str, str]:
    """Run `tessera ARGV` in process; its exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def cli(live: Live, monkeypatch) -> list[str]:
    """--url and --key for a fresh tenant; no TESSERA_* client settings from the environment."""
    monkeypatch.delenv("TESSERA_URL", raising=False)
    monkeypatch.delenv("TESSERA_API_KEY", raising=False)
    return ["--url", live.url, "--key", live.new_tenant_key("cli")]


def test_cli_ingest_waits_with_a_progress_bar_then_export_and_import(cli, tmp_path, capsys):
    transcript = tmp_path / "chat.json"
    transcript.write_text(
        json.dumps(
            {
                "session_ts": "2023-05-08T13:56:00Z",
                "turns": [
                    {"speaker": "Melanie", "text": "I moved to Kwekwe for a new job.", "id": "a"},
                    {"speaker": "Caroline", "text": "Congrats! How is it going?", "id": "b"},
                ],
            }
        )
    )
    code, out, err = tessera(
        capsys, "ingest", str(transcript), "--user", "u1", "--subject", "Melanie", "--wait", *cli
    )
    assert code == 0, err
    job = json.loads(out)
    assert (job["status"], job["version_after"]) == ("done", 1)
    assert "[" + "#" * 30 + "] done 1/1 segments" in err

    note = tmp_path / "note.txt"
    note.write_text("Melanie: I started learning the piano this spring.")
    code, out, err = tessera(capsys, "ingest", str(note), "--user", "u1", "--wait", *cli)
    assert code == 0, err
    assert json.loads(out)["version_after"] == 2

    saved = tmp_path / "u1.json"
    code, _, err = tessera(capsys, "export", "u1", "-o", str(saved), *cli)
    assert code == 0 and "version 2" in err
    exported = json.loads(saved.read_text())
    assert exported["user_key"] == "u1" and len(exported["sources"]) == 2
    assert exported["sources"][0]["turn_ids"] == ["a", "b"]

    code, out, err = tessera(
        capsys, "context", "u1", "-q", "what is Melanie learning", "--budget", "600", *cli
    )
    assert code == 0, err
    assert "piano" in out and len(out) <= 601
    code, out, _ = tessera(capsys, "context", "u1", "--json", *cli)
    assert code == 0 and json.loads(out)["budget_chars"] == 3000

    code, out, err = tessera(capsys, "import", "u2", str(saved), *cli)
    assert code == 0, err
    assert json.loads(out)["created"] is True
    code, out, _ = tessera(capsys, "export", "u2", *cli)
    assert code == 0
    copied = json.loads(out)
    assert copied["episodes"] == exported["episodes"]
    assert copied["sources"] == exported["sources"]

    # The history verifies; a root kept from version 1 is in it, one from elsewhere is not.
    code, out, err = tessera(capsys, "verify", "u1", *cli)
    assert code == 0, err
    checked = json.loads(out)
    assert checked["valid"] is True and checked["versions"] == 3
    assert f"root {exported['witness']['root']}" in err
    code, out, _ = tessera(capsys, "verify", "u1", "--root", exported["witness"]["root"], *cli)
    assert code == 0 and json.loads(out)["root_version"] == 2
    code, out, err = tessera(capsys, "verify", "u1", "--root", "ab" * 32, *cli)
    assert code == 1 and "no version of the history has the root" in err


def test_cli_ingest_without_wait_reports_the_queued_job(cli, tmp_path, capsys):
    note = tmp_path / "note.txt"
    note.write_text("I prefer short answers.")
    code, out, err = tessera(capsys, "ingest", str(note), "--user", "u3", *cli)
    assert code == 0, err
    job = json.loads(out)
    assert job["status"] in ("queued", "running", "done")
    assert job["status_url"] == f"/jobs/{job['job_id']}"


def test_cli_errors_print_the_problem_detail(cli, live, tmp_path, capsys):
    code, out, err = tessera(capsys, "export", "nobody", *cli)
    assert (code, out) == (1, "")
    assert err.strip() == "tessera: 404 Not found: no user 'nobody'"

    code, out, err = tessera(capsys, "context", "nobody", "-q", "anything", *cli)
    assert (code, out) == (1, "")
    assert err.strip() == "tessera: 404 Not found: no user 'nobody'"
    code, _, err = tessera(capsys, "context", "nobody", "--budget", "5", *cli)
    assert code == 1 and err.startswith("tessera: 422 ") and "budget_chars" in err

    code, _, err = tessera(capsys, "export", "nobody", "--url", live.url, "--key", "tsr_x_y")
    assert code == 1 and "401 Unauthorized: unknown or revoked API key" in err

    not_a_passport = tmp_path / "bad.json"
    not_a_passport.write_text('{"facts": "no"}')
    code, _, err = tessera(capsys, "import", "u1", str(not_a_passport), *cli)
    assert code == 1 and err.startswith("tessera: 422 ")

    misspelt = tmp_path / "chat.json"
    misspelt.write_text('{"turns": [{"speakr": "Mel", "text": "hi"}]}')
    code, _, err = tessera(capsys, "ingest", str(misspelt), "--user", "u1", *cli)
    assert code == 2 and "turns.0.speakr: Extra inputs are not permitted" in err

    code, _, err = tessera(capsys, "ingest", str(tmp_path / "missing.txt"), "--user", "u1", *cli)
    assert code == 2 and "cannot read" in err

    closed = f"http://127.0.0.1:{free_port()}"
    code, _, err = tessera(capsys, "export", "u1", "--url", closed, "--key", "k")
    assert code == 1 and f"cannot reach {closed}" in err


def test_cli_finds_url_and_key_in_the_environment_then_the_dev_key_file(
    live, tmp_path, monkeypatch, capsys
):
    key = live.new_tenant_key("cli-env")
    doc = tmp_path / "p.json"
    doc.write_text(json.dumps({"version": "2.1", "facts": [{"key": "city", "value": "Kwekwe"}]}))
    monkeypatch.setenv("TESSERA_URL", live.url)
    monkeypatch.setenv("TESSERA_API_KEY", key)
    monkeypatch.setenv("TESSERA_DATA_DIR", str(tmp_path / "data"))
    assert tessera(capsys, "import", "env-user", str(doc))[0] == 0

    monkeypatch.delenv("TESSERA_API_KEY")
    code, _, err = tessera(capsys, "export", "env-user")
    assert code == 2 and "no API key" in err
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "dev-api-key").write_text(key + "\n")
    code, out, _ = tessera(capsys, "export", "env-user")
    assert code == 0
    assert json.loads(out)["facts"][0]["value"] == "Kwekwe"
