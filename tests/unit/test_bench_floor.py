"""The floor bench's route does the API's body validation, so its figures include that work."""

from __future__ import annotations

from fastapi.testclient import TestClient

from bench.floor import app


def test_the_floor_route_validates_an_exchange_as_the_ingest_route_does() -> None:
    client = TestClient(app)
    exchange = {
        "turns": [
            {"role": "user", "content": "My bike chain snapped on the hill."},
            {"role": "assistant", "content": "A chain tool and a quick link will fix it."},
        ]
    }
    assert client.post("/users/ada/ingest", json=exchange).status_code == 202
    assert client.post("/users/ada/ingest", json={"turns": "not a list"}).status_code == 422
