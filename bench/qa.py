"""Question answering benchmark: ingest conversations, answer each question from Tessera's context
with an OpenAI-compatible model, judge the answer with a model, report accuracy and cost.

``python -m bench.qa [--data FILE | --seed N --conversations K] [--dry-run] [--json PATH]``

The data set is the recall generator's format (``bench/qa_data.py`` validates it). Each session is
ingested in process as one job (prepare, extract each segment, merge, as ``bench/recall/run.py``
and the worker do) with the extractor ``--extractor`` names. Each question gets
``build_context(index, q, --budget)``; the answering model sees only that context; the judge model
compares its answer with the gold one through a strict ``{"correct": bool}`` JSON schema.
Without OPENAI_API_KEY (or ``--base-url``) it prints the plan and SKIPPED, and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from app.domain.context import build_context
from app.domain.extraction.extractor import Extraction, ExtractionInput, Extractor
from app.domain.ingest.payload import IngestPayload, parse_timestamp
from app.domain.ingest.segmentation import Plan, estimate_tokens, plan_segments, prepare
from app.domain.passport import Passport
from app.llm.errors import InvalidOutputError, ProviderError, RetryPolicy, SegmentOutputError
from app.llm.factory import make_extractor, parse_spec
from app.llm.providers import PLACEHOLDER_KEY, LLMExtractor, OpenAIClient
from app.llm.structured import StructuredRequest, ask_structured
from bench.pipeline import InMemoryUser
from bench.qa_data import ConversationRecord, DataError, DataSet, SessionRecord, load, validate
from bench.recall.generate import QUESTION_TYPES, generate
from bench.recall.run import domain_digest, text_table

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_BUDGET = 3000
KEY_ENV = "OPENAI_API_KEY"
SKIPPED = (
    "SKIPPED: set OPENAI_API_KEY (or --base-url for a local OpenAI-compatible server) "
    "to run the QA benchmark"
)
STAGES = ("extraction", "answer", "judge")
PASSPORT_ITEMS = (
    "facts",
    "prefs",
    "entities",
    "open_loops",
    "contradictions",
    "observations",
    "episodes",
)
QUESTION_TOKENS = 40  # an answer prompt's framing, date and question, roughly (for the plan)

ANSWER_SYSTEM = (
    "You answer questions about people from a memory context, and from nothing else. "
    "Answer briefly: a few words (a name, a value, a date). "
    "If the memory context does not say, answer: I don't know."
)
JUDGE_SYSTEM = (
    "You grade an answer to a question against the gold answer. It is correct when it gives "
    "the same information as the gold answer; wording, the way a date is written and extra "
    "detail do not matter. It is wrong when it gives something else, several candidates, or no "
    'answer (such as "I don\'t know"). Reply with JSON: {"correct": true} or {"correct": false}.'
)
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"correct": {"type": "boolean"}},
    "required": ["correct"],
    "additionalProperties": False,
}


class RunError(RuntimeError):
    """A model call that failed for good (after retries): the run stops with this message."""


# --- the plan (no model, no network) -------------------------------------------------------------


def payload_of(conversation: ConversationRecord, session: SessionRecord) -> IngestPayload:
    """One session as the ingest body an agent would POST: subject, session_ts, turns with ids."""
    return IngestPayload.model_validate(
        {
            "subject": conversation.subject,
            "session_ts": session.session_ts,
            "turns": [{"speaker": t.speaker, "text": t.text, "id": t.id} for t in session.turns],
        }
    )


@dataclass(frozen=True)
class ConversationPlan:
    """What ingesting and asking one conversation takes, before anything is called."""

    id: str
    sessions: int
    turns: int
    plan: Plan  # summed over the sessions' ingest jobs, as POST /plan computes each
    questions: dict[str, int]  # per question type

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "sessions": self.sessions,
            "turns": self.turns,
            "plan": self.plan.to_dict(),
            "questions": self.questions,
        }


def plan_conversation(conversation: ConversationRecord, extractor: str) -> ConversationPlan:
    """``plan_segments`` over ``prepare`` of every session, with the extractor's model calls."""
    segments = [
        s for session in conversation.sessions for s in prepare(payload_of(conversation, session))
    ]
    base = plan_segments(segments)
    calls = 0 if extractor == "rules" else base.segments
    questions = {t: 0 for t in QUESTION_TYPES}
    for question in conversation.questions:
        questions[question.type] += 1
    return ConversationPlan(
        id=conversation.id,
        sessions=len(conversation.sessions),
        turns=conversation.turns,
        plan=dataclasses.replace(base, extractor=extractor, model_calls=calls),
        questions={t: n for t, n in questions.items() if n},
    )


