"""The QA harness (bench/qa.py): the dry run's plan, strict data errors, a full run against a fake
OpenAI-compatible server (httpx.MockTransport, no network, no real key), and SKIPPED without a key.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench import qa
from bench.qa_data import DataError, load
from bench.recall.generate import generate

pytest.importorskip("openai")

SESSIONS = 3


@pytest.fixture
def data() -> dict[str, Any]:
    return generate(7, sessions=SESSIONS, conversations=2)


@pytest.fixture
def data_file(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def _row(out: str, name: str) -> list[str]:
    """The cells of the table row that starts with ``name``."""
    for line in out.splitlines():
        cells = line.split()
        if cells and cells[0] == name:
            return cells
    raise AssertionError(f"no row {name!r} in:\n{out}")


def _header(out: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.startswith("conversation "))
    return line.split()


def _types_in(header: list[str]) -> list[str]:
    return header[header.index("questions") + 1 :]


# --- dry run --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("extractor", "paid"), [("rules", False), ("openai:gpt-test", True)])
def test_dry_run_prints_the_plan_with_the_right_counts(
    data_file: Path,
    data: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    extractor: str,
    paid: bool,
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"the dry run called {request.url}")

    http = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    argv = ["--data", str(data_file), "--dry-run", "--extractor", extractor]
    assert qa.main(argv, http_client=http) == 0
    out = capsys.readouterr().out
    assert "SKIPPED" not in out
    types = _types_in(_header(out))
    for conversation in data["conversations"]:
        turns = sum(len(s["turns"]) for s in conversation["sessions"])
        # A generated session (10-30 short turns) is far below 1,500 tokens: one segment each.
        segments = SESSIONS
        by_type = Counter(q["type"] for q in conversation["questions"])
        cells = _row(out, conversation["id"])
        assert cells[1:7] == [
            str(SESSIONS),
            str(turns),
            str(segments),
            str(segments),
            str(segments if paid else 0),
            cells[6],  # estimated tokens, checked below
        ]
        assert int(cells[6].replace(",", "")) > segments * 400  # prompt overhead + the turns
        assert cells[7] == str(len(conversation["questions"]))
        assert dict(zip(types, map(int, cells[8:]), strict=True)) == {
            t: by_type.get(t, 0) for t in types
        }
    total = _row(out, "all")
    assert total[1] == str(2 * SESSIONS)
    assert total[7] == str(sum(len(c["questions"]) for c in data["conversations"]))


def test_dry_run_generates_in_memory(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--seed", "3", "--conversations", "1", "--sessions", "2", "--dry-run"]
    assert qa.main(argv) == 0
    out = capsys.readouterr().out
    assert "QA plan: 1 conversations, 2 sessions" in out
    assert _row(out, "recall-3-1")[1] == "2"


# --- malformed data -------------------------------------------------------------------------------


def _broken(data: dict[str, Any], change: str) -> dict[str, Any]:
    conversation = data["conversations"][0]
    if change == "speaker":
        del conversation["sessions"][0]["turns"][0]["speaker"]
    elif change == "evidence":
        conversation["questions"][0]["evidence"] = ["D99:1"]
    elif change == "type":
        conversation["questions"][0]["type"] = "trivia"
    elif change == "format":
        data["format"] = "locomo"
    elif change == "timestamp":
        conversation["sessions"][1]["session_ts"] = "next tuesday-ish"
    elif change == "turns":
        conversation["sessions"][0]["turns"] = "hello"
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("speaker", "conversations[0].sessions[0].turns[0].speaker: Field required"),
        ("evidence", "evidence names no turn: ['D99:1']"),
        ("type", "unknown question type 'trivia'"),
        ("format", "format 'locomo' is not 'tessera-recall/1'"),
        ("timestamp", "conversations[0].sessions[1].session_ts"),
        ("turns", "conversations[0].sessions[0].turns: Input should be a valid list"),
    ],
)
def test_a_malformed_file_gives_a_clear_error(
    tmp_path: Path,
    data: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    change: str,
    message: str,
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_broken(data, change)), encoding="utf-8")
    assert qa.main(["--data", str(path), "--dry-run"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"error: {path}: not a valid tessera-recall/1 data set" in captured.err
    assert message in captured.err


def test_a_file_that_is_not_json_says_where(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "tessera-recall/1",\n "conversations": [}', encoding="utf-8")
    with pytest.raises(DataError, match=r"not JSON: .* at line 2 column"):
        load(path)
    with pytest.raises(DataError, match="cannot read it"):
        load(tmp_path / "missing.json")


# --- a full run against a fake OpenAI-compatible server -------------------------------------------


EXTRACTION = {
    "facts": [],
    "prefs": [],
    "entities": [],
    "open_loops": [],
    "observations": [],
    "episode": {"summary": "They chatted.", "salience": 0.5, "participants": [], "keywords": []},
}
RIGHT_TYPES = {"fact", "identifier"}  # the fake answers these right and the rest "I don't know"


def _completion(content: str, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class FakeServer:
    """Answers from the gold answers, judges by string equality, records every request."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.gold = {
            q["q"]: (q["answer"], q["type"]) for c in data["conversations"] for q in c["questions"]
        }
        self.requests: list[tuple[httpx.Request, dict[str, Any]]] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append((request, body))
        assert request.url.path.endswith("/chat/completions")
        user = body["messages"][-1]["content"]
        schema = body.get("response_format", {}).get("json_schema", {}).get("name")
        if schema == "passport_extraction":
            return httpx.Response(200, json=_completion(json.dumps(EXTRACTION), 500, 60))
        if schema == "verdict":
            fields = dict(line.split(": ", 1) for line in user.splitlines())
            verdict = {"correct": fields["Answer"] == fields["Gold answer"]}
            return httpx.Response(200, json=_completion(json.dumps(verdict), 50, 3))
        assert "response_format" not in body
        assert body["messages"][0]["content"] == qa.ANSWER_SYSTEM
        assert user.startswith("Memory context:\n")
        question = user.rsplit("\nQuestion: ", 1)[1]
        gold, qtype = self.gold[question]
        answer = gold if qtype in RIGHT_TYPES else "I don't know"
        return httpx.Response(200, json=_completion(answer, 100, 5))

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handle))

    def of(self, kind: str) -> list[tuple[httpx.Request, dict[str, Any]]]:
        def kind_of(body: dict[str, Any]) -> str:
            name = body.get("response_format", {}).get("json_schema", {}).get("name")
            return {"passport_extraction": "extraction", "verdict": "judge"}.get(name, "answer")

        return [(r, b) for r, b in self.requests if kind_of(b) == kind]


