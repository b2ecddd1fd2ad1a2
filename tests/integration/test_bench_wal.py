"""The agent loop's WAL split reads, with the server's own pg_waldump, what was logged whole."""

from __future__ import annotations

import uuid

import pytest

from bench.agent_loop import WalDump, connect, wal_position

pytestmark = pytest.mark.integration


def test_the_first_change_to_a_page_after_a_checkpoint_logs_it_whole(test_servers):
    url = test_servers.create_database(f"tessera_wal_{uuid.uuid4().hex[:8]}")
    with connect(url) as db:
        dump = WalDump(db)
        if dump.command is None:
            pytest.skip("the test server's files are not on this machine")
        db.execute("CREATE TABLE spread (id int PRIMARY KEY, v text)")
        db.execute("INSERT INTO spread SELECT g, repeat('x', 200) FROM generate_series(1, 4000) g")
        db.execute("CHECKPOINT")

        def update(value: str) -> int | None:
            start = wal_position(db)[1]
            # One row in every hundred: a row on each of about 30 pages of the table.
            db.execute("UPDATE spread SET v = %s WHERE id %% 100 = 0", (value,))
            return dump.page_images(start, wal_position(db)[1])

        first, again = update("y"), update("z")
    assert first is not None and again is not None
    assert first > 20 * 4096  # pages logged whole (less the holes Postgres leaves out)
    assert again < first / 4  # the same pages again: logged already since the checkpoint