def _types(plans: Sequence[ConversationPlan]) -> list[str]:
    return [t for t in QUESTION_TYPES if any(t in p.questions for p in plans)]


def _plan_row(name: str, plans: Sequence[ConversationPlan], types: Sequence[str]) -> list[str]:
    """One row of the plan table: the sums over ``plans``."""

    def total(figure: str) -> int:
        return sum(getattr(p.plan, figure) for p in plans)

    row = [
        name,
        f"{sum(p.sessions for p in plans):,}",
        f"{sum(p.turns for p in plans):,}",
        f"{total('segments'):,}",
        f"{total('extraction_calls'):,}",
        f"{total('model_calls'):,}",
        f"{total('estimated_input_tokens'):,}",
        f"{sum(sum(p.questions.values()) for p in plans):,}",
    ]
    return row + [str(sum(p.questions.get(t, 0) for p in plans)) for t in types]


def plan_report(plans: Sequence[ConversationPlan], budget: int) -> str:
    """Per conversation: sessions, turns, segments, calls, estimated tokens, questions by type."""
    types = _types(plans)
    headers = ["conversation", "sessions", "turns", "segments", "extraction calls"]
    headers += ["model calls", "est. input tokens", "questions", *types]
    rows = [_plan_row(p.id, [p], types) for p in plans] + [_plan_row("all", plans, types)]
    questions = sum(sum(p.questions.values()) for p in plans)
    context = math.ceil(budget / 4) + estimate_tokens(ANSWER_SYSTEM) + QUESTION_TOKENS
    lines = [
        text_table(headers, rows),
        "   est. input tokens: of the extraction calls (segment + prompt overhead), as POST /plan;",
        "   model calls: paid extraction calls (0 with the rule extractor).",
        f"   then {questions:,} answer calls (at most ~{questions * context:,} input tokens) and "
        f"{questions:,} judge calls (one more per judge repair)",
    ]
    return "\n".join(lines)


# --- usage ----------------------------------------------------------------------------------------


@dataclass
class Usage:
    """Model calls and the tokens their usage fields reported."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, calls: int, input_tokens: int, output_tokens: int) -> None:
        self.calls += calls
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens

    def plus(self, other: Usage) -> Usage:
        return Usage(
            self.calls + other.calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


def _new_usage() -> dict[str, Usage]:
    return {stage: Usage() for stage in STAGES}


# --- ingest ---------------------------------------------------------------------------------------


@dataclass
class Ingested:
    """A conversation's passport after every session, and what extraction cost."""

    user: InMemoryUser
    segments: int
    failed_segments: int
    usage: Usage

    @property
    def passport(self) -> Passport:
        """The whole passport the sessions made."""
        return Passport.from_dict(self.user.document())


async def ingest(conversation: ConversationRecord, extractor: Extractor) -> Ingested:
    """Every session as one job, as ``bench.recall.run.ingest`` but with a chosen extractor.

    A segment whose model output fails validation twice is skipped (the worker records it as
    failed and applies the others); its calls and tokens still count.
    """
    user = InMemoryUser(conversation.id)
    usage = Usage()
    failed = 0

    async def extract(request: ExtractionInput) -> Extraction | None:
        nonlocal failed
        try:
            extraction = await extractor.extract(request)
        except SegmentOutputError as exc:
            failed += 1
            usage.add(exc.calls, exc.input_tokens, exc.output_tokens)
            return None
        except ProviderError as exc:
            raise RunError(f"extraction ({extractor.name}) failed: {exc}") from exc
        usage.add(extraction.calls, extraction.input_tokens, extraction.output_tokens)
        return extraction

    segments = 0
    for session in conversation.sessions:
        reference = parse_timestamp(session.session_ts)
        segments += await user.ingest(payload_of(conversation, session), reference, extract)
    return Ingested(user, segments, failed, usage)


