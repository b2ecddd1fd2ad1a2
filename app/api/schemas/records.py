"""Replies built from the records services hand back."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

Reply = TypeVar("Reply", bound=BaseModel)


def reply_of(model: type[Reply], record: object, **computed: Any) -> Reply:
    """A ``model`` of ``record``: each field read from its same-named attribute, or ``computed``."""
    names = model.model_fields.keys() - computed.keys()
    return model.model_validate({**{name: getattr(record, name) for name in names}, **computed})
