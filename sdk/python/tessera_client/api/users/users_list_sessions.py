from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.session_page import SessionPage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    key: str,
    *,
    prefix: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_prefix: None | str | Unset
    if isinstance(prefix, Unset):
        json_prefix = UNSET
    else:
        json_prefix = prefix
    params["prefix"] = json_prefix

    params["limit"] = limit

    json_cursor: int | None | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/users/{key}/sessions".format(
            key=quote(str(key), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SessionPage | None:
    if response.status_code == 200:
        response_200 = SessionPage.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | SessionPage]:
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
    prefix: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | None | Unset = UNSET,
) -> Response[Problem | SessionPage]:
    """List Sessions

     The user's sessions, the one spoken in last first, with their live turns counted.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        prefix (None | str | Unset): Only sessions whose name starts so.
        limit (int | Unset): Most sessions on one page. Default: 50.
        cursor (int | None | Unset): next_cursor of the previous page

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SessionPage]
    """

    kwargs = _get_kwargs(
        key=key,
        prefix=prefix,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    key: str,
    *,
    client: AuthenticatedClient,
    prefix: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | None | Unset = UNSET,
) -> Problem | SessionPage | None:
    """List Sessions

     The user's sessions, the one spoken in last first, with their live turns counted.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        prefix (None | str | Unset): Only sessions whose name starts so.
        limit (int | Unset): Most sessions on one page. Default: 50.
        cursor (int | None | Unset): next_cursor of the previous page

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SessionPage
    """

    return sync_detailed(
        key=key,
        client=client,
        prefix=prefix,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    key: str,
    *,
    client: AuthenticatedClient,
    prefix: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | None | Unset = UNSET,
) -> Response[Problem | SessionPage]:
    """List Sessions

     The user's sessions, the one spoken in last first, with their live turns counted.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        prefix (None | str | Unset): Only sessions whose name starts so.
        limit (int | Unset): Most sessions on one page. Default: 50.
        cursor (int | None | Unset): next_cursor of the previous page

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SessionPage]
    """

    kwargs = _get_kwargs(
        key=key,
        prefix=prefix,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    key: str,
    *,
    client: AuthenticatedClient,
    prefix: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | None | Unset = UNSET,
) -> Problem | SessionPage | None:
    """List Sessions

     The user's sessions, the one spoken in last first, with their live turns counted.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        prefix (None | str | Unset): Only sessions whose name starts so.
        limit (int | Unset): Most sessions on one page. Default: 50.
        cursor (int | None | Unset): next_cursor of the previous page

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SessionPage
    """

    return (
        await asyncio_detailed(
            key=key,
            client=client,
            prefix=prefix,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
