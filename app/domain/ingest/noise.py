"""Noise pruning before extraction: base64 blobs, stack traces and hex dumps become short markers.

Noise costs extraction tokens and carries no memory. Each removal leaves a marker such as
``[base64 omitted: 5,432 chars]`` so the extractor still knows something was there. Everything
is line logic or regexes without nested ambiguous repeats, so the cost is linear in the input.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Base64 (standard and url-safe alphabets). The look-behind lets a match start only where a run
# starts, so each run is scanned once, not once per offset. A data: URI head is found afterwards.
_B64_CHARS = r"A-Za-z0-9+/=_\-"
_BASE64_RUN = re.compile(rf"(?<![{_B64_CHARS}])[{_B64_CHARS}]{{200,}}")
_DATA_URI_HEAD = re.compile(r"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,")
_DATA_URI_HEAD_MAX = 200
# 129+ so a SHA-512 digest (exactly 128 hex digits) survives like a SHA-256 one does.
_HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{129,}")

_TRACEBACK_HEAD = "Traceback (most recent call last):"
# The closing "SomeError: message" line: a dotted name, or a name with a usual exception suffix,
# so a prose line such as "Note: ..." right after a truncated traceback is not swallowed.
_EXC_LINE = re.compile(
    r"(?:(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*"
    r"|[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Iteration|Failure|Fault|Timeout))"
    r"(?::.*)?"
)
# Java and JavaScript frames: "at pkg.Cls.method(File.java:42)", "at fn (/app/x.js:1:2)",
# "at /app/x.js:1:2", "at async Promise.all (index 0)". One name token, then an optional (...).
_FRAME = re.compile(
    r"at (?:async |new )?(?P<name>[^\s(]+)(?: \[as [^\]\s]+\])?"
    r" ?(?:\((?P<where>[^()]*(?:\([^()]*\)[^()]*)?)\))?(?: ~?\[[^\]]*\])?"
)
_FRAME_WHERE = re.compile(r":\d|<anonymous>|native|Native Method|Unknown Source|index \d")
_FRAME_MORE = re.compile(r"\.\.\. \d+ (?:more|common frames omitted)")
# hexdump -C / xxd / od style: an offset of 6+ hex digits, then 4+ groups of hex bytes.
_HEXDUMP_LINE = re.compile(r"[0-9A-Fa-f]{6,16}:?(?:[ \t]+[0-9A-Fa-f]{2,8}){4,}(?:[ \t].*)?")
_MIN_BLOCK_LINES = 3
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_FRAME_NAME = re.compile(r"[./<>$]")


def _base64_start(text: str, start: int) -> int:
    """Where the removal starts: before a data: URI head that leads into the run, if any."""
    if not text.endswith(";base64,", 0, start):
        return start
    head = text.rfind("data:", max(0, start - _DATA_URI_HEAD_MAX), start)
    if head >= 0 and _DATA_URI_HEAD.fullmatch(text, head, start):
        return head
    return start


def _hex_start(text: str, start: int) -> int:
    """Where the removal starts: before a '0x' that leads into the run, if any."""
    if text.endswith(("0x", "0X"), 0, start) and (start < 3 or not text[start - 3].isalnum()):
        return start - 2
    return start


def _replace_runs(
    text: str,
    pattern: re.Pattern[str],
    label: str,
    accept: Callable[[str], bool],
    widen: Callable[[str, int], int],
) -> str:
    """Replace each accepted run (widened to the left by ``widen``) with '[label omitted: N]'."""
    out: list[str] = []
    done = 0
    for match in pattern.finditer(text):
        if not accept(match.group(0)):
            continue
        start = max(widen(text, match.start()), done)
        out.append(text[done:start])
        out.append(f"[{label} omitted: {match.end() - start:,} chars]")
        done = match.end()
    out.append(text[done:])
    return "".join(out)


def _looks_base64(run: str) -> bool:
    """Real base64 mixes cases and digits; a ruler of '=' or a long path does not."""
    has_upper = any(c.isupper() for c in run)
    has_lower = any(c.islower() for c in run)
    has_digit = any(c.isdigit() for c in run)
    # Base64 has a '/' once in 64 characters on average; a file path has one every few.
    return has_upper and has_lower and has_digit and run.count("/") * 16 <= len(run)


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _body(line: str) -> str:
    """The line without its line ending."""
    return line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def _is_frame(stripped: str) -> bool:
    if _FRAME_MORE.fullmatch(stripped):
        return True
    match = _FRAME.fullmatch(stripped)
    if match is None:
        return False
    where = match["where"]
    return _FRAME_NAME.search(match["name"]) is not None or (
        where is not None and _FRAME_WHERE.search(where) is not None
    )


def _block_kind(line: str) -> str | None:
    """'stack frames' or 'hex dump' when the line can belong to such a block, else None."""
    stripped = _body(line).strip()
    # Cheap first-character checks keep ordinary prose lines away from the regexes.
    if stripped.startswith(("at ", "... ")):
        return "stack frames" if _is_frame(stripped) else None
    if stripped[:1] in _HEX_DIGITS and _HEXDUMP_LINE.fullmatch(stripped):
        return "hex dump"
    return None


def _traceback_end(lines: list[str], start: int) -> tuple[int, str]:
    """One past the last line of the traceback headed at lines[start], and its exception name."""
    base = _indent(lines[start])
    end = start + 1
    while end < len(lines):
        body = _body(lines[end])
        if body.strip() and _indent(body) > base:
            end += 1
            continue
        closing = body.strip()
        if closing and _indent(body) == base and _EXC_LINE.fullmatch(closing):
            return end + 1, closing.split(":", 1)[0]
        break
    return end, "truncated"


def _replace(lines: list[str], start: int, end: int, marker: str) -> str:
    """The marker, at the block's indentation, keeping the line ending of its last line."""
    first, last = lines[start], lines[end - 1]
    ending = last[len(_body(last)) :]
    return first[: _indent(first)] + marker + ending


def _prune_lines(text: str) -> str:
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _TRACEBACK_HEAD in line and _body(line).strip() == _TRACEBACK_HEAD:
            end, error = _traceback_end(lines, i)
            out.append(_replace(lines, i, end, f"[traceback omitted: {_lines(end - i)}, {error}]"))
            i = end
            continue
        kind = _block_kind(line)
        end = i + 1
        if kind is not None:
            while end < len(lines) and _block_kind(lines[end]) == kind:
                end += 1
        if kind is not None and end - i >= _MIN_BLOCK_LINES:
            out.append(_replace(lines, i, end, f"[{kind} omitted: {_lines(end - i)}]"))
        else:
            # Too short to be noise: keep verbatim, and move past lines already looked at.
            out.extend(lines[i:end])
        i = end
    return "".join(out)


def prune_noise(text: str) -> str:
    """Replace base64 runs, stack traces and hex dumps with short markers; keep all else as is."""
    text = _prune_lines(text)
    text = _replace_runs(text, _BASE64_RUN, "base64", _looks_base64, _base64_start)
    return _replace_runs(text, _HEX_RUN, "hex", lambda run: True, _hex_start)
