"""The inspector page and its fragments over HTTP: headers, keys, escaping, paging, filters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.ui.routes import CSP
from tests.conftest import make_tenant

pytestmark = pytest.mark.integration

TEMPLATES = Path(__file__).resolve().parents[2] / "app" / "ui" / "templates"
DOC = {
    "version": "2.1",
    "user_key": "mel",
    "facts": [
        {"key": "location", "value": "Kwekwe", "ts": "2023-05-08T13:56:00Z", "turn_ids": ["m1"]}
    ],
    "turns": [
        {"id": "m1", "speaker": "Mel", "text": "I moved to Kwekwe.", "ts": "2023-05-08T13:56:00Z"},
        {"id": "m2", "speaker": "Ana", "text": "Congrats!", "ts": "2023-05-08T13:57:00Z"},
        {"id": "m3", "speaker": "Mel", "text": "I ran a race.", "ts": "2023-06-02T09:00:00Z"},
    ],
}


async def test_the_page_is_served_with_a_strict_content_security_policy(client):
    page = await client.get("/ui")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP and "connect-src 'self'" in CSP
    assert page.headers["x-content-type-options"] == "nosniff"
    assert '<script src="/ui/static/inspector.js" defer></script>' in page.text
    script = await client.get("/ui/static/inspector.js")
    style = await client.get("/ui/static/inspector.css")
    assert script.status_code == style.status_code == 200
    assert "javascript" in script.headers["content-type"]
    # The key is sent in a header only: the script never builds an address holding it.
    assert "Authorization: `Bearer ${apiKey()}`" in script.text
    assert "sessionStorage" in script.text and "localStorage" not in script.text


def test_no_template_runs_or_styles_anything_inline():
    """What the CSP would block anyway: inline scripts, event attributes, style attributes."""
    for path in TEMPLATES.glob("*.html"):
        text = path.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), path.name
        assert not re.search(r"\son[a-z]+\s*=", text), path.name
        assert not re.search(r"\sstyle\s*=|<style", text), path.name


async def test_fragments_need_the_key_and_refuse_it_as_rest_does(client):
    for headers in ({}, {"Authorization": "Bearer tsr_nobodyhere_" + "x" * 40}):
        fragment = await client.get("/ui/f/users", headers=headers)
        rest = await client.get("/users", headers=headers)
        assert fragment.status_code == rest.status_code == 401
        assert fragment.json()["detail"] == rest.json()["detail"]


async def test_what_users_said_is_shown_escaped(client, tenant):
    nasty = "<script>alert(1)</script>"
    doc = {
        "version": "2.1",
        "facts": [{"key": "motto", "value": '<img src=x onerror="alert(2)">'}],
        "turns": [{"id": "m1", "speaker": "<b>Eve</b>", "text": nasty, "ts": "2023-05-08"}],
    }
    quoted = "%3Ci%3Eeve%22%26"  # <i>eve"&
    put = await client.put(f"/users/{quoted}/passport", json=doc, headers=tenant.headers)
    assert put.status_code == 201, put.text
    pages = [
        await client.get(path, headers=tenant.headers)
        for path in (
            "/ui/f/users",
            f"/ui/f/users/{quoted}",
            f"/ui/f/users/{quoted}/beliefs",
            f"/ui/f/users/{quoted}/timeline",
            f"/ui/f/users/{quoted}/versions/1",
        )
    ]
    for page in pages:
        assert page.status_code == 200, page.text
        assert "<script>" not in page.text and "<img" not in page.text and "<i>eve" not in page.text
    assert "&lt;i&gt;eve&#34;&amp;" in pages[0].text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[3].text
    assert f'href="#/u/{quoted}/beliefs"' in pages[0].text


async def test_users_are_searched_and_paged(client, tenant):
    h = tenant.headers
    for n in range(28):
        put = await client.put(f"/users/u{n:02}/passport", json={"version": "2.1"}, headers=h)
        assert put.status_code == 201
    await client.put("/users/Anna/passport", json={"version": "2.1"}, headers=h)
    first = (await client.get("/ui/f/users", headers=h)).text
    assert first.count('class="user-link"') == 25
    cursor = re.search(r'data-users-page="([^"]+)"', first)
    assert cursor and cursor.group(1) == "u23"
    rest = (await client.get("/ui/f/users", params={"cursor": "u23"}, headers=h)).text
    assert rest.count('class="user-link"') == 4 and "Next page" not in rest
    found = (await client.get("/ui/f/users", params={"q": "U1"}, headers=h)).text
    assert re.findall(r'class="user-link"[^>]*>([^<]+)<', found) == [f"u1{n}" for n in range(10)]
    none = (await client.get("/ui/f/users", params={"q": "%_"}, headers=h)).text
    assert "No user key holds" in none


async def test_beliefs_name_when_and_from_which_message(client, tenant):
    h = tenant.headers
    await client.put("/users/mel/passport", json=DOC, headers=h)
    await client.post(
        "/users/mel/facts",
        json={"facts": [{"key": "location", "value": "Bulawayo", "ts": "2024-01-01T00:00:00Z"}]},
        headers=h,
    )
    now = (await client.get("/ui/f/users/mel/beliefs", headers=h)).text
    then = (await client.get("/ui/f/users/mel/beliefs", params={"version": 1}, headers=h)).text
    assert "location: Bulawayo" in now and "1 January 2024" in now
    assert "location: Harare" not in now and "Kwekwe → Bulawayo" in now  # the change of mind
    assert "location: Kwekwe" in then and "as it was at version 1" in then
    assert "“I moved to Kwekwe.”" in then and "message m1" in then and "8 May 2023" in then
    versions = (await client.get("/ui/f/users/mel/versions", headers=h)).text
    assert "Version 2" in versions and "Passport at version 1" in versions
    change = (await client.get("/ui/f/users/mel/versions/2", headers=h)).text
    assert "location: Kwekwe → Bulawayo" in change
    # The history's root, and the integrity check's answer a click away.
    root = (await client.get("/users/mel/integrity", headers=h)).json()["root"]
    assert f'title="{root}"' in versions and "Check the history" in versions
    checked = (await client.get("/ui/f/users/mel/integrity", headers=h)).text
    assert "Whole: 3 versions" in checked and root[:16] in checked


async def test_the_timeline_is_by_day_filtered_by_date(client, tenant):
    h = tenant.headers
    await client.put("/users/mel/passport", json=DOC, headers=h)
    everything = (await client.get("/ui/f/users/mel/timeline", headers=h)).text
    assert "Monday 8 May 2023" in everything and "Friday 2 June 2023" in everything
    assert 'data-forget="m2"' in everything
    june = await client.get("/ui/f/users/mel/timeline", params={"since": "2023-06"}, headers=h)
    assert "I ran a race." in june.text and "I moved to Kwekwe." not in june.text
    may = await client.get(
        "/ui/f/users/mel/timeline", params={"since": "2023-05-01", "until": "2023-05-31"}, headers=h
    )
    assert "I moved to Kwekwe." in may.text and "I ran a race." not in may.text
    bad = await client.get("/ui/f/users/mel/timeline", params={"since": "May"}, headers=h)
    assert bad.status_code == 422 and bad.headers["content-type"] == "application/problem+json"


async def test_the_timeline_shows_an_episode_with_its_people_end_and_words(client, tenant):
    episode = {
        "id": "seg_1",
        "ts": "2023-05-08T13:56:00Z",
        "end": "2023-05-08T14:30:00Z",
        "summary": "I moved to Kwekwe.",
        "participants": ["Mel", "Ana"],
        "keywords": ["kwekwe", "moved"],
        "source": "seg_1",
        "quoted": True,
    }
    doc = {**DOC, "user_key": "ep", "episodes": [episode]}
    await client.put("/users/ep/passport", json=doc, headers=tenant.headers)
    page = (await client.get("/ui/f/users/ep/timeline", headers=tenant.headers)).text
    assert '<span class="kind">Episode</span>' in page
    assert "Mel, Ana · until 8 May 2023, 14:30 UTC · about kwekwe, moved" in page


async def test_another_tenants_user_is_not_found(client, tenant):
    await client.put("/users/mel/passport", json=DOC, headers=tenant.headers)
    other = await make_tenant(client, "other")
    for path in ("", "/beliefs", "/timeline", "/versions", "/versions/1", "/agent"):
        found = await client.get(f"/ui/f/users/mel{path}", headers=other.headers)
        assert found.status_code == 404, path
        assert found.json()["detail"] == "no user 'mel'"


async def test_the_ui_is_not_in_the_openapi_spec(client):
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert not [p for p in paths if p.startswith(("/ui", "/mcp"))]
