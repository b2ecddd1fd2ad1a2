from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.turn_in_role_type_0 import TurnInRoleType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.content_part import ContentPart


T = TypeVar("T", bound="TurnIn")


@_attrs_define
class TurnIn:
    """One chat turn: ``speaker`` and ``text``, or an OpenAI-style message (``role``, ``content``).

    A message is taken as an agent has it: ``name`` (or else ``role``) is the speaker, a list of
    content parts is read for its text parts, and the tool-call fields are accepted and ignored.

        Attributes:
            audio (Any | Unset): Accepted and ignored.
            content (list[ContentPart] | None | str | Unset): OpenAI-style content (a string or a list of parts), instead of
                text.
            function_call (Any | Unset): Accepted and ignored.
            id (None | str | Unset):
            name (None | str | Unset): OpenAI-style author name; the speaker when speaker is not given.
            refusal (Any | Unset): Accepted and ignored.
            role (None | TurnInRoleType0 | Unset): The message's role: 'user' (the person the memory is about), 'assistant',
                'system'/'developer', 'tool'/'function'. Beliefs come from what the user says; an assistant's, system's or
                tool's message is kept and searched, never believed.
            session (None | str | Unset):
            speaker (None | str | Unset): Who said it (a person's name, or a role word). Required unless role is given.
            text (None | str | Unset): What was said. Empty turns are skipped.
            tool_call_id (Any | Unset): Accepted and ignored.
            tool_calls (Any | Unset): Accepted and ignored.
            ts (float | int | None | str | Unset):
    """

    audio: Any | Unset = UNSET
    content: list[ContentPart] | None | str | Unset = UNSET
    function_call: Any | Unset = UNSET
    id: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    refusal: Any | Unset = UNSET
    role: None | TurnInRoleType0 | Unset = UNSET
    session: None | str | Unset = UNSET
    speaker: None | str | Unset = UNSET
    text: None | str | Unset = UNSET
    tool_call_id: Any | Unset = UNSET
    tool_calls: Any | Unset = UNSET
    ts: float | int | None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        audio = self.audio

        content: list[dict[str, Any]] | None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        elif isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item = content_type_1_item_data.to_dict()
                content.append(content_type_1_item)

        else:
            content = self.content

        function_call = self.function_call

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        refusal = self.refusal

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        elif isinstance(self.role, TurnInRoleType0):
            role = self.role.value
        else:
            role = self.role

        session: None | str | Unset
        if isinstance(self.session, Unset):
            session = UNSET
        else:
            session = self.session

        speaker: None | str | Unset
        if isinstance(self.speaker, Unset):
            speaker = UNSET
        else:
            speaker = self.speaker

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        tool_call_id = self.tool_call_id

        tool_calls = self.tool_calls

        ts: float | int | None | str | Unset
        if isinstance(self.ts, Unset):
            ts = UNSET
        else:
            ts = self.ts

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if audio is not UNSET:
            field_dict["audio"] = audio
        if content is not UNSET:
            field_dict["content"] = content
        if function_call is not UNSET:
            field_dict["function_call"] = function_call
        if id is not UNSET:
            field_dict["id"] = id
        if name is not UNSET:
            field_dict["name"] = name
        if refusal is not UNSET:
            field_dict["refusal"] = refusal
        if role is not UNSET:
            field_dict["role"] = role
        if session is not UNSET:
            field_dict["session"] = session
        if speaker is not UNSET:
            field_dict["speaker"] = speaker
        if text is not UNSET:
            field_dict["text"] = text
        if tool_call_id is not UNSET:
            field_dict["tool_call_id"] = tool_call_id
        if tool_calls is not UNSET:
            field_dict["tool_calls"] = tool_calls
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.content_part import ContentPart  # noqa: PLC0415

        d = dict(src_dict)
        audio = d.pop("audio", UNSET)

        def _parse_content(data: object) -> list[ContentPart] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in _content_type_1:
                    content_type_1_item = ContentPart.from_dict(content_type_1_item_data)

                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ContentPart] | None | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        function_call = d.pop("function_call", UNSET)

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        refusal = d.pop("refusal", UNSET)

        def _parse_role(data: object) -> None | TurnInRoleType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_0 = TurnInRoleType0(data)

                return role_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TurnInRoleType0 | Unset, data)

        role = _parse_role(d.pop("role", UNSET))

        def _parse_session(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session = _parse_session(d.pop("session", UNSET))

        def _parse_speaker(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        speaker = _parse_speaker(d.pop("speaker", UNSET))

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        tool_call_id = d.pop("tool_call_id", UNSET)

        tool_calls = d.pop("tool_calls", UNSET)

        def _parse_ts(data: object) -> float | int | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | int | None | str | Unset, data)

        ts = _parse_ts(d.pop("ts", UNSET))

        turn_in = cls(
            audio=audio,
            content=content,
            function_call=function_call,
            id=id,
            name=name,
            refusal=refusal,
            role=role,
            session=session,
            speaker=speaker,
            text=text,
            tool_call_id=tool_call_id,
            tool_calls=tool_calls,
            ts=ts,
        )

        return turn_in