# --- the two models -------------------------------------------------------------------------------


class Answerer:
    """Plain chat completions with the official ``openai`` SDK: the context in, a short answer."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None,
        http_client: object | None,
        temperature: float | None,
        timeout: float,
    ) -> None:
        import openai  # an optional extra of the service; only a real run needs it

        self._sdk = openai
        self.model = model
        self._temperature = temperature
        self._owns_http = http_client is None
        self._client: Any = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            http_client=cast(Any, http_client),
            timeout=timeout,
            max_retries=3,
        )

    async def answer(self, question: str, context: str, today: str) -> tuple[str, Usage]:
        """The model's answer to ``question`` from ``context`` alone, and what it cost."""
        user = f"Memory context:\n{context or '(empty)'}\n\nToday is {today}.\nQuestion: {question}"
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": ANSWER_SYSTEM},
                {"role": "user", "content": user},
            ],
        }
        if self._temperature is not None:
            body["temperature"] = self._temperature
        try:
            response = await self._client.chat.completions.create(**body)
        except self._sdk.APIError as exc:
            raise RunError(f"answer model {self.model}: {exc}") from exc
        choices = response.choices or []
        text = (choices[0].message.content or "") if choices else ""
        usage = response.usage
        cost = Usage(
            1,
            (usage.prompt_tokens or 0) if usage else 0,
            (usage.completion_tokens or 0) if usage else 0,
        )
        return text.strip(), cost

    async def aclose(self) -> None:
        """Close the SDK's connections, unless the caller lent the HTTP client."""
        if self._owns_http:
            await self._client.close()


def _verdict(data: object) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("correct"), bool) or len(data) != 1:
        raise InvalidOutputError('answer with exactly {"correct": true} or {"correct": false}')
    return bool(data["correct"])


class Judge:
    """A strict ``{"correct": bool}`` verdict through the service's OpenAI client (json_schema)."""

    def __init__(self, client: OpenAIClient) -> None:
        self.client = client
        self.model = client.model

    async def judge(self, question: str, gold: str, answer: str) -> tuple[bool | None, Usage]:
        """True or False, or None when the verdict failed validation twice."""
        user = f"Question: {question}\nGold answer: {gold}\nAnswer: {answer or '(no answer)'}"
        request = StructuredRequest(JUDGE_SYSTEM, user, "verdict", VERDICT_SCHEMA)
        try:
            result = await ask_structured(self.client, request, _verdict)
        except SegmentOutputError as exc:
            return None, Usage(exc.calls, exc.input_tokens, exc.output_tokens)
        except ProviderError as exc:
            raise RunError(f"judge model {self.model}: {exc}") from exc
        return result.value, Usage(result.calls, result.input_tokens, result.output_tokens)


# --- a run ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    """What a real run needs besides the data."""

    extractor: str = "rules"
    model: str = DEFAULT_MODEL
    judge_model: str = DEFAULT_MODEL
    base_url: str | None = None
    api_key: str | None = None
    budget: int = DEFAULT_BUDGET
    concurrency: int = 8
    temperature: float | None = 0.0
    timeout: float = 60.0


@dataclass(frozen=True)
class Answered:
    """One question's outcome."""

    conversation: str
    q: str
    type: str
    gold: str
    answer: str
    correct: bool
    judge_failed: bool
    context_chars: int

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class ConversationResult:
    """One conversation's answers, its passport's size and what every stage cost."""

    id: str
    answered: list[Answered]
    passport_bytes: int
    passport_items: dict[str, int]
    segments: int
    failed_segments: int
    usage: dict[str, Usage] = field(default_factory=_new_usage)


