"""Fit the context ranker's weights on the development sets' relevance labels, cross-validated by
chat, and write them to ``app/domain/context/ranking/weights.py``.

``python -m bench.fit_ranker [--half tune] [--folds 5] [--write] [--cache FILE]``

Labels: a REALTALK question's evidence messages, a BEAM question's source message ids. Each chat
of the half is ingested as the service would (the rule extractor, in process); per question, its
candidates' features are read as a read does (``ranking.candidates``, ``ranking.features``), and
a candidate is relevant when its record is one of the labelled messages. The weights are fitted
listwise (a softmax over each question's candidates, Newton's method with an L2 penalty, numpy
only; each question and each set weighing alike), then scaled and offset so the score is a
candidate's chance of being relevant. Printed: recall of the labelled messages among the first
5 / 10 / 20 candidates, per set, for BM25 alone, the weights in the repository, and the weights
fitted on the other folds (chats never seen in fitting).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from app.adapters.embeddings.static import StaticEmbedder
from app.domain.context.index import EvidenceIndex
from app.domain.context.ranking.candidates import NEAREST, candidates
from app.domain.context.ranking.features import FEATURES, cheap_features, text_features
from app.domain.context.ranking.question import Question
from app.domain.context.ranking.scorer import similarity_of, weights_of
from app.domain.context.vectors import Vectors
from app.services.embedding import catch_up
from bench.conversations import data as beam_data
from bench.conversations import run as beam_run
from bench.realtalk import data as realtalk_data
from bench.realtalk import run as realtalk_run
from bench.splits import HALVES, of_half

WEIGHTS_FILE = Path(__file__).resolve().parents[1] / "app/domain/context/ranking/weights.py"
# Candidates per question whose features are all read (the best by BM25 and neighbours): more
# than a read reranks, so the fit sees the weak candidates a read must keep down too.
ROWS = 300
BUDGET = 6000
RECALL_AT = (5, 10, 20)
L2 = 1.0

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Sample:
    """One question's candidates: their features, which are relevant, and their records."""

    dataset: str
    chat: str
    rows: Matrix
    relevant: npt.NDArray[np.bool_]
    records: npt.NDArray[np.int64]
    wanted: int  # labelled messages the log holds


def sample_of(
    dataset: str,
    chat: str,
    index: EvidenceIndex,
    question: Question | None,
    labels: Iterable[str],
) -> Sample | None:
    """A question's sample; None when it has no words to rank by or no labelled message."""
    wanted = set(labels)
    records = [t for t in range(len(index)) if wanted & set(index.record(t).turn_ids)]
    if question is None or not question.tokens or not records:
        return None
    similarity = similarity_of(index, question)
    found = candidates(index, question.tokens, None, BUDGET, similarity)
    rows = cheap_features(index, question, found, similarity)
    prior = rows[:, FEATURES.index("bm25")] + 0.5 * rows[:, FEATURES.index("neighbours")]
    keep = np.argsort(-prior, kind="stable")[:ROWS]
    if similarity is not None:  # the passages nearest the question are candidates too
        near = np.argsort(-rows[:, FEATURES.index("similarity")], kind="stable")[:NEAREST]
        keep = np.union1d(keep, near)
    rows = rows[keep]
    docs = found.docs[keep]
    text_features(index, question, docs.tolist(), rows)
    turns = index.passage_turns()[docs]
    relevant = np.isin(turns, records)
    return Sample(dataset, chat, rows.astype(np.float64), relevant, turns, len(records))


async def questions_of(
    dataset: str,
    chats: Sequence[Any],
    ingest: Callable[[Any], Awaitable[Any]],
    labels: Callable[[Any], Iterable[str]],
) -> list[Sample]:
    """Every question of ``chats`` with labels: each chat ingested as ``ingest`` does it, its
    passages embedded by the local model."""
    embedder = StaticEmbedder()
    out = []
    for chat in chats:
        index = (await ingest(chat)).user.index().evidence
        await catch_up(index, embedder)
        for q in chat.questions:
            question = _with_vector(Question.of(q.question), embedder.vectors([q.question])[0])
            found = sample_of(dataset, chat.id, index, question, labels(q))
            if found is not None:
                out.append(found)
        print(f"  {dataset} {chat.id}: {len(out)} questions so far", file=sys.stderr)
    return out


def _with_vector(question: Question | None, vector: Vectors) -> Question | None:
    return replace(question, vector=vector) if question is not None else None


def both_sets(half: str) -> list[Sample]:
    """The samples of REALTALK's half (evidence messages) and BEAM's (source message ids)."""
    talks = of_half(realtalk_data.load(realtalk_data.DEFAULT_DATA), _id, "realtalk", half)
    beams = of_half(beam_data.load(beam_data.DEFAULT_DATA), _id, "beam500k", half)
    return asyncio.run(
        questions_of("realtalk", talks, realtalk_run.ingest, lambda q: q.evidence)
    ) + asyncio.run(questions_of("beam", beams, beam_run.ingest, lambda q: q.sources))


