"""Client commands of ``tessera`` (ingest, context, export, import), on the generated SDK."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar
from urllib.parse import quote
from uuid import UUID

import httpx

if TYPE_CHECKING:
    from tessera_client import AuthenticatedClient
    from tessera_client.models import JobOut
    from tessera_client.types import Response

DEFAULT_URL = "http://127.0.0.1:8000"
POLL_SECONDS = 0.3
BAR_WIDTH = 30
INGEST_FORMAT = "a JSON object with text, turns, rows or items (see docs/api.md)"

M = TypeVar("M")


class CommandError(Exception):
    """A failure reported as ``tessera: <message>``, with the exit code to leave with."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _connection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--url", default=None, help=f"the Tessera API (env TESSERA_URL, default {DEFAULT_URL})"
    )
    parser.add_argument(
        "--key",
        default=None,
        help="the tenant's API key (env TESSERA_API_KEY, else .tessera/dev-api-key)",
    )


def add_parsers(sub: Any) -> None:
    """Add the client commands to the ``tessera`` subparsers."""
    p = sub.add_parser("ingest", help="send a JSON or .txt file to a user's memory")
    p.add_argument("file", type=Path, help=f"{INGEST_FORMAT}; a .txt file is sent as text")
    p.add_argument("--user", required=True, metavar="KEY", help="the end user's key")
    p.add_argument("--subject", default=None, metavar="NAME", help="who the passport is about")
    p.add_argument("--wait", action="store_true", help="follow the job until it ends")
    p.add_argument(
        "--timeout",
        type=float,
        default=600,
        metavar="SECONDS",
        help="how long --wait follows the job (default 600)",
    )
    _connection_options(p)
    p = sub.add_parser("context", help="print the context an agent would get for a query")
    p.add_argument("user", metavar="USER")
    p.add_argument("-q", "--query", default=None, help="what the agent is about to answer")
    p.add_argument(
        "--budget", type=int, default=None, metavar="N", help="most characters (server default)"
    )
    p.add_argument("--json", action="store_true", help="the sections as JSON instead of text")
    _connection_options(p)
    p = sub.add_parser("verify", help="check that a user's stored history is whole")
    p.add_argument("user", metavar="USER")
    p.add_argument("--root", metavar="HASH", help="a root kept elsewhere: one version's hash")
    _connection_options(p)
    p = sub.add_parser("export", help="print (or save) a user's passport")
    p.add_argument("user", metavar="USER")
    p.add_argument("-o", "--output", type=Path, default=None, metavar="FILE")
    _connection_options(p)
    p = sub.add_parser("import", help="store a passport file as a user's passport")
    p.add_argument("user", metavar="USER")
    p.add_argument("file", type=Path)
    _connection_options(p)


def api_key(explicit: str | None, data_dir: Path) -> str:
    """The API key: --key, else TESSERA_API_KEY, else the dev tenant's key that `make dev` saved."""
    if explicit:
        return explicit
    from_env = os.environ.get("TESSERA_API_KEY", "").strip()
    if from_env:
        return from_env
    dev_key = data_dir / "dev-api-key"
    if dev_key.is_file():
        return dev_key.read_text(encoding="utf-8").strip()
    raise CommandError(
        f"no API key: pass --key, set TESSERA_API_KEY, or run `make dev` (it writes {dev_key})", 2
    )


def problem_message(status: int, content: bytes) -> str:
    """One line from an error reply: status, title and the problem+json detail."""
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    if not isinstance(body, dict):
        return f"{status} {phrase}"
    message = f"{status} {body.get('title') or phrase}"
    return f"{message}: {body['detail']}" if body.get("detail") else message


def _expect(response: Response[Any], model: type[M]) -> M:
    # The reply's own bytes, not the parsed model: not every error status has a generated type.
    if response.status_code >= 400:
        raise CommandError(problem_message(int(response.status_code), response.content))
    if not isinstance(response.parsed, model):
        raise CommandError(f"unexpected reply from the server ({response.status_code})")
    return response.parsed


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {path}: {exc}", 2) from exc


