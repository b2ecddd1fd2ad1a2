"""Replies built from the records services hand back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from app.services.paging import Page

Reply = TypeVar("Reply", bound=BaseModel)
Record = TypeVar("Record")


def reply_of(model: type[Reply], record: object, **computed: Any) -> Reply:
    """A ``model`` of ``record``: each field read from its same-named attribute, or ``computed``."""
    names = model.model_fields.keys() - computed.keys()
    return model.model_validate({**{name: getattr(record, name) for name in names}, **computed})


def page_of(model: type[Reply], page: Page[Record], out: Callable[[Record], Any]) -> Reply:
    """A page reply: each record as ``out`` makes it, and the next page's cursor."""
    return model(items=[out(record) for record in page.items], next_cursor=page.next_cursor)
