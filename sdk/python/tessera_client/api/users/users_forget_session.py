from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.forgotten_out import ForgottenOut
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    key: str,
    session: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/users/{key}/sessions/{session}".format(
            key=quote(str(key), safe=""),
            session=quote(str(session), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ForgottenOut | Problem | None:
    if response.status_code == 200:
        response_200 = ForgottenOut.from_dict(response.json())

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
) -> Response[ForgottenOut | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    key: str,
    session: str,
    *,
    client: AuthenticatedClient,
) -> Response[ForgottenOut | Problem]:
    """Forget Session

     Hard-delete every turn of a session, and what came of them, everywhere.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        session (str): The session's name, as the turns were sent with it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ForgottenOut | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        session=session,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    key: str,
    session: str,
    *,
    client: AuthenticatedClient,
) -> ForgottenOut | Problem | None:
    """Forget Session

     Hard-delete every turn of a session, and what came of them, everywhere.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        session (str): The session's name, as the turns were sent with it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ForgottenOut | Problem
    """

    return sync_detailed(
        key=key,
        session=session,
        client=client,
    ).parsed


async def asyncio_detailed(
    key: str,
    session: str,
    *,
    client: AuthenticatedClient,
) -> Response[ForgottenOut | Problem]:
    """Forget Session

     Hard-delete every turn of a session, and what came of them, everywhere.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        session (str): The session's name, as the turns were sent with it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ForgottenOut | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        session=session,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    key: str,
    session: str,
    *,
    client: AuthenticatedClient,
) -> ForgottenOut | Problem | None:
    """Forget Session

     Hard-delete every turn of a session, and what came of them, everywhere.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        session (str): The session's name, as the turns were sent with it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ForgottenOut | Problem
    """

    return (
        await asyncio_detailed(
            key=key,
            session=session,
            client=client,
        )
    ).parsed