def _today(conversation: ConversationRecord) -> str:
    """The day of the last session: 'now' for the questions, as a live agent would know it."""
    day = parse_timestamp(conversation.sessions[-1].session_ts).date()
    return f"{day.day} {day:%B %Y}"


def _items(p: Passport) -> dict[str, int]:
    return {name: len(getattr(p, name)) for name in PASSPORT_ITEMS}


async def ask_conversation(
    conversation: ConversationRecord,
    ingested: Ingested,
    answerer: Answerer,
    judge: Judge,
    options: Options,
) -> ConversationResult:
    """Every question: context at the budget, an answer from it, a verdict on the answer."""
    passport = ingested.passport
    result = ConversationResult(
        id=conversation.id,
        answered=[],
        passport_bytes=len(passport.to_bytes()),
        passport_items=_items(passport),
        segments=ingested.segments,
        failed_segments=ingested.failed_segments,
    )
    result.usage["extraction"] = ingested.usage
    index = ingested.user.index()
    today = _today(conversation)
    slots = asyncio.Semaphore(max(1, options.concurrency))

    async def one(q: str, gold: str, qtype: str) -> Answered:
        context = build_context(index, q, options.budget).text
        async with slots:
            answer, answer_cost = await answerer.answer(q, context, today)
            verdict, judge_cost = await judge.judge(q, gold, answer)
        result.usage["answer"] = result.usage["answer"].plus(answer_cost)
        result.usage["judge"] = result.usage["judge"].plus(judge_cost)
        return Answered(
            conversation.id, q, qtype, gold, answer, verdict is True, verdict is None, len(context)
        )

    try:
        async with asyncio.TaskGroup() as group:  # one failure cancels the questions in flight
            tasks = [group.create_task(one(x.q, x.answer, x.type)) for x in conversation.questions]
    except ExceptionGroup as failed:
        raise failed.exceptions[0] from None
    result.answered = [task.result() for task in tasks]
    return result


async def run_qa(
    data: DataSet, options: Options, http_client: object | None = None
) -> list[ConversationResult]:
    """Ingest, answer and judge every conversation.

    ``http_client`` (an ``httpx.AsyncClient``, for tests a ``MockTransport`` one) carries every
    model call when given; otherwise each SDK client opens and closes its own.
    """
    key = options.api_key or PLACEHOLDER_KEY  # keyless local servers still get a bearer
    extractor = make_extractor(
        options.extractor, base_url=options.base_url, api_key=key, http_client=http_client
    )
    answerer = Answerer(
        options.model,
        api_key=key,
        base_url=options.base_url,
        http_client=http_client,
        temperature=options.temperature,
        timeout=options.timeout,
    )
    judge = Judge(
        OpenAIClient(
            options.judge_model,
            api_key=key,
            base_url=options.base_url,
            timeout=options.timeout,
            retry=RetryPolicy(max_retries=3),
            http_client=http_client,
            temperature=options.temperature,
        )
    )
    results: list[ConversationResult] = []
    try:
        for conversation in data.conversations:
            ingested = await ingest(conversation, extractor)
            results.append(await ask_conversation(conversation, ingested, answerer, judge, options))
    finally:
        await answerer.aclose()
        await judge.client.aclose()
        if isinstance(extractor, LLMExtractor):
            await extractor.aclose()
    return results


# --- report ---------------------------------------------------------------------------------------


def _accuracy(answered: Sequence[Answered]) -> float:
    return sum(a.correct for a in answered) / len(answered) if answered else 0.0


