from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.job_out import JobOut
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    key: str,
    *,
    wait: float | Unset = 0.0,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["wait"] = wait

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/users/{key}/reprocess".format(
            key=quote(str(key), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> JobOut | Problem | None:
    if response.status_code == 200:
        response_200 = JobOut.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = JobOut.from_dict(response.json())

        return response_202

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[JobOut | Problem]:
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
    wait: float | Unset = 0.0,
) -> Response[JobOut | Problem]:
    """Reprocess

     Rebuild the passport from its stored transcripts with the current extractor.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        wait (float | Unset): Seconds to wait for the job to finish (capped). Default: 0.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobOut | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        wait=wait,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    key: str,
    *,
    client: AuthenticatedClient,
    wait: float | Unset = 0.0,
) -> JobOut | Problem | None:
    """Reprocess

     Rebuild the passport from its stored transcripts with the current extractor.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        wait (float | Unset): Seconds to wait for the job to finish (capped). Default: 0.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobOut | Problem
    """

    return sync_detailed(
        key=key,
        client=client,
        wait=wait,
    ).parsed


async def asyncio_detailed(
    key: str,
    *,
    client: AuthenticatedClient,
    wait: float | Unset = 0.0,
) -> Response[JobOut | Problem]:
    """Reprocess

     Rebuild the passport from its stored transcripts with the current extractor.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        wait (float | Unset): Seconds to wait for the job to finish (capped). Default: 0.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobOut | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        wait=wait,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    key: str,
    *,
    client: AuthenticatedClient,
    wait: float | Unset = 0.0,
) -> JobOut | Problem | None:
    """Reprocess

     Rebuild the passport from its stored transcripts with the current extractor.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        wait (float | Unset): Seconds to wait for the job to finish (capped). Default: 0.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobOut | Problem
    """

    return (
        await asyncio_detailed(
            key=key,
            client=client,
            wait=wait,
        )
    ).parsed
