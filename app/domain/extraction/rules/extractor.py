"""The offline rule extractor: deterministic, no model, no clock.

One segment in; out come the claims the rules can state cleanly about named people (facts,
preferences, open loops, each with the ``turn_ids`` of the turn it came from) and the entities they
can name, and one episode per segment made of its own words (``episodes``). No observation: the
verbatim turn log keeps what happened, with its dates resolved, and a rule rewrite of a turn would
only lose its subject and cost budget twice. Every
extracted string is copied from the input (or is a fixed template word).

The work is split into pattern families: each is a plain function that reads a ``View`` of the
segment (``view``) and fills part of an ``Extraction``. This module keeps the registry
(``FAMILIES``); each family has a module of its own: ``names`` (entities and aliases), ``facts``
(its tables in ``life``, ``settled``, ``belongings``, ``pastimes``, ``diet_and_study`` and
``negatives``), ``prefs``, ``loops``, ``instructions``, ``values`` and ``episodes``; what they
share is in ``people``, ``guards``, ``lexicon``, ``ruleset`` and ``pronouns``, and date arithmetic
in ``app.domain.dates``.
A new family is one function listed in ``FAMILIES``. A family that raises is run again turn by turn,
then sentence by sentence, so it costs only what it would have added for the sentence it fails on;
the failure is recorded in ``Extraction.failures`` and everything else is kept.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules.episodes import episode_family
from app.domain.extraction.rules.facts import fact_family
from app.domain.extraction.rules.instructions import instruction_family
from app.domain.extraction.rules.loops import open_loop_family
from app.domain.extraction.rules.names import alias_family, entity_family
from app.domain.extraction.rules.people import turn_id_of
from app.domain.extraction.rules.prefs import pref_family
from app.domain.extraction.rules.values import value_family
from app.domain.extraction.rules.view import PatternFamily, Sentence, View, build_view


class RuleExtractor:
    """The default extractor: offline rules, deterministic, no model calls."""

    name = "rules"

    async def extract(self, request: ExtractionInput) -> Extraction:
        """Extract beliefs, entities and an episode from one segment."""
        return extract_rules(request)


def extract_rules(request: ExtractionInput) -> Extraction:
    """The synchronous body of ``RuleExtractor.extract``; a rule that raises is recorded."""
    view = build_view(request)
    out = Extraction()
    for family in FAMILIES:
        _guarded(family, view, out)
    return out


def _guarded(family: PatternFamily, view: View, out: Extraction) -> None:
    """Run ``family`` on the whole view; if it raises, turn by turn, then sentence by sentence.

    A rule that fails on one sentence then costs only what it would have added for that
    sentence: the other sentences, and every other family, still give what they give.
    """
    trial = copy.deepcopy(out)
    try:
        family(view, trial)
    except Exception as error:
        parts = _parts(view)
        if len(parts) <= 1:
            out.failures.append(_failure(family, view, error))
            return
        for part in parts:
            _guarded(family, replace(view, sentences=part), out)
        return
    for name in _FIELDS:
        setattr(out, name, getattr(trial, name))


_FIELDS = (
    "facts",
    "prefs",
    "entities",
    "open_loops",
    "instructions",
    "values",
    "episode",
    "failures",
)


def _parts(view: View) -> list[list[Sentence]]:
    """The view's sentences by turn, or one by one when they are all of one turn."""
    turns: dict[int, list[Sentence]] = {}
    for sentence in view.sentences:
        turns.setdefault(sentence.turn, []).append(sentence)
    if len(turns) > 1:
        return list(turns.values())
    return [[s] for s in view.sentences]


def _failure(family: PatternFamily, view: View, error: Exception) -> dict[str, str]:
    turns = {s.turn for s in view.sentences}
    turn_id = turn_id_of(view, turns.pop()) if len(turns) == 1 else None
    return {
        "rule": family.__name__,
        "turn_id": turn_id or "",
        # The kind of error only: its text may quote what was said, and is not the tenant's to read.
        "error": type(error).__name__,
    }


# Order matters: entity_family names speakers and phrases first, so later families only type
# them (place, organization) and add aliases.
FAMILIES: tuple[PatternFamily, ...] = (
    entity_family,
    fact_family,
    pref_family,
    alias_family,
    open_loop_family,
    instruction_family,
    value_family,
    episode_family,
)
