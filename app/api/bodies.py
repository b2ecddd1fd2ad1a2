"""Request bodies: a large one is parsed off the event loop, and one nested too deep is a 422.

FastAPI parses a JSON body with the request's ``json()``; every route of the API is made with
``BodyRoute``, whose requests parse a body of more than ``OFFLOAD_BYTES`` in a worker thread (the
event loop goes on serving other requests meanwhile) and answer JSON nested past what a parser
can follow, or past 64 levels (``MAX_DEPTH``, what a stored value may nest), with 422.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.routing import APIRoute

from app.domain.storable import MAX_DEPTH, deeper_than

# Bodies above this size are parsed in a thread.
OFFLOAD_BYTES = 256 * 1024
TOO_DEEP = f"the JSON is nested deeper than {MAX_DEPTH} levels, the most a body may nest"


class JsonBodyRequest(Request):
    """A request whose JSON body is parsed off the event loop when large, and once."""

    parsed: Any = None
    has_parsed = False

    async def json(self) -> Any:
        """The body as JSON: 422 when nested too deep to parse."""
        if not self.has_parsed:
            body = await self.body()
            try:
                if len(body) > OFFLOAD_BYTES:
                    self.parsed, deep = await asyncio.to_thread(_parsed, body)
                else:
                    self.parsed, deep = _parsed(body)
            except RecursionError:
                deep = True
            # Refused before validation: pydantic and the serialisers recurse, and a few
            # hundred levels are past what they follow.
            if deep:
                raise HTTPException(status_code=422, detail=TOO_DEEP)
            self.has_parsed = True
        return self.parsed


def _parsed(body: bytes) -> tuple[Any, bool]:
    """The body's JSON, and whether it nests deeper than a body may."""
    value = json.loads(body)
    return value, deeper_than(value)


class BodyRoute(APIRoute):
    """An API route whose request bodies are read as ``JsonBodyRequest`` reads them."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The route's handler, given the request as a ``JsonBodyRequest``."""
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            return await handler(JsonBodyRequest(request.scope, request.receive))

        return handle
