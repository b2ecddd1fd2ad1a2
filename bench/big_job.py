"""One tenant's big ingest beside another's one-line jobs: does anyone wait on the big one?

``python -m bench.big_job [--kb 1000] [--lines 10]``

Against the live API and one worker (real subprocesses on the embedded Postgres and Redis, or
TESSERA_* servers), tenant A posts ``--kb`` KB of short preference sentences, each naming a
different thing (about 250 turns of 4 KB: tens of thousands of beliefs); as soon as its job
runs, tenant B posts ``--lines`` one-line jobs, one after another, each waited for. It reports
how long A's job took, each of B's (posting to done), and then one more one-line write to A's
user (posting to done) now that its head is full.

Targets (issue 42): A within 60 s, every B within 3 s, the write to A's user under 1 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import httpx

from bench.ingest import log, percentile, running_stack
from bench.linear_time import made

TURN_CHARS = 4_000


def preference_turns(kb: int) -> list[dict[str, Any]]:
    """``kb`` KB of a person's preferences, a different thing each sentence, in 4 KB turns."""
    text = made("varied preferences", kb)
    turns, start = [], 0
    while start < len(text):
        end = text.rfind(". ", start, start + TURN_CHARS) + 1 or len(text)
        end = end if end > start else min(len(text), start + TURN_CHARS)
        turns.append({"speaker": "Ivo", "text": text[start:end].strip()})
        start = end
    return [t for t in turns if t["text"]]


def _tenant(base: str, admin: dict[str, str], name: str) -> dict[str, str]:
    made_ = httpx.post(f"{base}/admin/tenants", json={"name": name}, headers=admin)
    made_.raise_for_status()
    return {"Authorization": f"Bearer {made_.json()['api_key']['key']}"}


def _until(client: httpx.Client, job: str, headers: dict[str, str], states: set[str]) -> dict:
    while True:
        body = client.get(f"/jobs/{job}", headers=headers).json()
        if body["status"] in states:
            return body
        time.sleep(0.05)


def _one_line(client: httpx.Client, user: str, headers: dict[str, str], n: int) -> float:
    """Seconds from posting a one-line job to its being done."""
    started = time.perf_counter()
    resp = client.post(
        f"/users/{user}/ingest?wait=30", json={"text": f"I moved to town {n}."}, headers=headers
    )
    resp.raise_for_status()
    if resp.json()["status"] != "done":
        _until(client, resp.json()["job_id"], headers, {"done", "failed"})
    return time.perf_counter() - started


def run(kb: int, lines: int) -> dict[str, Any]:
    """The scenario's figures."""
    body = {"subject": "Ivo", "turns": preference_turns(kb)}
    with running_stack(api_processes=1, workers=1) as stack:
        admin = {"Authorization": f"Bearer {stack.admin_token}"}
        big, small = _tenant(stack.base_url, admin, "big"), _tenant(stack.base_url, admin, "small")
        with httpx.Client(base_url=stack.base_url, timeout=120) as client:
            started = time.perf_counter()
            resp = client.post("/users/ivo/ingest", json=body, headers=big)
            resp.raise_for_status()
            job = resp.json()["job_id"]
            log(f"posted {kb} KB in {len(body['turns'])} turns")
            _until(client, job, big, {"running", "done", "failed"})
            others = [_one_line(client, "ada", small, n) for n in range(lines)]
            done = _until(client, job, big, {"done", "failed"})
            big_seconds = time.perf_counter() - started
            after = _one_line(client, "ivo", big, lines)
    return {
        "kb": kb,
        "turns": len(body["turns"]),
        "status": done["status"],
        "summary": done["result"].get("summary"),
        "big_s": big_seconds,
        "others_p50_s": percentile(others, 50),
        "others_max_s": max(others),
        "write_after_s": after,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the scenario and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=1000)
    parser.add_argument("--lines", type=int, default=10)
    args = parser.parse_args(argv)
    figures = run(args.kb, args.lines)
    print(f"| big job ({figures['kb']} KB, {figures['turns']} turns) | {figures['big_s']:.1f} s |")
    print(f"| its status, counts | {figures['status']}, {figures['summary']} |")
    print(
        f"| other tenant's one-line jobs, p50 / max | {figures['others_p50_s']:.2f} s / "
        f"{figures['others_max_s']:.2f} s |"
    )
    print(f"| one-line write to the big user after | {figures['write_after_s']:.2f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
