"""Generated request ids: 32 hex characters, never repeated, not even by a forked worker."""

from __future__ import annotations

import os
import re

from app.api.request_id import _new_id


def test_ids_are_hex_and_unique() -> None:
    ids = [_new_id.next() for _ in range(10_000)]
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_a_forked_process_does_not_repeat_its_parents_ids() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, then out without running the parent's test teardown
        os.write(write, _new_id.next().encode())
        os._exit(0)
    os.close(write)
    child_id = os.read(read, 64).decode()
    os.waitpid(pid, 0)
    parent_id = _new_id.next()
    assert len(child_id) == 32 and child_id[:16] != parent_id[:16]
