"""The inspector page in a real browser: headless Chromium (Debian's) driven by selenium.

A live `tessera api` and `tessera worker` serve a seeded user. The test does what a person
would: enters the key, opens the user, reads the beliefs and the timeline, asks what an agent
would be told, and forgets a message. Screenshots go to the test's output directory (and, with
TESSERA_TEST_SCREENSHOT=PATH, the beliefs view to PATH too: `make screenshot` refreshes the
README's picture so). `make test` installs chromium and chromium-driver when it runs as root
with apt; elsewhere the test is skipped and says so.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.live import free_port, service_env, serving

ADMIN_TOKEN = "browser-admin-token"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CHROMIUM and DRIVER),
        reason="no chromium and chromedriver here: `make test` installs them (apt-get install "
        "chromium chromium-driver) when it runs as root with apt; install them to run this",
    ),
]
# What works in a container as root without a display, and never reaches the network.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,960",
)
SESSIONS = [
    (
        "2023-05-08T13:56:00Z",
        [
            ("Melanie", "I moved to Kwekwe last week for a new job.", "m1"),
            ("Caroline", "Congrats! How is it going?", "m2"),
            ("Melanie", "I work as a nurse at the hospital now. I prefer short answers.", "m3"),
        ],
    ),
    (
        "2023-05-21T10:00:00Z",
        [
            ("Melanie", "I ran a charity race for mental health yesterday!", "m4"),
            ("Caroline", "That is wonderful. Did your kids come?", "m5"),
            ("Melanie", "Yes, and next month we are going camping at Lake Kariba.", "m6"),
        ],
    ),
]


@pytest.fixture(scope="module")
def seeded(settings, tmp_path_factory) -> Iterator[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """A live server, a tenant's key, and the user 'melanie' with two sessions ingested."""
    logs = tmp_path_factory.mktemp("browser-live")
    port = free_port()
    env = service_env(settings, logs, "tessera-browser", ADMIN_TOKEN)
    base = [sys.executable, "-m", "app.cli.main"]
    commands = {"api": [*base, "api", "--port", str(port)], "worker": [*base, "worker"]}
    with serving(commands, env, logs, port) as url:
        created = httpx.post(
            f"{url}/admin/tenants",
            json={"name": f"browser-{uuid.uuid4().hex[:6]}"},
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
            timeout=10,
        )
        key = created.json()["api_key"]["key"]
        for when, turns in SESSIONS:
            body = {
                "subject": "Melanie",
                "session_ts": when,
                "turns": [{"speaker": s, "text": t, "id": i} for s, t, i in turns],
            }
            done = httpx.post(
                f"{url}/users/melanie/ingest?wait=30",
                json=body,
                headers={"Authorization": f"Bearer {key}"},
                timeout=60,
            )
            assert done.json()["status"] == "done", done.text
        yield url, key


@pytest.fixture
def browser() -> Iterator[object]:
    """Headless Chromium through chromedriver, with a profile of its own."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = tempfile.mkdtemp(prefix="tsr-chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def test_a_person_reads_a_passport_asks_and_forgets(seeded, browser, tmp_path: Path):  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support import expected_conditions as shows
    from selenium.webdriver.support.ui import WebDriverWait

    url, key = seeded
    driver: WebDriver = browser  # type: ignore[assignment]
    wait = WebDriverWait(driver, 20)

    def find(css: str):  # type: ignore[no-untyped-def]
        return wait.until(shows.visibility_of_element_located((By.CSS_SELECTOR, css)))

    def shot(name: str) -> None:
        driver.save_screenshot(str(tmp_path / f"{name}.png"))

    driver.get(f"{url}/ui")
    find("#key-input").send_keys(key)
    shot("1-key")
    find("#key-form button").click()

    find("a.user-link").click()
    beliefs = find("#section-facts").text
    assert "location: Kwekwe" in beliefs and "occupation: nurse" in beliefs
    assert "“I moved to Kwekwe last week for a new job.”" in beliefs  # from which message
    assert "8 May 2023" in beliefs  # since when
    shot("2-beliefs")
    if target := os.environ.get("TESSERA_TEST_SCREENSHOT"):
        shutil.copyfile(tmp_path / "2-beliefs.png", target)

    find("[data-tab=timeline]").click()
    find("[data-turn=m4]")
    timeline = find("#panel").text
    assert "Monday 8 May 2023" in timeline and "Sunday 21 May 2023" in timeline
    assert "I ran a charity race for mental health yesterday!" in timeline
    shot("3-timeline")

    find("[data-tab=agent]").click()
    find("#agent-q").send_keys("Where does Melanie live?")
    find("[data-agent] button").click()
    shown = find("#agent-context").get_attribute("textContent")
    told = httpx.get(
        f"{url}/users/melanie/context",
        params={"q": "Where does Melanie live?", "budget_chars": 3000},
        headers={"Authorization": f"Bearer {key}"},
        timeout=10,
    ).text
    assert shown == told and "Kwekwe" in told  # exactly what GET /context returns
    shot("4-agent")

    find("[data-tab=timeline]").click()
    find("[data-turn=m4] [data-forget]").click()
    find("[data-turn=m4] .confirm")
    shot("5-confirm")
    find("[data-forget-confirm]").click()
    wait.until(shows.text_to_be_present_in_element((By.ID, "notice"), "Forgotten: message m4"))
    assert "Receipt " in find("#notice").text  # the forget's erasure receipt, to keep
    wait.until(shows.invisibility_of_element_located((By.CSS_SELECTOR, "[data-turn=m4]")))
    assert "I ran a charity race" not in find("#panel").text
    assert find("[data-turn=m5]")  # the rest stays
    shot("6-forgotten")

    turns = httpx.get(
        f"{url}/users/melanie/passport",
        params={"sections": "turns"},
        headers={"Authorization": f"Bearer {key}"},
        timeout=10,
    ).json()["turns"]
    assert "m4" not in [t["id"] for t in turns]
    # The key lives in the tab's session storage, never in an address.
    assert driver.execute_script("return sessionStorage.getItem('tessera.apiKey')") == key
    assert key not in driver.current_url
    # Nothing was refused by the Content-Security-Policy, and nothing else went wrong.
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]  # type: ignore[attr-defined]
    assert errors == []
