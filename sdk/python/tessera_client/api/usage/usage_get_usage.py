import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.usage_out import UsageOut
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    since: datetime.date | None | Unset = UNSET,
    until: datetime.date | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

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

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/usage",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | UsageOut | None:
    if response.status_code == 200:
        response_200 = UsageOut.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | UsageOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    since: datetime.date | None | Unset = UNSET,
    until: datetime.date | None | Unset = UNSET,
) -> Response[Problem | UsageOut]:
    """Get Usage

     This tenant's usage per UTC day and in total; the last 30 days by default.

    Args:
        since (datetime.date | None | Unset): First UTC day (YYYY-MM-DD); default 29 days before
            until. After until, the period is empty.
        until (datetime.date | None | Unset): Last UTC day, included (YYYY-MM-DD); default today.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UsageOut]
    """

    kwargs = _get_kwargs(
        since=since,
        until=until,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    since: datetime.date | None | Unset = UNSET,
    until: datetime.date | None | Unset = UNSET,
) -> Problem | UsageOut | None:
    """Get Usage

     This tenant's usage per UTC day and in total; the last 30 days by default.

    Args:
        since (datetime.date | None | Unset): First UTC day (YYYY-MM-DD); default 29 days before
            until. After until, the period is empty.
        until (datetime.date | None | Unset): Last UTC day, included (YYYY-MM-DD); default today.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UsageOut
    """

    return sync_detailed(
        client=client,
        since=since,
        until=until,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    since: datetime.date | None | Unset = UNSET,
    until: datetime.date | None | Unset = UNSET,
) -> Response[Problem | UsageOut]:
    """Get Usage

     This tenant's usage per UTC day and in total; the last 30 days by default.

    Args:
        since (datetime.date | None | Unset): First UTC day (YYYY-MM-DD); default 29 days before
            until. After until, the period is empty.
        until (datetime.date | None | Unset): Last UTC day, included (YYYY-MM-DD); default today.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UsageOut]
    """

    kwargs = _get_kwargs(
        since=since,
        until=until,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    since: datetime.date | None | Unset = UNSET,
    until: datetime.date | None | Unset = UNSET,
) -> Problem | UsageOut | None:
    """Get Usage

     This tenant's usage per UTC day and in total; the last 30 days by default.

    Args:
        since (datetime.date | None | Unset): First UTC day (YYYY-MM-DD); default 29 days before
            until. After until, the period is empty.
        until (datetime.date | None | Unset): Last UTC day, included (YYYY-MM-DD); default today.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UsageOut
    """

    return (
        await asyncio_detailed(
            client=client,
            since=since,
            until=until,
        )
    ).parsed