def _id(chat: Any) -> str:
    return str(chat.id)


def _weights_of(samples: Sequence[Sample]) -> Matrix:
    """Per row: each question weighs the same, its relevant and other rows half each, each set
    half of all."""
    sets = {s.dataset for s in samples}
    per_set = {d: sum(1 for s in samples if s.dataset == d) for d in sets}
    out = []
    for s in samples:
        share = 1.0 / (len(sets) * per_set[s.dataset])
        hits = int(s.relevant.sum())
        w = np.where(s.relevant, 0.5 / max(hits, 1), 0.5 / max(s.relevant.size - hits, 1)) * share
        out.append(w)
    return np.concatenate(out)


def fit(samples: Sequence[Sample], l2: float = L2, without: Sequence[str] = ()) -> Matrix:
    """Weights (the bias last): their direction fitted listwise, then scaled and offset to be a
    probability; the features named in ``without`` keep weight 0."""
    keep = [i for i, name in enumerate(FEATURES) if name not in without]
    useful = [s for s in samples if s.relevant.any()]
    direction = np.zeros(len(FEATURES))
    direction[keep] = _listwise(useful, keep, l2)
    scale, bias = _calibrated(useful, direction)
    return np.array([*(scale * direction), bias])


def _listwise(samples: Sequence[Sample], keep: Sequence[int], l2: float) -> Matrix:
    """The weights that make a question's relevant candidates likeliest among its candidates
    (a softmax over each question's candidates; each question, and each set, weighs alike)."""
    sets = {s.dataset for s in samples}
    per_set = {d: sum(1 for s in samples if s.dataset == d) for d in sets}
    beta = np.zeros(len(keep))
    for _ in range(50):
        grad = l2 * beta
        hess = l2 * np.eye(len(keep))
        for s in samples:
            x = s.rows[:, keep]
            z = x @ beta
            p = np.exp(z - z.max())
            p /= p.sum()
            mean = p @ x
            weight = len(samples) / (len(sets) * per_set[s.dataset])
            grad -= weight * (x[s.relevant].mean(axis=0) - mean)
            centred = x - mean
            hess += weight * (centred * p[:, None]).T @ centred
        # Newton's step, no longer than 1 a weight: a full step can overshoot from far away.
        step = np.clip(np.linalg.solve(hess, grad), -1.0, 1.0)
        beta -= step
        if np.abs(step).max() < 1e-7:
            break
    return beta


def _calibrated(samples: Sequence[Sample], direction: Matrix) -> tuple[float, float]:
    """(scale, bias) that make ``sigmoid(scale * logit + bias)`` a candidate's chance of being
    relevant (a two-weight logistic regression, each question weighing alike)."""
    z = np.concatenate([s.rows @ direction for s in samples])
    y = np.concatenate([s.relevant for s in samples]).astype(np.float64)
    w = _weights_of(samples)
    w = w / w.sum() * len(samples)
    x = np.column_stack([z, np.ones_like(z)])
    beta = np.array([1.0, 0.0])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30, 30)))
        grad = x.T @ (w * (p - y))
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + 1e-9 * np.eye(2)
        step = np.clip(np.linalg.solve(hess, grad), -1.0, 1.0)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    return float(beta[0]), float(beta[1])


def recall(samples: Sequence[Sample], beta: Matrix, k: int) -> float:
    """Mean share of a question's labelled messages among its first ``k`` distinct records."""
    total = 0.0
    for s in samples:
        scores = s.rows @ beta[:-1] + beta[-1]
        order = np.lexsort((-s.records, -scores))  # the newer among equals, as a read does
        seen: list[int] = []
        for i in order:
            record = int(s.records[i])
            if record not in seen:
                seen.append(record)
            if len(seen) == k:
                break
        found = {int(r) for r, rel in zip(s.records, s.relevant, strict=True) if rel} & set(seen)
        total += len(found) / s.wanted
    return total / len(samples) if samples else 0.0


def folds(samples: Sequence[Sample], n: int) -> list[tuple[list[Sample], list[Sample]]]:
    """(fit on, test on) per fold; each chat's questions in one fold."""
    chats = sorted({(s.dataset, s.chat) for s in samples})
    out = []
    for f in range(n):
        held = set(chats[f::n])
        test = [s for s in samples if (s.dataset, s.chat) in held]
        train = [s for s in samples if (s.dataset, s.chat) not in held]
        out.append((train, test))
    return out


OFF = "similarity"  # the feature an embedding model gives: 0 when none is on


