"""Wire schemas of the probes."""

from __future__ import annotations

from pydantic import BaseModel


class Health(BaseModel):
    """Probe result."""

    status: str
    checks: dict[str, str] = {}
