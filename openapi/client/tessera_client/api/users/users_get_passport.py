from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.passport import Passport
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    key: str,
    *,
    version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["if-none-match"] = if_none_match

    params: dict[str, Any] = {}

    json_version: int | None | Unset
    if isinstance(version, Unset):
        json_version = UNSET
    else:
        json_version = version
    params["version"] = json_version

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/users/{key}/passport".format(
            key=quote(str(key), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Passport | Problem | None:
    if response.status_code == 200:
        response_200 = Passport.from_dict(response.json())

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

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

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
) -> Response[Any | Passport | Problem]:
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
    version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Response[Any | Passport | Problem]:
    """Get Passport

     The user's passport as JSON, now or as it was at ``version``.

    Args:
        key (str): Your identifier for the end user (1-256 characters, no control characters).
        version (int | None | Unset): A past version to rebuild.
        if_none_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Passport | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        version=version,
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
    version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Any | Passport | Problem | None:
    """Get Passport

     The user's passport as JSON, now or as it was at ``version``.

    Args:
        key (str): Your identifier for the end user (1-256 characters, no control characters).
        version (int | None | Unset): A past version to rebuild.
        if_none_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Passport | Problem
    """

    return sync_detailed(
        key=key,
        client=client,
        version=version,
        if_none_match=if_none_match,
    ).parsed


async def asyncio_detailed(
    key: str,
    *,
    client: AuthenticatedClient,
    version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Response[Any | Passport | Problem]:
    """Get Passport

     The user's passport as JSON, now or as it was at ``version``.

    Args:
        key (str): Your identifier for the end user (1-256 characters, no control characters).
        version (int | None | Unset): A past version to rebuild.
        if_none_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Passport | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        version=version,
        if_none_match=if_none_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    key: str,
    *,
    client: AuthenticatedClient,
    version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Any | Passport | Problem | None:
    """Get Passport

     The user's passport as JSON, now or as it was at ``version``.

    Args:
        key (str): Your identifier for the end user (1-256 characters, no control characters).
        version (int | None | Unset): A past version to rebuild.
        if_none_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Passport | Problem
    """

    return (
        await asyncio_detailed(
            key=key,
            client=client,
            version=version,
            if_none_match=if_none_match,
        )
    ).parsed