@pytest.mark.parametrize("extractor", ["rules", "openai:fake-extractor"])
def test_a_full_run_answers_judges_and_reports_accuracy(
    monkeypatch: pytest.MonkeyPatch,
    data_file: Path,
    data: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extractor: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server = FakeServer(data)
    out_json = tmp_path / "qa.json"
    argv = ["--data", str(data_file), "--extractor", extractor, "--model", "fake-answer"]
    argv += ["--judge-model", "fake-judge", "--json", str(out_json), "--concurrency", "3"]
    assert qa.main(argv, http_client=server.client()) == 0
    out = capsys.readouterr().out
    assert "SKIPPED" not in out

    questions = [q for c in data["conversations"] for q in c["questions"]]
    right = [q for q in questions if q["type"] in RIGHT_TYPES]
    segments = 2 * SESSIONS
    extractions = segments if extractor != "rules" else 0
    assert len(server.of("answer")) == len(questions)
    assert len(server.of("judge")) == len(questions)
    assert len(server.of("extraction")) == extractions
    for request, _ in server.requests:
        assert request.headers["authorization"] == "Bearer sk-test"
        assert request.url.host == "api.openai.com"
    for _, body in server.of("answer"):
        assert body["model"] == "fake-answer"
        assert body["temperature"] == 0.0
    for _, body in server.of("judge"):
        assert body["model"] == "fake-judge"
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema"
        assert fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["schema"] == qa.VERDICT_SCHEMA

    figures = json.loads(out_json.read_text(encoding="utf-8"))
    overall = figures["overall"]
    assert overall["questions"] == len(questions)
    assert overall["correct"] == len(right)
    assert overall["accuracy"] == round(len(right) / len(questions), 4)
    for qtype, tally in overall["by_type"].items():
        assert tally["accuracy"] == (1.0 if qtype in RIGHT_TYPES else 0.0)
    assert overall["usage"] == {
        "extraction": {
            "calls": extractions,
            "input_tokens": 500 * extractions,
            "output_tokens": 60 * extractions,
        },
        "answer": {
            "calls": len(questions),
            "input_tokens": 100 * len(questions),
            "output_tokens": 5 * len(questions),
        },
        "judge": {
            "calls": len(questions),
            "input_tokens": 50 * len(questions),
            "output_tokens": 3 * len(questions),
        },
    }
    assert overall["memory_tokens_per_question"] > 0
    assert overall["passport"]["bytes"] > 0
    # Every extractor writes an episode per segment (the rules' quotes the user's words).
    assert overall["passport"]["items"]["episodes"] == segments
    assert [c["id"] for c in figures["conversations"]] == [c["id"] for c in data["conversations"]]
    assert len(figures["answers"]) == len(questions)
    # The printed report carries the same figures.
    assert "Accuracy (judged)" in out
    accuracy = _row(out.split("Accuracy (judged)", 1)[1], "all")
    assert accuracy[1:4] == [str(len(questions)), str(len(right)), f"{overall['accuracy']:.3f}"]
    cost = _row(out.split("Memory and cost", 1)[1], "all")
    assert cost[4] == str(extractions)
    assert cost[6] == str(len(questions))
    assert cost[8] == str(len(questions))


def test_a_keyless_local_server_runs_with_base_url(
    data_file: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    server = FakeServer(data)
    argv = [
        "--data",
        str(data_file),
        "--conversations",
        "1",
        "--base-url",
        "http://gpu-box:8000/v1",
    ]
    assert qa.main(argv, http_client=server.client()) == 0
    assert "SKIPPED" not in capsys.readouterr().out
    assert server.requests
    for request, _ in server.requests:
        assert str(request.url) == "http://gpu-box:8000/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer not-needed"


def test_a_refused_key_stops_the_run_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, data_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")

    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"error": {"message": "Incorrect API key provided"}})

    http = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    assert qa.main(["--data", str(data_file)], http_client=http) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: answer model gpt-4o-mini:")
    assert "Incorrect API key provided" in err


# --- without a key --------------------------------------------------------------------------------


def test_without_a_key_the_run_is_skipped_after_the_dry_run_checks(
    data_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"a run without a key called {request.url}")

    http = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    assert qa.main(["--data", str(data_file)], http_client=http) == 0
    out = capsys.readouterr().out
    assert "QA plan: 2 conversations" in out
    assert out.rstrip().endswith(qa.SKIPPED)
    assert qa.SKIPPED == (
        "SKIPPED: set OPENAI_API_KEY (or --base-url for a local OpenAI-compatible server) "
        "to run the QA benchmark"
    )