def summary(results: Sequence[ConversationResult], name: str) -> dict[str, Any]:
    """Accuracy (overall and by type), memory tokens per question, passport size, usage."""
    answered = [a for r in results for a in r.answered]
    by_type: dict[str, Any] = {}
    for qtype in QUESTION_TYPES:
        of_type = [a for a in answered if a.type == qtype]
        if of_type:
            by_type[qtype] = {
                "questions": len(of_type),
                "correct": sum(a.correct for a in of_type),
                "accuracy": round(_accuracy(of_type), 4),
            }
    usage = {stage: Usage() for stage in STAGES}
    for r in results:
        for stage in STAGES:
            usage[stage] = usage[stage].plus(r.usage[stage])
    chars = sum(a.context_chars for a in answered)
    items: dict[str, int] = {}
    for r in results:
        for section, n in r.passport_items.items():
            items[section] = items.get(section, 0) + n
    return {
        "id": name,
        "questions": len(answered),
        "correct": sum(a.correct for a in answered),
        "accuracy": round(_accuracy(answered), 4),
        "judge_failures": sum(a.judge_failed for a in answered),
        "by_type": by_type,
        "memory_tokens_per_question": round(chars / 4 / len(answered), 1) if answered else 0.0,
        "passport": {"bytes": sum(r.passport_bytes for r in results), "items": items},
        "segments": sum(r.segments for r in results),
        "failed_segments": sum(r.failed_segments for r in results),
        "usage": {stage: u.to_dict() for stage, u in usage.items()},
    }


def _tokens(u: dict[str, int]) -> str:
    return f"{u['input_tokens']:,}/{u['output_tokens']:,}"


def report(results: Sequence[ConversationResult], meta: dict[str, Any]) -> str:
    """Accuracy per conversation and type, then memory tokens, passport size and model usage."""
    rows = [summary([r], r.id) for r in results] + [summary(results, "all")]
    types = [t for t in QUESTION_TYPES if t in rows[-1]["by_type"]]
    accuracy = []
    for s in rows:
        cells = [s["id"], str(s["questions"]), str(s["correct"]), f"{s['accuracy']:.3f}"]
        cells += [f"{s['by_type'][t]['accuracy']:.2f}" if t in s["by_type"] else "-" for t in types]
        accuracy.append(cells)
    cost = []
    for s in rows:
        u = s["usage"]
        items = sum(s["passport"]["items"].values())
        cost.append(
            [
                s["id"],
                f"{s['memory_tokens_per_question']:,.1f}",
                f"{s['passport']['bytes'] / 1000:,.1f}",
                f"{items:,}",
                f"{u['extraction']['calls']:,}",
                _tokens(u["extraction"]),
                f"{u['answer']['calls']:,}",
                _tokens(u["answer"]),
                f"{u['judge']['calls']:,}",
                _tokens(u["judge"]),
            ]
        )
    total = rows[-1]
    lines = [
        f"QA benchmark: {meta['conversations']} conversations, {total['questions']} questions; "
        f"extractor {meta['extractor']}, answer model {meta['model']}, "
        f"judge {meta['judge_model']}, context budget {meta['budget']:,} chars",
        "",
        "Accuracy (judged), overall and by question type",
        text_table(["conversation", "questions", "correct", "accuracy", *types], accuracy),
        "",
        "Memory and cost: memory tok/q = context characters / 4, mean per question; "
        "tokens in/out from the usage fields",
        text_table(
            [
                "conversation",
                "memory tok/q",
                "passport KB",
                "items",
                "extract calls",
                "extract tokens",
                "answer calls",
                "answer tokens",
                "judge calls",
                "judge tokens",
            ],
            cost,
        ),
    ]
    notes = []
    if total["judge_failures"]:
        notes.append(f"{total['judge_failures']} verdicts failed validation (counted as wrong)")
    if total["failed_segments"]:
        notes.append(f"{total['failed_segments']} segments failed extraction (skipped)")
    lines += [f"   {n}" for n in notes]
    return "\n".join(lines)


def figures(results: Sequence[ConversationResult], meta: dict[str, Any]) -> dict[str, Any]:
    """Everything as JSON: per conversation, overall, and every question's outcome."""
    return {
        "meta": meta,
        "overall": summary(results, "all"),
        "conversations": [summary([r], r.id) for r in results],
        "answers": [a.to_dict() for r in results for a in r.answered],
    }


