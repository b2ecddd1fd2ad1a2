"""Operation ids: "{tag}-{name}", so the generated SDK reads well (users-get_passport)."""

from __future__ import annotations

from fastapi.routing import APIRoute


def operation_id(route: APIRoute) -> str:
    """The route's operation id in the spec: its first tag and its name."""
    tag = route.tags[0] if route.tags else "default"
    return f"{tag}-{route.name}"