def _read_object(path: Path, what: str) -> dict[str, Any]:
    try:
        value = json.loads(_read_text(path))
    except ValueError as exc:
        raise CommandError(f"{path} is not JSON: {exc}", 2) from exc
    if not isinstance(value, dict):
        raise CommandError(f"{path} is not {what}", 2)
    return value


def ingest_body(path: Path, subject: str | None) -> dict[str, Any]:
    """The ingest body a file stands for, checked with the server's own model before sending."""
    from pydantic import ValidationError

    from app.domain.ingest.payload import IngestPayload

    if path.suffix.lower() == ".txt":
        body: dict[str, Any] = {"text": _read_text(path)}
    else:
        body = _read_object(path, INGEST_FORMAT)
    if subject is not None:
        body["subject"] = subject
    try:
        IngestPayload.model_validate(body)
    except ValidationError as exc:
        where = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}"
            for err in exc.errors()[:5]
        )
        raise CommandError(f"{path} is not an ingest body ({INGEST_FORMAT}): {where}", 2) from exc
    return body


def progress_line(status: str, done: int, total: int) -> str:
    """A text progress bar for a job: ``[#####.....] running 3/6 segments``."""
    filled = BAR_WIDTH if status == "done" else (BAR_WIDTH * done // total if total > 0 else 0)
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    counts = f" {done}/{total} segments" if total > 0 else ""
    return f"[{bar}] {status}{counts}"


def follow_job(client: AuthenticatedClient, job_id: UUID, timeout: float, out: TextIO) -> JobOut:
    """Poll a job until it is done or failed, drawing its progress on ``out``."""
    from tessera_client.api.jobs import jobs_get_job
    from tessera_client.models import JobOut

    # A terminal gets one redrawn line; a log or a pipe gets a line per change.
    redraw = out.isatty()
    deadline = time.monotonic() + timeout
    shown = ""
    while True:
        job = _expect(jobs_get_job.sync_detailed(job_id, client=client), JobOut)
        line = progress_line(job.status, job.progress.done, job.progress.total)
        if line != shown:
            out.write("\r" + line.ljust(len(shown)) if redraw else line + "\n")
            out.flush()
            shown = line
        if job.status in ("done", "failed"):
            break
        if time.monotonic() >= deadline:
            if redraw:
                out.write("\n")
            raise CommandError(
                f"job {job_id} is still {job.status} after {timeout:g} s; it goes on "
                f"(see GET {job.status_url})"
            )
        time.sleep(POLL_SECONDS)
    if redraw:
        out.write("\n")
    return job


def cmd_ingest(client: AuthenticatedClient, args: argparse.Namespace) -> int:
    """Send a file to a user's memory; with --wait, follow the job to its end."""
    from tessera_client.api.ingest import ingest_ingest
    from tessera_client.models import Accepted, IngestPayload

    body = ingest_body(args.file, args.subject)
    payload = IngestPayload.from_dict(body)
    # The generated model drops what it does not know; never send less than the file says.
    if payload.to_dict() != body:
        raise CommandError(f"{args.file}: the client cannot send this body unchanged", 2)
    accepted = _expect(
        ingest_ingest.sync_detailed(args.user, client=client, body=payload), Accepted
    )
    job = accepted.job
    if args.wait:
        job = follow_job(client, accepted.job_id, args.timeout, sys.stderr)
    print(json.dumps(job.to_dict(), indent=2))
    if job.status == "failed":
        raise CommandError(f"job {job.job_id} failed: {job.error}")
    if job.status != "done":
        print(f"tessera: job {job.job_id} is {job.status}: GET {job.status_url}", file=sys.stderr)
    return 0


def cmd_context(client: AuthenticatedClient, args: argparse.Namespace) -> int:
    """Print the budgeted context for a query: the text an agent puts in its prompt, or JSON."""
    params: dict[str, str | int] = {"format": "json" if args.json else "text"}
    if args.query is not None:
        params["q"] = args.query
    if args.budget is not None:
        params["budget_chars"] = args.budget
    # Sent on the SDK's own HTTP client, not through its parser: an error keeps its detail
    # whatever body it came with (a proxy's HTML page included).
    path = f"/users/{quote(args.user, safe='')}/context"
    response = client.get_httpx_client().get(path, params=params)
    if response.status_code >= 400:
        raise CommandError(problem_message(response.status_code, response.content))
    text = response.text
    print(text if text.endswith("\n") else text + "\n", end="")
    return 0


def cmd_export(client: AuthenticatedClient, args: argparse.Namespace) -> int:
    """Write a user's passport, byte for byte as the server keeps it, to a file or stdout."""
    from tessera_client.api.users import users_get_passport

    response = users_get_passport.sync_detailed(args.user, client=client)
    if response.status_code >= 400:
        raise CommandError(problem_message(int(response.status_code), response.content))
    version = response.headers.get("etag", "").strip('"')
    if args.output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(response.content + b"\n")
        sys.stdout.buffer.flush()
    else:
        args.output.write_bytes(response.content)
        print(f"tessera: wrote {args.output} (version {version})", file=sys.stderr)
    return 0


def cmd_import(client: AuthenticatedClient, args: argparse.Namespace) -> int:
    """Store a passport file (format 1.x or 2.x) as the user's passport."""
    from tessera_client.api.users import users_put_passport
    from tessera_client.models import PassportWritten, UsersPutPassportDoc

    doc = _read_object(args.file, "a passport (a JSON object)")
    response = users_put_passport.sync_detailed(
        args.user, client=client, body=UsersPutPassportDoc.from_dict(doc)
    )
    written = _expect(response, PassportWritten)
    print(json.dumps(written.to_dict(), indent=2))
    state = "created" if written.created else "changed" if written.changed else "unchanged"
    print(f"tessera: {args.user} is at version {written.version} ({state})", file=sys.stderr)
    return 0


def cmd_verify(client: AuthenticatedClient, args: argparse.Namespace) -> int:
    """Recompute a user's hash chain on the server; exit 1 if it breaks or --root is not in it."""
    from tessera_client.api.users import users_check_integrity
    from tessera_client.models import IntegrityOut
    from tessera_client.types import UNSET

    root = args.root.strip().lower() if args.root else UNSET
    response = users_check_integrity.sync_detailed(args.user, client=client, root=root)
    found = _expect(response, IntegrityOut)
    print(json.dumps(found.to_dict(), indent=2))
    if args.root and found.root_version is None:
        raise CommandError(f"{args.user}: no version of the history has the root {args.root}")
    if not found.valid:
        raise CommandError(
            f"{args.user}: the history breaks at version {found.first_bad_version}: {found.reason}"
        )
    where = f"; {args.root} is version {found.root_version}" if args.root else ""
    print(f"tessera: {args.user} is whole (root {found.root}{where})", file=sys.stderr)
    return 0


COMMANDS: dict[str, Callable[[AuthenticatedClient, argparse.Namespace], int]] = {
    "verify": cmd_verify,
    "ingest": cmd_ingest,
    "context": cmd_context,
    "export": cmd_export,
    "import": cmd_import,
}


def run(args: argparse.Namespace, data_dir: Path) -> int:
    """Run a client command; errors print one line (the problem detail) and exit non-zero."""
    # Imported here, not at the top, so `tessera api` and `tessera worker` never load the SDK.
    from tessera_client import AuthenticatedClient

    url = args.url or os.environ.get("TESSERA_URL") or DEFAULT_URL
    try:
        key = api_key(args.key, data_dir)
        timeout = httpx.Timeout(60.0, connect=5.0)
        with AuthenticatedClient(base_url=url, token=key, timeout=timeout) as client:
            return COMMANDS[args.command](client, args)
    except CommandError as exc:
        print(f"tessera: {exc}", file=sys.stderr)
        return exc.code
    except httpx.TransportError as exc:
        print(f"tessera: cannot reach {url}: {exc or type(exc).__name__}", file=sys.stderr)
        return 1