# --- main -----------------------------------------------------------------------------------------


def _temperature(text: str) -> float | None:
    if text.strip().lower() == "none":
        return None
    return float(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.qa", description=__doc__.splitlines()[0])
    source = parser.add_argument_group("data")
    source.add_argument("--data", type=Path, help="a data set file (the recall generator's format)")
    source.add_argument("--seed", type=int, default=1, help="generate with this seed (default 1)")
    source.add_argument(
        "--conversations", type=int, help="how many to generate (default 5) or to take from --data"
    )
    source.add_argument("--sessions", type=int, default=30, help="sessions per generated one")
    parser.add_argument("--dry-run", action="store_true", help="check the data, print the plan")
    parser.add_argument(
        "--extractor", default="rules", help="'rules' (default) or 'openai:<model>'"
    )
    parser.add_argument("--model", default=DEFAULT_MODEL, help="the answering model")
    parser.add_argument("--judge-model", help="the judging model (default: --model)")
    parser.add_argument("--base-url", help="an OpenAI-compatible server (default: OpenAI's)")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="context characters")
    parser.add_argument("--concurrency", type=int, default=8, help="questions in flight")
    parser.add_argument(
        "--temperature", type=_temperature, default=0.0, help="a number, or 'none' to omit it"
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    return parser


def load_data(args: argparse.Namespace) -> DataSet:
    """The data set a command line names: a validated file, or one generated in memory."""
    if args.data is not None:
        data = load(args.data)
        if args.conversations:
            data = data.model_copy(
                update={"conversations": data.conversations[: args.conversations]}
            )
        return data
    if args.conversations is not None and args.conversations < 1:
        raise DataError("--conversations must be at least 1")
    try:
        doc = generate(args.seed, sessions=args.sessions, conversations=args.conversations or 5)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    return validate(doc, f"generated data (seed {args.seed})")


def main(argv: Sequence[str] | None = None, *, http_client: object | None = None) -> int:
    """CLI: check the data and print the plan; then, with a key, run and report."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        provider, _ = parse_spec(args.extractor)
    except ValueError as exc:
        parser.error(str(exc))
    if provider not in ("rules", "openai"):
        parser.error("--extractor must be 'rules' or 'openai:<model>'")
    if args.budget < 1:
        parser.error("--budget must be at least 1")
    try:
        data = load_data(args)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    extractor = "rules" if provider == "rules" else args.extractor.strip()
    plans = [plan_conversation(c, extractor) for c in data.conversations]
    turns = sum(p.turns for p in plans)
    print(
        f"QA plan: {len(plans)} conversations, {sum(p.sessions for p in plans):,} sessions, "
        f"{turns:,} turns, {sum(len(c.questions) for c in data.conversations):,} questions "
        f"(seed {data.seed}); extractor {extractor}, context budget {args.budget:,} chars"
    )
    print(plan_report(plans, args.budget))
    if args.dry_run:
        return 0
    api_key = os.environ.get(KEY_ENV) or None
    if api_key is None and args.base_url is None:
        print(SKIPPED)
        return 0
    options = Options(
        extractor=extractor,
        model=args.model,
        judge_model=args.judge_model or args.model,
        base_url=args.base_url,
        api_key=api_key,
        budget=args.budget,
        concurrency=args.concurrency,
        temperature=args.temperature,
    )
    started = datetime.now(UTC)
    try:
        results = asyncio.run(run_qa(data, options, http_client))
    except (RunError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    meta = {
        "date": f"{started:%Y-%m-%d %H:%M UTC}",
        "seed": data.seed,
        "conversations": len(results),
        "extractor": options.extractor,
        "model": options.model,
        "judge_model": options.judge_model,
        "base_url": options.base_url,
        "budget": options.budget,
        "temperature": options.temperature,
        "domain_sha256": domain_digest(),
        "plan": [p.to_dict() for p in plans],
    }
    print()
    print(report(results, meta))
    if args.json:
        args.json.write_text(json.dumps(figures(results, meta), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
