"""Noise pruning: blobs, traces and dumps go; everything around them stays byte for byte."""

from __future__ import annotations

import base64
import hashlib
import random

import pytest

from app.domain.ingest.noise import prune_noise

BEFORE = "Here is what I saw:\n"
AFTER = "\nCan you help me fix it?"


def _b64(n_bytes: int, seed: int = 1) -> str:
    return base64.b64encode(random.Random(seed).randbytes(n_bytes)).decode()


def _hex(n_bytes: int, seed: int = 2) -> str:
    return random.Random(seed).randbytes(n_bytes).hex()


def _pruned_between(noise: str) -> str:
    """Prune BEFORE + noise + AFTER, check both survive verbatim, return what replaced noise."""
    out = prune_noise(BEFORE + noise + AFTER)
    assert out.startswith(BEFORE)
    assert out.endswith(AFTER)
    return out[len(BEFORE) : len(out) - len(AFTER)]


def test_base64_run_is_replaced_by_a_marker_with_its_size() -> None:
    blob = _b64(4000)
    assert _pruned_between(blob) == f"[base64 omitted: {len(blob):,} chars]"


def test_data_uri_is_removed_whole() -> None:
    uri = "data:image/png;base64," + _b64(1000)
    middle = _pruned_between(f"logo: {uri} end")
    assert middle == f"logo: [base64 omitted: {len(uri):,} chars] end"


def test_urlsafe_base64_is_removed() -> None:
    blob = base64.urlsafe_b64encode(random.Random(3).randbytes(600)).decode()
    assert "omitted" in _pruned_between(blob)


def test_short_base64_is_kept() -> None:
    token = _b64(60)
    assert _pruned_between(token) == token


def test_python_traceback_is_removed_through_the_error_line() -> None:
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/app/main.py", line 10, in <module>\n'
        "    main()\n"
        '  File "/app/main.py", line 6, in main\n'
        '    return {}["x"]\n'
        "           ~~^^^^^\n"
        "KeyError: 'x'"
    )
    assert _pruned_between(trace) == "[traceback omitted: 7 lines, KeyError]"


def test_truncated_traceback_keeps_the_following_prose() -> None:
    trace = 'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\nNote: cut'
    assert _pruned_between(trace) == "[traceback omitted: 2 lines, truncated]\nNote: cut"


def test_java_frames_are_removed_and_the_exception_line_kept() -> None:
    trace = (
        'Exception in thread "main" java.lang.IllegalStateException: boom\n'
        "\tat com.example.Foo.bar(Foo.java:42)\n"
        "\tat com.example.Foo.main(Foo.java:10)\n"
        "\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)\n"
        "\t... 5 more"
    )
    assert _pruned_between(trace) == (
        'Exception in thread "main" java.lang.IllegalStateException: boom\n'
        "\t[stack frames omitted: 4 lines]"
    )


def test_javascript_frames_are_removed() -> None:
    trace = (
        "TypeError: x is undefined\n"
        "    at Object.<anonymous> (/app/index.js:3:9)\n"
        "    at Module._compile (node:internal/modules/cjs/loader:1105:14)\n"
        "    at new Promise (<anonymous>)\n"
        "    at async Promise.all (index 0)"
    )
    expected = "TypeError: x is undefined\n    [stack frames omitted: 4 lines]"
    assert _pruned_between(trace) == expected


def test_two_frame_lines_are_not_enough() -> None:
    frames = "    at a.b(C.java:1)\n    at d.e(F.java:2)"
    assert _pruned_between(frames) == frames


def test_prose_lines_starting_with_at_are_kept() -> None:
    text = "Plan:\nat 10:30 coffee\nat home (with Bob)\nat the park (probably)\nat noon lunch"
    assert prune_noise(text) == text


def test_long_hex_run_is_removed() -> None:
    run = _hex(200)
    assert _pruned_between(f"key=0x{run};") == f"key=[hex omitted: {len(run) + 2:,} chars];"


def test_hexdump_lines_are_removed() -> None:
    dump = "\n".join(
        f"{offset:08x}  de ad be ef 00 11 22 33  44 55 66 77 88 99 aa bb  |................|"
        for offset in range(0, 64, 16)
    )
    assert _pruned_between(dump) == "[hex dump omitted: 4 lines]"


def test_xxd_lines_are_removed() -> None:
    dump = (
        "00000000: 7f45 4c46 0201 0100 0000 0000 0000 0000  .ELF............\n"
        "00000010: 0300 3e00 0100 0000 1011 0000 0000 0000  ..>.............\n"
        "00000020: 4000 0000 0000 0000 c836 0000 0000 0000  @........6......"
    )
    assert _pruned_between(dump) == "[hex dump omitted: 3 lines]"


@pytest.mark.parametrize(
    "keep",
    [
        "550e8400-e29b-41d4-a716-446655440000",
        hashlib.sha256(b"tessera").hexdigest(),
        hashlib.sha512(b"tessera").hexdigest(),
        "https://example.com/docs/v2/guide?lang=en&page=3#install",
        "ann.lee+tessera@example.co.zw",
        "/usr/local/lib/python3.11/site-packages/tessera/app/domain/ingest/noise.py",
        "C:\\Users\\ann\\Documents\\report-2023.docx",
        "version 1.2.3-rc.1 and v10.0.19045",
        "=" * 300,
        "-" * 300,
        "/very/long" * 40,
        "def f(x: int) -> int:\n    return x * 2  # double\n",
        "We met at 1:56 pm on 8 May, 2023 and talked about Kwekwe for an hour.",
    ],
)
def test_ordinary_content_is_untouched(keep: str) -> None:
    text = f"before {keep} after"
    assert prune_noise(text) == text


def test_several_kinds_in_one_text() -> None:
    blob = _b64(900)
    frames = "    at a.b(C.java:1)\n    at d.e(F.java:2)\n    at g.h(I.java:3)\n"
    text = f"one {blob}\ntwo\n{frames}three"
    marker = f"[base64 omitted: {len(blob):,} chars]"
    assert prune_noise(text) == f"one {marker}\ntwo\n    [stack frames omitted: 3 lines]\nthree"


def test_one_megabyte_of_near_misses_completes_and_is_kept() -> None:
    # Runs just under every threshold: a backtracking regex would crawl on this.
    chunk = "z" * 199 + " " + "0123456789abcdef" * 8 + " at x\n" + "a.b" * 60 + "\n"
    text = chunk * (1_000_000 // len(chunk))
    assert prune_noise(text) == text


def test_one_megabyte_of_noise_completes_and_collapses() -> None:
    text = "\tat com.example.Foo.bar(Foo.java:42)\n" * 28_000 + _b64(400_000)
    out = prune_noise(text)
    assert out.startswith("\t[stack frames omitted: 28000 lines]\n[base64 omitted: ")
    assert len(out) < 100
