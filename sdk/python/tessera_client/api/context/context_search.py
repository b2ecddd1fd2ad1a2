import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.search_result import SearchResult
from ...types import UNSET, Response, Unset


def _get_kwargs(
    key: str,
    *,
    q: str,
    limit: int | Unset = 20,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["q"] = q

    params["limit"] = limit

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
        "url": "/users/{key}/search".format(
            key=quote(str(key), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SearchResult | None:
    if response.status_code == 200:
        response_200 = SearchResult.from_dict(response.json())

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | SearchResult]:
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
    q: str,
    limit: int | Unset = 20,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
) -> Response[Problem | SearchResult]:
    """Search

     The log's passages ranked for ``q`` (one per turn), with scores and provenance.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        q (str):
        limit (int | Unset):  Default: 20.
        since (datetime.date | None | str | Unset): Only memories on or after this day, month
            (YYYY-MM) or year (YYYY).
        until (datetime.date | None | str | Unset): Only memories up to the end of this day, month
            or year.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SearchResult]
    """

    kwargs = _get_kwargs(
        key=key,
        q=q,
        limit=limit,
        since=since,
        until=until,
        min_version=min_version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    key: str,
    *,
    client: AuthenticatedClient,
    q: str,
    limit: int | Unset = 20,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
) -> Problem | SearchResult | None:
    """Search

     The log's passages ranked for ``q`` (one per turn), with scores and provenance.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        q (str):
        limit (int | Unset):  Default: 20.
        since (datetime.date | None | str | Unset): Only memories on or after this day, month
            (YYYY-MM) or year (YYYY).
        until (datetime.date | None | str | Unset): Only memories up to the end of this day, month
            or year.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SearchResult
    """

    return sync_detailed(
        key=key,
        client=client,
        q=q,
        limit=limit,
        since=since,
        until=until,
        min_version=min_version,
    ).parsed


async def asyncio_detailed(
    key: str,
    *,
    client: AuthenticatedClient,
    q: str,
    limit: int | Unset = 20,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
) -> Response[Problem | SearchResult]:
    """Search

     The log's passages ranked for ``q`` (one per turn), with scores and provenance.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        q (str):
        limit (int | Unset):  Default: 20.
        since (datetime.date | None | str | Unset): Only memories on or after this day, month
            (YYYY-MM) or year (YYYY).
        until (datetime.date | None | str | Unset): Only memories up to the end of this day, month
            or year.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SearchResult]
    """

    kwargs = _get_kwargs(
        key=key,
        q=q,
        limit=limit,
        since=since,
        until=until,
        min_version=min_version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    key: str,
    *,
    client: AuthenticatedClient,
    q: str,
    limit: int | Unset = 20,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    min_version: int | None | Unset = UNSET,
) -> Problem | SearchResult | None:
    """Search

     The log's passages ranked for ``q`` (one per turn), with scores and provenance.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        q (str):
        limit (int | Unset):  Default: 20.
        since (datetime.date | None | str | Unset): Only memories on or after this day, month
            (YYYY-MM) or year (YYYY).
        until (datetime.date | None | str | Unset): Only memories up to the end of this day, month
            or year.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SearchResult
    """

    return (
        await asyncio_detailed(
            key=key,
            client=client,
            q=q,
            limit=limit,
            since=since,
            until=until,
            min_version=min_version,
        )
    ).parsed
