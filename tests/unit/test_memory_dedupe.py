"""Key dedupe tiers 1 and 2: normalisation, guarded fuzzy merge, polarity refusals, review."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.keys import fold_token, key_tokens, normalize_key
from app.domain.memory.dedupe import (
    CANDIDATES_MAX,
    JW_WEIGHT,
    MERGE_MIN_OVERLAP,
    REVIEW_MIN_SCORE,
    KeyDecision,
    KnownKeys,
    jaro,
    jaro_winkler,
    resolve_key,
)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("MARTHA", "MARHTA", 0.961),
        ("DIXON", "DICKSONX", 0.813),
        ("DWAYNE", "DUANE", 0.840),
    ],
)
def test_jaro_winkler_textbook_values(a: str, b: str, expected: float) -> None:
    assert jaro_winkler(a, b) == pytest.approx(expected, abs=0.001)
    assert jaro_winkler(b, a) == pytest.approx(expected, abs=0.001)


def test_jaro_edge_cases() -> None:
    assert jaro("", "") == 1.0
    assert jaro("abc", "") == 0.0
    assert jaro("abc", "xyz") == 0.0
    assert jaro("MARTHA", "MARHTA") == pytest.approx(0.944, abs=0.001)
    assert jaro_winkler("same", "same") == 1.0


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Favorite Color", "favorite_color"),
        ("  favorite-color ", "favorite_color"),
        ("favoriteColor", "favorite_color"),
        ("HTTPServerURL", "http_server_url"),
        ("favorite__ _color", "favorite_color"),
        ("_location_", "location"),
        ("Caroline.Location", "caroline.location"),
        ("Caroline . home city", "caroline.home_city"),
        ("ｆａｖｏｒｉｔｅ", "favorite"),  # fullwidth letters fold under NFKC
        ("don't call", "dont_call"),
        ("q1_revenue", "q1_revenue"),
    ],
)
def test_normalize_key(raw: str, expected: str) -> None:
    assert normalize_key(raw) == expected


def _decide(incoming: str, known: str) -> KeyDecision:
    return resolve_key(incoming, [known])


@pytest.mark.parametrize(
    ("incoming", "known"),
    [
        ("budget_max", "budget_min"),
        ("is_disabled", "is_enabled"),
        ("has_no_access", "has_access"),
        ("dislikes_x", "likes_x"),
        ("q2_revenue", "q1_revenue"),
        ("address_line_2", "address_line_1"),
        ("notifications_off", "notifications_on"),
        ("not_vegetarian", "vegetarian"),
        ("first_name", "last_name"),
        ("is_inactive", "is_active"),
    ],
)
def test_polarity_conflicts_are_refused(incoming: str, known: str) -> None:
    d = _decide(incoming, known)
    assert d.action == "refuse"
    assert d.tier == 2
    assert d.resolved == incoming  # kept as its own key
    assert d.existing == known
    assert d.reason.startswith("polarity")


def test_budget_min_max_is_refused_despite_high_jaro_winkler() -> None:
    assert jaro_winkler("budget_min", "budget_max") == pytest.approx(0.92, abs=0.005)
    assert _decide("budget_max", "budget_min").action == "refuse"


@pytest.mark.parametrize(
    ("incoming", "known"),
    [
        ("min_budget", "budget_min"),  # order-insensitive
        ("favourite_color", "favorite_color"),  # British/American
        ("favourite_colour", "favorite_color"),
        ("date_of_birth", "birth_date"),  # stopword + order
        ("favorite_colors", "favorite_color"),  # plural
        ("home_adress", "home_address"),  # typo: near-identical spelling
        ("user_name", "username"),  # same words split differently
    ],
)
def test_strong_evidence_merges(incoming: str, known: str) -> None:
    d = _decide(incoming, known)
    assert (d.action, d.tier, d.resolved, d.existing) == ("merge", 2, known, known)


def test_exact_after_normalisation_returns_known_spelling() -> None:
    d = resolve_key("Favorite Color", ["location", "favorite_color"])
    assert (d.action, d.tier, d.resolved) == ("exact", 1, "favorite_color")
    assert d.existing == "favorite_color"
    assert d.score == 1.0


def test_verbatim_known_key_is_tier_0() -> None:
    d = resolve_key("location", ["location"])
    assert (d.action, d.tier, d.resolved) == ("exact", 0, "location")


def test_namespaces_are_never_compared() -> None:
    d = resolve_key("caroline.location", ["location"])
    assert (d.action, d.resolved, d.existing) == ("new", "caroline.location", None)
    d = resolve_key("location", ["caroline.location"])
    assert (d.action, d.resolved) == ("new", "location")
    # within one namespace the usual rules apply
    d = resolve_key("caroline.favourite_color", ["caroline.favorite_color", "favorite_color"])
    assert (d.action, d.resolved) == ("merge", "caroline.favorite_color")


def test_clearly_different_key_is_new() -> None:
    d = resolve_key("occupation", ["location", "favorite_color", "budget_min"])
    assert d.action == "new"
    assert d.resolved == "occupation"
    assert d.existing is None
    assert d.score < REVIEW_MIN_SCORE


def test_uncertain_pair_goes_to_review() -> None:
    d = _decide("email", "email_address")
    assert d.action == "review"
    assert d.resolved == "email"  # kept separate until someone decides
    assert d.existing == "email_address"
    assert REVIEW_MIN_SCORE <= d.score < 1.0


def test_no_known_keys_is_new() -> None:
    d = resolve_key("  location ", [])
    assert (d.action, d.resolved, d.existing) == ("new", "location", None)


def test_merge_beats_review_and_refusal_among_candidates() -> None:
    d = resolve_key("budget_min", ["budget_max", "budget", "min_budget"])
    assert (d.action, d.resolved) == ("merge", "min_budget")


def test_decision_to_dict_is_plain() -> None:
    d = _decide("budget_max", "budget_min").to_dict()
    assert set(d) == {"incoming", "resolved", "existing", "tier", "action", "score", "reason"}
    assert d["action"] == "refuse"


def test_resolution_is_deterministic() -> None:
    known = ["budget", "budget_min", "email_address", "favorite_color"]
    assert resolve_key("budget_max", known) == resolve_key("budget_max", list(known))


def test_thresholds_keep_the_shared_word_shortcut_sound() -> None:
    # resolve_key skips Jaro-Winkler when even a perfect one could not reach review; the merge
    # rules must not be reachable below that bound either.
    assert JW_WEIGHT < REVIEW_MIN_SCORE
    assert JW_WEIGHT + (1 - JW_WEIGHT) * MERGE_MIN_OVERLAP >= REVIEW_MIN_SCORE


# Words keys are made of, with their one-typo spellings and words of opposite meaning.
_WORDS = ["budget", "budgte", "budet", "min", "max", "email", "emial", "address", "adress"]
_WORDS += ["home", "work", "favorite", "favourite", "color", "colour", "likes", "dislikes"]
_WORDS += ["enabled", "disabled", "on", "off", "not", "2023", "2024", "user", "name", "username"]


def _reference(key: str, known: list[str]) -> KeyDecision:
    """Tier 2 as it was before the index: every known key of the namespace compared."""
    from app.domain.memory import dedupe

    if key in known:
        return KeyDecision(key, key, key, 0, "exact", 1.0, "known key")
    decision = resolve_key(key, [])
    norm = normalize_key(key)
    if not norm:
        return decision
    for candidate in known:
        if normalize_key(candidate) == norm:
            return KeyDecision(key, candidate, candidate, 1, "exact", 1.0, f"normalised: {norm}")
    incoming = dedupe._prepare(norm)
    others = [(c, dedupe._prepare(normalize_key(c))) for c in known]
    same_space = [(c, o) for c, o in others if o.namespace == incoming.namespace and o.local]
    if not same_space:
        return decision
    found = [dedupe._compare(incoming, o, c) for c, o in same_space]
    comparisons = [c for c in found if c is not None]
    if not comparisons:
        return KeyDecision(key, key.strip() or key, None, 2, "new", 0.0, "no known key is close")
    best = min(comparisons, key=lambda c: (dedupe._PRIORITY[c.action], -c.score))
    if best.action == "merge":
        return KeyDecision(key, best.known, best.known, 2, "merge", best.score, best.reason)
    if best.action == "new":
        reason = f"closest {best.known!r}: {best.reason}"
        return KeyDecision(key, key.strip() or key, None, 2, "new", best.score, reason)
    return KeyDecision(key, key, best.known, 2, best.action, best.score, best.reason)


@given(
    st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3), max_size=12),
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3),
)
@settings(max_examples=300, deadline=None)
def test_the_index_decides_as_comparing_with_every_known_key_would(known_words, words) -> None:  # type: ignore[no-untyped-def]
    known = list(dict.fromkeys("_".join(w) for w in known_words))
    key = "_".join(words)
    assert resolve_key(key, KnownKeys(known)) == _reference(key, known)


def test_a_section_of_thousands_of_keys_costs_each_new_key_the_same() -> None:
    # Every key shares a word with every other: comparing with all of them was quadratic.
    index = KnownKeys()
    for n in range(400):
        key = f"note_{n}"
        decision = resolve_key(key, index)
        assert decision.action in {"new", "refuse"}  # numbers differ: never merged
        index.add(key)
    assert len(index.candidates(_prepared("note_401"))) == CANDIDATES_MAX


def _prepared(key: str):  # type: ignore[no-untyped-def]
    from app.domain.memory import dedupe

    return dedupe._prepare(normalize_key(key))


def test_numbers_in_keys_fold_to_one_spelling_and_no_digit_breaks_it() -> None:
    assert fold_token("07") == "7" and fold_token("\u0660\u0667") == "7"  # Arabic-Indic 07
    # Digits that are not decimal (a Brahmi numeral, a superscript) stay as they are.
    assert fold_token("\U00011056") == "\U00011056" and fold_token("\u00b2") == "\u00b2"
    assert fold_token("9" * 5000) == "9" * 5000  # longer than int() reads from a string
    resolve_key("item_\U00011056_\u00b2_" + "1" * 5000, KnownKeys(["item_5"]))


@given(st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_any_key_is_read_into_tokens_and_decided(key: str) -> None:
    key_tokens(key)
    resolve_key(key, KnownKeys(["line_1", "home_city"]))
