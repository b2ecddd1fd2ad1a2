"""Beyond one process: API processes and two workers on one Postgres and Redis.

A write through one API process is read through the other with ``?min_version``, every time; a
forget through one is honoured by the other's next read, though that one held the user's index.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest

from tests.integration.live import free_port, service_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ADMIN_TOKEN = "processes-admin-token"
WORDS = ["harbour", "violin", "glacier", "lantern", "orchard", "compass", "meadow", "quarry"]


@pytest.fixture(scope="module")
def two_apis(settings, tmp_path_factory) -> Iterator[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """Two `tessera api` processes and two `tessera worker`s sharing this run's servers."""
    logs = tmp_path_factory.mktemp("processes")
    env = service_env(settings, logs, "tessera-processes", ADMIN_TOKEN)
    base = [sys.executable, "-m", "app.cli.main"]
    with ExitStack() as stack:
        urls = []
        # One of them runs two processes on its port itself (`--workers 2`).
        for name, processes in (("a", "2"), ("b", "1")):
            port = free_port()
            own = logs / name
            own.mkdir()
            commands = {
                "api": [*base, "api", "--port", str(port), "--workers", processes],
                "worker": [*base, "worker"],
            }
            urls.append(stack.enter_context(serving(commands, env, own, port)))
        yield urls[0], urls[1]


def _tenant(url: str) -> dict[str, str]:
    made = httpx.post(
        f"{url}/admin/tenants",
        json={"name": "two-processes"},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert made.status_code == 201, made.text
    return {"Authorization": f"Bearer {made.json()['api_key']['key']}"}


def test_a_write_through_one_process_is_read_through_the_other(two_apis: tuple[str, str]) -> None:
    one, other = two_apis
    auth = _tenant(one)
    for n, word in enumerate(WORDS):
        session = {
            "subject": "Ana",
            "session_ts": f"2024-03-{n + 1:02d}T10:00:00Z",
            "turns": [{"id": f"u{n}", "speaker": "Ana", "text": f"I bought a {word} today."}],
        }
        # Through one process, waiting for the job: its version_after is the version written.
        done = httpx.post(
            f"{one}/users/ana/ingest?wait=20", json=session, headers=auth, timeout=30
        ).json()["job"]
        assert done["status"] == "done", done
        # Through the other (which holds the user's index from the reads before): the write is
        # there, every time.
        read = httpx.get(
            f"{other}/users/ana/context",
            params={"q": word, "min_version": done["version_after"], "format": "json"},
            headers=auth,
            timeout=30,
        )
        assert read.status_code == 200, read.text
        assert int(read.headers["X-Passport-Version"]) >= done["version_after"]
        assert word in read.text, (n, read.text[:500])
    # A forget through the other process; the first one's next read no longer has the turn.
    before = httpx.get(
        f"{one}/users/ana/search", params={"q": WORDS[2]}, headers=auth, timeout=30
    ).json()
    assert any(WORDS[2] in hit["text"] for hit in before["items"])
    gone = httpx.delete(f"{other}/users/ana/turns/u2", headers=auth, timeout=30)
    assert gone.status_code == 200, gone.text
    version = gone.json()["version"]
    after = httpx.get(
        f"{one}/users/ana/search",
        params={"q": WORDS[2], "min_version": version},
        headers=auth,
        timeout=30,
    )
    assert after.status_code == 200 and after.json()["version"] >= version
    assert all(WORDS[2] not in hit["text"] for hit in after.json()["items"])
    context = httpx.get(
        f"{one}/users/ana/context", params={"q": WORDS[2]}, headers=auth, timeout=30
    )
    assert WORDS[2] not in context.text
    # And the history both processes wrote verifies.
    checked = httpx.get(f"{one}/users/ana/integrity", headers=auth, timeout=30).json()
    assert checked["valid"] is True, checked