def report(
    samples: Sequence[Sample],
    n_folds: int,
    without: Sequence[str] = (),
    l2: float = L2,
    current: Matrix | None = None,
) -> str:
    """Recall at each k per set: BM25 alone, the weights in the repository (``current``; by
    default those used without an embedding model), cross-validated."""
    bm25 = np.zeros(len(FEATURES) + 1)
    bm25[FEATURES.index("bm25")] = 1.0
    if current is None:
        current = repository_weights(similar=False)
    cv: dict[str, list[tuple[Sample, Matrix]]] = {}
    for train, test in folds(samples, n_folds):
        beta = fit(train, l2, without)
        for s in test:
            cv.setdefault(s.dataset, []).append((s, beta))
    lines = ["set       n    weights        " + "  ".join(f"@{k:<4}" for k in RECALL_AT)]
    for dataset in sorted(cv):
        mine = [s for s in samples if s.dataset == dataset]
        for label, value in (
            ("bm25", lambda k, m=mine: recall(m, bm25, k)),
            ("repository", lambda k, m=mine: recall(m, current, k)),
            ("cross-valid.", lambda k, d=dataset: _cv_recall(cv[d], k)),
        ):
            cells = "  ".join(f"{value(k):.3f}" for k in RECALL_AT)
            lines.append(f"{dataset:<9} {len(mine):<4} {label:<14} {cells}")
    return "\n".join(lines)


def _cv_recall(pairs: Sequence[tuple[Sample, Matrix]], k: int) -> float:
    return sum(recall([s], beta, k) for s, beta in pairs) / len(pairs)


def repository_weights(similar: bool) -> Matrix:
    """The weights the scorer uses with (``similar``) or without an embedding model, bias last."""
    return weights_of(similar).astype(np.float64)


def write(off: Matrix, similar: Matrix, half: str, path: Path = WEIGHTS_FILE) -> None:
    """The weights without and with an embedding model, as the module the scorer reads."""
    lines = [
        '"""The scorer\'s fitted weights, one per feature of ``features.FEATURES`` and the bias.',
        "",
        f"Written by ``python -m bench.fit_ranker --half {half} --write`` (a logistic regression",
        "on the relevance labels of both development sets); do not edit by hand.",
        '"""',
        "",
        "# Per feature: its weight without an embedding model (similarity is then 0), and with",
        "# one.",
        "WEIGHTS: dict[str, tuple[float, float]] = {",
        *(
            f'    "{name}": ({a:.4f}, {b:.4f}),'
            for name, a, b in zip(FEATURES, off[:-1], similar[:-1], strict=True)
        ),
        "}",
        f"BIAS = ({off[-1]:.4f}, {similar[-1]:.4f})",
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def load_samples(half: str, cache: Path | None) -> list[Sample]:
    """Both sets' samples, from ``cache`` when it holds them."""
    if cache is not None and cache.exists():
        with np.load(cache, allow_pickle=False) as held:
            return [
                Sample(str(d), str(c), held[f"rows{i}"], held[f"rel{i}"], held[f"rec{i}"], int(w))
                for i, (d, c, w) in enumerate(
                    zip(held["sets"], held["chats"], held["wanted"], strict=True)
                )
            ]
    samples = both_sets(half)
    if cache is not None:
        arrays: dict[str, npt.NDArray[np.generic]] = {
            "sets": np.array([s.dataset for s in samples]),
            "chats": np.array([s.chat for s in samples]),
            "wanted": np.array([s.wanted for s in samples]),
        }
        for i, s in enumerate(samples):
            arrays[f"rows{i}"], arrays[f"rel{i}"], arrays[f"rec{i}"] = s.rows, s.relevant, s.records
        np.savez_compressed(cache, **arrays)  # type: ignore[arg-type]
    return samples


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: read the samples, print the cross-validated recall, optionally write the weights."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.fit_ranker", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--half", choices=HALVES, default="tune", help="the chats fitted on")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds, by chat")
    parser.add_argument("--write", action="store_true", help="write the weights fitted on all")
    parser.add_argument("--cache", type=Path, help="keep (or read) the samples here")
    parser.add_argument("--without", default="", help="comma-separated features held at weight 0")
    parser.add_argument("--l2", type=float, default=L2, help="the penalty on the weights")
    parser.add_argument(
        "--similar-only",
        action="store_true",
        help="write only the weights used with an embedding model, keeping the others",
    )
    args = parser.parse_args(argv)
    samples = load_samples(args.half, args.cache)
    without = [name for name in args.without.split(",") if name]
    unknown = set(without) - set(FEATURES)
    if unknown:
        parser.error(f"no such features: {', '.join(sorted(unknown))}")
    fitted = []
    for similar in (False, True):
        held = without if similar else [*without, OFF]
        print("with the local embedding model" if similar else "without an embedding model")
        print(report(samples, args.folds, held, args.l2, repository_weights(similar)))
        beta = fit(samples, args.l2, held)
        print(
            "fitted on all: "
            + ", ".join(f"{n} {v:+.3f}" for n, v in zip([*FEATURES, "bias"], beta, strict=True))
        )
        fitted.append(beta)
    if args.write:
        off = repository_weights(similar=False) if args.similar_only else fitted[0]
        write(off, fitted[1], args.half)
        print(f"wrote {WEIGHTS_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
