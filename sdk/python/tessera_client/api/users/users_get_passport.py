import datetime
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.passport import Passport
from ...models.problem import Problem
from ...models.users_get_passport_format import UsersGetPassportFormat
from ...types import UNSET, Response, Unset


def _get_kwargs(
    key: str,
    *,
    version: int | None | Unset = UNSET,
    sections: None | str | Unset = UNSET,
    after: int | None | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    format_: UsersGetPassportFormat | Unset = UsersGetPassportFormat.NATIVE,
    min_version: int | None | Unset = UNSET,
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

    json_sections: None | str | Unset
    if isinstance(sections, Unset):
        json_sections = UNSET
    else:
        json_sections = sections
    params["sections"] = json_sections

    json_after: int | None | Unset
    if isinstance(after, Unset):
        json_after = UNSET
    else:
        json_after = after
    params["after"] = json_after

    json_limit: int | None | Unset
    if isinstance(limit, Unset):
        json_limit = UNSET
    else:
        json_limit = limit
    params["limit"] = json_limit

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

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    json_min_version: int | None | Unset
    if isinstance(min_version, Unset):
        json_min_version = UNSET
    else:
        json_min_version = min_version
    params["min_version"] = json_min_version

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
    sections: None | str | Unset = UNSET,
    after: int | None | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    format_: UsersGetPassportFormat | Unset = UsersGetPassportFormat.NATIVE,
    min_version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Response[Any | Passport | Problem]:
    """Get Passport

     The user's passport as JSON, now or as it was at ``version``; whole (streamed) or paged.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        version (int | None | Unset): A past version to rebuild.
        sections (None | str | Unset): Only these sections, comma-separated: facts, prefs,
            entities, open_loops, contradictions, instructions, values, observations, episodes,
            sources, turns, meta (version, user_key and updated_at always come).
        after (int | None | Unset): Page cursor: the log row id to continue after.
        limit (int | None | Unset): Page the log: at most this many rows of it.
        since (datetime.date | None | str | Unset): With a page: only log rows on or after this
            date.
        until (datetime.date | None | str | Unset): With a page: only log rows up to the end of
            this date.
        format_ (UsersGetPassportFormat | Unset): native: everything Tessera keeps (lossless round
            trip); sozograph: each item with only the fields the SozoGraph library reads. Default:
            UsersGetPassportFormat.NATIVE.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.
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
        sections=sections,
        after=after,
        limit=limit,
        since=since,
        until=until,
        format_=format_,
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
    version: int | None | Unset = UNSET,
    sections: None | str | Unset = UNSET,
    after: int | None | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    format_: UsersGetPassportFormat | Unset = UsersGetPassportFormat.NATIVE,
    min_version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Any | Passport | Problem | None:
    """Get Passport

     The user's passport as JSON, now or as it was at ``version``; whole (streamed) or paged.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        version (int | None | Unset): A past version to rebuild.
        sections (None | str | Unset): Only these sections, comma-separated: facts, prefs,
            entities, open_loops, contradictions, instructions, values, observations, episodes,
            sources, turns, meta (version, user_key and updated_at always come).
        after (int | None | Unset): Page cursor: the log row id to continue after.
        limit (int | None | Unset): Page the log: at most this many rows of it.
        since (datetime.date | None | str | Unset): With a page: only log rows on or after this
            date.
        until (datetime.date | None | str | Unset): With a page: only log rows up to the end of
            this date.
        format_ (UsersGetPassportFormat | Unset): native: everything Tessera keeps (lossless round
            trip); sozograph: each item with only the fields the SozoGraph library reads. Default:
            UsersGetPassportFormat.NATIVE.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.
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
        sections=sections,
        after=after,
        limit=limit,
        since=since,
        until=until,
        format_=format_,
        min_version=min_version,
        if_none_match=if_none_match,
    ).parsed


async def asyncio_detailed(
    key: str,
    *,
    client: AuthenticatedClient,
    version: int | None | Unset = UNSET,
    sections: None | str | Unset = UNSET,
    after: int | None | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    format_: UsersGetPassportFormat | Unset = UsersGetPassportFormat.NATIVE,
    min_version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Response[Any | Passport | Problem]:
    """Get Passport

     The user's passport as JSON, now or as it was at ``version``; whole (streamed) or paged.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        version (int | None | Unset): A past version to rebuild.
        sections (None | str | Unset): Only these sections, comma-separated: facts, prefs,
            entities, open_loops, contradictions, instructions, values, observations, episodes,
            sources, turns, meta (version, user_key and updated_at always come).
        after (int | None | Unset): Page cursor: the log row id to continue after.
        limit (int | None | Unset): Page the log: at most this many rows of it.
        since (datetime.date | None | str | Unset): With a page: only log rows on or after this
            date.
        until (datetime.date | None | str | Unset): With a page: only log rows up to the end of
            this date.
        format_ (UsersGetPassportFormat | Unset): native: everything Tessera keeps (lossless round
            trip); sozograph: each item with only the fields the SozoGraph library reads. Default:
            UsersGetPassportFormat.NATIVE.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.
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
        sections=sections,
        after=after,
        limit=limit,
        since=since,
        until=until,
        format_=format_,
        min_version=min_version,
        if_none_match=if_none_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    key: str,
    *,
    client: AuthenticatedClient,
    version: int | None | Unset = UNSET,
    sections: None | str | Unset = UNSET,
    after: int | None | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    since: datetime.date | None | str | Unset = UNSET,
    until: datetime.date | None | str | Unset = UNSET,
    format_: UsersGetPassportFormat | Unset = UsersGetPassportFormat.NATIVE,
    min_version: int | None | Unset = UNSET,
    if_none_match: None | str | Unset = UNSET,
) -> Any | Passport | Problem | None:
    """Get Passport

     The user's passport as JSON, now or as it was at ``version``; whole (streamed) or paged.

    Args:
        key (str): Your identifier for the end user: 1-256 characters; no control characters,
            slash or backslash; no space at either end; not starting with a dot. Keys are compared in
            Unicode NFC: composed and decomposed letters name the same user.
        version (int | None | Unset): A past version to rebuild.
        sections (None | str | Unset): Only these sections, comma-separated: facts, prefs,
            entities, open_loops, contradictions, instructions, values, observations, episodes,
            sources, turns, meta (version, user_key and updated_at always come).
        after (int | None | Unset): Page cursor: the log row id to continue after.
        limit (int | None | Unset): Page the log: at most this many rows of it.
        since (datetime.date | None | str | Unset): With a page: only log rows on or after this
            date.
        until (datetime.date | None | str | Unset): With a page: only log rows up to the end of
            this date.
        format_ (UsersGetPassportFormat | Unset): native: everything Tessera keeps (lossless round
            trip); sozograph: each item with only the fields the SozoGraph library reads. Default:
            UsersGetPassportFormat.NATIVE.
        min_version (int | None | Unset): Read at least this version (the version_after a write
            reported): the read waits for it up to TESSERA_MIN_VERSION_WAIT_SECONDS, else 409 saying
            how far behind it is.
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
            sections=sections,
            after=after,
            limit=limit,
            since=since,
            until=until,
            format_=format_,
            min_version=min_version,
            if_none_match=if_none_match,
        )
    ).parsed
