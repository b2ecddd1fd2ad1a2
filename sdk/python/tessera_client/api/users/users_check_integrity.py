from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.integrity_out import IntegrityOut
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    key: str,
    *,
    from_version: int | Unset = 0,
    root: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["from_version"] = from_version

    json_root: None | str | Unset
    if isinstance(root, Unset):
        json_root = UNSET
    else:
        json_root = root
    params["root"] = json_root

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/users/{key}/integrity".format(
            key=quote(str(key), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> IntegrityOut | Problem | None:
    if response.status_code == 200:
        response_200 = IntegrityOut.from_dict(response.json())

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
) -> Response[IntegrityOut | Problem]:
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
    from_version: int | Unset = 0,
    root: None | str | Unset = UNSET,
) -> Response[IntegrityOut | Problem]:
    """Check Integrity

     Recompute the user's hash chain from the stored rows: valid, root, and where it breaks.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        from_version (int | Unset): Check the tail from this version (its predecessor's hash
            trusted). Default: 0.
        root (None | str | Unset): A root kept elsewhere: root_version says which version has it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[IntegrityOut | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        from_version=from_version,
        root=root,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    key: str,
    *,
    client: AuthenticatedClient,
    from_version: int | Unset = 0,
    root: None | str | Unset = UNSET,
) -> IntegrityOut | Problem | None:
    """Check Integrity

     Recompute the user's hash chain from the stored rows: valid, root, and where it breaks.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        from_version (int | Unset): Check the tail from this version (its predecessor's hash
            trusted). Default: 0.
        root (None | str | Unset): A root kept elsewhere: root_version says which version has it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        IntegrityOut | Problem
    """

    return sync_detailed(
        key=key,
        client=client,
        from_version=from_version,
        root=root,
    ).parsed


async def asyncio_detailed(
    key: str,
    *,
    client: AuthenticatedClient,
    from_version: int | Unset = 0,
    root: None | str | Unset = UNSET,
) -> Response[IntegrityOut | Problem]:
    """Check Integrity

     Recompute the user's hash chain from the stored rows: valid, root, and where it breaks.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        from_version (int | Unset): Check the tail from this version (its predecessor's hash
            trusted). Default: 0.
        root (None | str | Unset): A root kept elsewhere: root_version says which version has it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[IntegrityOut | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
        from_version=from_version,
        root=root,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    key: str,
    *,
    client: AuthenticatedClient,
    from_version: int | Unset = 0,
    root: None | str | Unset = UNSET,
) -> IntegrityOut | Problem | None:
    """Check Integrity

     Recompute the user's hash chain from the stored rows: valid, root, and where it breaks.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        from_version (int | Unset): Check the tail from this version (its predecessor's hash
            trusted). Default: 0.
        root (None | str | Unset): A root kept elsewhere: root_version says which version has it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        IntegrityOut | Problem
    """

    return (
        await asyncio_detailed(
            key=key,
            client=client,
            from_version=from_version,
            root=root,
        )
    ).parsed
