import datetime
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.context_get_context_format import ContextGetContextFormat
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    key: str,
    *,
    q: None | str | Unset = UNSET,
    budget_chars: int | Unset = 3000,
    format_: ContextGetContextFormat | Unset = ContextGetContextFormat.TEXT,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["if-none-match"] = if_none_match

    params: dict[str, Any] = {}

    json_q: None | str | Unset
    if isinstance(q, Unset):
        json_q = UNSET
    else:
        json_q = q
    params["q"] = json_q

    params["budget_chars"] = budget_chars

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    json_since: None | str | Unset
    if isinstance(since, Unset):
        json_since = UNSET
    elif isinstance(since, datetime.date):
        json_since = since.isoformat()
    else:
        json_since = since
    params["since"] = json_since

    json_until: None | str | Unset
    if isinstance(until, Unset):
        json_until = UNSET
    elif isinstance(until, datetime.date):
        json_until = until.isoformat()
    else:
        json_until = until
    params["until"] = json_until

    json_min_version: int | None | Unset
    if isinstance(min_version, Unset):
        json_min_version = UNSET
    else:
        json_min_version = min_version
    params["min_version"] = json_min_version

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/users/{key}/context".format(
            key=quote(str(key), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Problem | str | None:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Problem | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    key: str,
    *,
    client: AuthenticatedClient,
    q: None | str | Unset = UNSET,
    budget_chars: int | Unset = 3000,
    format_: ContextGetContextFormat | Unset = ContextGetContextFormat.TEXT,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Response[Any | Problem | str]:
    """Get Context

     Beliefs that matter for ``q``, then the memories that answer it, within the budget.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        q (None | str | Unset): What the agent is about to answer; ranks memories.
        budget_chars (int | Unset): Most characters of text returned. Default: 3000.
        format_ (ContextGetContextFormat | Unset):  Default: ContextGetContextFormat.TEXT.
        since (datetime.date | None | str | Unset): Only memories on or after this day, month
            (YYYY-MM) or year (YYYY).
        until (datetime.date | None | str | Unset): Only memories up to the end of this day, month
            or year.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.
        if_none_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | str]
    """

    kwargs = _get_kwargs(
        key=key,
        q=q,
        budget_chars=budget_chars,
        format_=format_,
        since=since,
        until=until,
        min_version=min_version,
        if_none_match=if_none_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    key: str,
    *,
    client: AuthenticatedClient,
    q: None | str | Unset = UNSET,
    budget_chars: int | Unset = 3000,
    format_: ContextGetContextFormat | Unset = ContextGetContextFormat.TEXT,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Any | Problem | str | None:
    """Get Context

     Beliefs that matter for ``q``, then the memories that answer it, within the budget.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        q (None | str | Unset): What the agent is about to answer; ranks memories.
        budget_chars (int | Unset): Most characters of text returned. Default: 3000.
        format_ (ContextGetContextFormat | Unset):  Default: ContextGetContextFormat.TEXT.
        since (datetime.date | None | str | Unset): Only memories on or after this day, month
            (YYYY-MM) or year (YYYY).
        until (datetime.date | None | str | Unset): Only memories up to the end of this day, month
            or year.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.
        if_none_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | str
    """

    return sync_detailed(
        key=key,
        client=client,
        q=q,
        budget_chars=budget_chars,
        format_=format_,
        since=since,
        until=until,
        min_version=min_version,
        if_none_match=if_none_match,
    ).parsed


async def asyncio_detailed(
    key: str,
    *,
    client: AuthenticatedClient,
    q: None | str | Unset = UNSET,
    budget_chars: int | Unset = 3000,
    format_: ContextGetContextFormat | Unset = ContextGetContextFormat.TEXT,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Response[Any | Problem | str]:
    """Get Context

     Beliefs that matter for ``q``, then the memories that answer it, within the budget.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        q (None | str | Unset): What the agent is about to answer; ranks memories.
        budget_chars (int | Unset): Most characters of text returned. Default: 3000.
        format_ (ContextGetContextFormat | Unset):  Default: ContextGetContextFormat.TEXT.
        since (datetime.date | None | str | Unset): Only memories on or after this day, month
            (YYYY-MM) or year (YYYY).
        until (datetime.date | None | str | Unset): Only memories up to the end of this day, month
            or year.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.
        if_none_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | str]
    """

    kwargs = _get_kwargs(
        key=key,
        q=q,
        budget_chars=budget_chars,
        format_=format_,
        since=since,
        until=until,
        min_version=min_version,
        if_none_match=if_none_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    key: str,
    *,
    client: AuthenticatedClient,
    q: None | str | Unset = UNSET,
    budget_chars: int | Unset = 3000,
    format_: ContextGetContextFormat | Unset = ContextGetContextFormat.TEXT,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Any | Problem | str | None:
    """Get Context

     Beliefs that matter for ``q``, then the memories that answer it, within the budget.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        q (None | str | Unset): What the agent is about to answer; ranks memories.
        budget_chars (int | Unset): Most characters of text returned. Default: 3000.
        format_ (ContextGetContextFormat | Unset):  Default: ContextGetContextFormat.TEXT.
        since (datetime.date | None | str | Unset): Only memories on or after this day, month
            (YYYY-MM) or year (YYYY).
        until (datetime.date | None | str | Unset): Only memories up to the end of this day, month
            or year.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.
        if_none_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | str
    """

    return (
        await asyncio_detailed(
            key=key,
            client=client,
            q=q,
            budget_chars=budget_chars,
            format_=format_,
            since=since,
            until=until,
            min_version=min_version,
            if_none_match=if_none_match,
        )
    ).parsed
