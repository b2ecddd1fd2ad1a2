"""The ceiling for bench.context_speed: a FastAPI endpoint that returns a fixed short text.

Served by one uvicorn worker (``python -m uvicorn bench.trivial_app:app``), the same server and
event loop as the API, so req/s against it is what FastAPI + uvicorn alone can do on this machine.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import PlainTextResponse

TEXT = "Facts:\n- location: Kwekwe\n- occupation: nurse\n"

app = FastAPI()


@app.get("/ping", response_class=PlainTextResponse)
async def ping(q: str | None = None) -> str:
    """The same short text whatever the query (``q`` is parsed, as the context route does)."""
    return TEXT
