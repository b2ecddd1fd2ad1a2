"""Search tokens: Unicode words, CJK bigrams, stemming, stopwords and exact values."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.domain.text import noun_in, query_tokens, tokenize, word_tokens


def test_accented_latin_word_stays_whole_and_case_folds() -> None:
    assert tokenize("Café") == ["café"]
    assert tokenize("CAFÉ au lait") == tokenize("café au lait")


def test_cyrillic_and_greek_are_words() -> None:
    assert tokenize("Встреча в Москве") == ["встреча", "в", "москве"]
    # Case folding maps the final sigma, so an upper-case query meets lower-case text.
    assert tokenize("ΑΘΗΝΑ ΚΑΙ ΣΟΦΙΑ") == tokenize("Αθηνα και σοφια")


def test_combining_marks_do_not_split_words() -> None:
    assert tokenize("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"]


def test_cjk_runs_become_bigrams_so_a_word_inside_a_sentence_matches() -> None:
    sentence = set(tokenize("私は東京タワーに行きました"))
    assert set(tokenize("東京")) <= sentence
    assert set(tokenize("タワー")) <= sentence
    assert tokenize("猫") == ["猫"]  # a lone character stays a unigram
    assert set(tokenize("서울")) <= set(tokenize("서울에서 만나요"))
    assert set(tokenize("北京")).isdisjoint(tokenize("東京"))


def test_stemming_lets_word_forms_meet() -> None:
    assert tokenize("painting") == tokenize("painted") == tokenize("paints") == ["paint"]
    assert tokenize("Caroline's") == tokenize("Caroline")


def test_an_irregular_past_meets_its_verb() -> None:
    assert tokenize("I met Jon") == tokenize("I meet Jon") == tokenize("meeting Jon")
    assert tokenize("I bought a bike") == tokenize("buying a bike")
    # A light verb's past stays apart: "went" is rarer, and says more, than "go".
    assert tokenize("we went there") == ["went"]
    assert tokenize("Heard") == tokenize("hear")
    # Names that are also past forms stay names.
    assert tokenize("Won") == ["won"] and tokenize("Hung") == ["hung"]


def test_an_ordinal_meets_its_number() -> None:
    assert tokenize("her 29th birthday on June 13th") == tokenize("her 29 birthday on June 13")
    assert tokenize("1st 2nd 3rd 4th") == ["1", "2", "3", "4"]
    # Not an ordinal: the letters are more than a suffix, or a value holds the number.
    assert tokenize("4three 5g") == ["4three", "5g"]
    assert tokenize("v1.2nd")[0] == "v1.2nd"


def test_a_question_loses_the_words_that_frame_it_as_about_what_was_said() -> None:
    assert query_tokens("Which street did I mention for where I live?") == ["street", "live"]
    assert query_tokens("What did Jon say he told Mia?") == ["jon", "mia"]
    assert query_tokens("say") == ["say"]  # all it asks: kept
    assert tokenize("as you mentioned, I'd say") == ["mention", "say"]  # the log keeps them


def test_a_question_loses_go_which_says_where_or_when_not_what() -> None:
    assert query_tokens("When do I usually go shopping, and where do I go?") == ["usual", "shop"]
    assert query_tokens("Where did she go?") == ["go"]  # all it asks: kept
    assert tokenize("grab-and-go lunches") == ["grab", "go", "lunch"]  # the log keeps it


def test_stopwords_are_dropped() -> None:
    assert tokenize("What did the user say about it?") == ["user", "say"]
    assert tokenize("the of and") == []


def test_numbers_are_kept() -> None:
    assert tokenize("I ran 5 km in 2023") == ["run", "5", "km", "2023"]


def test_exact_values_are_one_token_besides_their_parts() -> None:
    cases = {
        "Order ORD-12345 shipped": ["ord-12345", "ord", "12345"],
        "Server at 10.0.0.12 is down.": ["10.0.0.12", "10", "0", "0", "12"],
        "upgrade to 2.4.1 today": ["2.4.1", "2", "4", "1"],
        "mail jane.doe@example.com": ["jane.doe@example.com", "jane", "doe"],
        "id 550e8400-e29b-41d4-a716-446655440000": ["550e8400-e29b-41d4-a716-446655440000"],
        "see https://example.com/docs?page=2": ["https://example.com/docs?page=2"],
    }
    for text, expected in cases.items():
        tokens = tokenize(text)
        position = tokens.index(expected[0])
        assert tokens[position : position + len(expected)] == expected, text


def test_a_query_naming_the_value_matches_only_that_value() -> None:
    assert "ord-12345" in tokenize("where is ord-12345?")
    assert "ord-12345" not in tokenize("order ord-12346 and 12345 items")


def test_hyphenated_words_are_not_values() -> None:
    assert tokenize("a well-known place") == ["well", "known", "place"]


def test_full_width_forms_and_ligatures_normalise() -> None:
    assert tokenize("ＡＢＣ ﬁle") == tokenize("abc file")


def test_empty_and_punctuation_only_text() -> None:
    assert tokenize("") == []
    assert tokenize("!!! ... ---") == []


NOUNS = frozenset({"version", "salary", "cookie", "glass"})


def test_a_noun_is_found_in_its_regular_plural() -> None:
    assert noun_in("version", NOUNS) and noun_in("versions", NOUNS)
    assert noun_in("salaries", NOUNS) and noun_in("cookies", NOUNS)
    assert not noun_in("glas", NOUNS)  # only a plural drops its "s"
    assert not noun_in("verses", NOUNS) and not noun_in("sala", NOUNS)


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=30))
def test_every_noun_meets_itself_and_its_regular_plurals(word: str) -> None:
    assert noun_in(word, frozenset({word}))
    assert noun_in(word + "s", frozenset({word}))
    assert not noun_in(word, frozenset())
    if word.endswith("y"):
        assert noun_in(word[:-1] + "ies", frozenset({word}))


def test_a_words_tokens_as_a_set() -> None:
    assert word_tokens("Painting") == {"paint"}
    assert word_tokens("v2.1") == {"v2.1", "v2", "1"}
    assert word_tokens("the") == frozenset()  # a stop word searches for nothing


@given(st.text(max_size=100))
def test_a_words_tokens_are_those_tokenize_gives_cached_or_not(word: str) -> None:
    # Past 64 characters a word is not cached; either way the set is tokenize's.
    assert word_tokens(word) == frozenset(tokenize(word))
    assert word_tokens(word) == frozenset(tokenize(word))
