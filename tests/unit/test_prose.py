"""The prose of a message: code, logs and markup out, a person's sentences kept."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.prose import prose_of


def test_sentences_stay_and_code_logs_and_markup_go() -> None:
    text = "\n".join(
        [
            "I moved to Lisbon last week. My coverage is now 78% (up from 65%).",
            "## Sprint 1",
            "- **Deadline**: the 5th of April",
            "Here is my code:",
            "```python",
            "def handler(event):",
            "    return event",
            "```",
            "    indented_call(arg);",
            "2024-03-01T10:00:00 ERROR worker crashed",
            "Traceback (most recent call last):",
            '{"port": 3000, "host": "localhost"}',
            "See https://example.com/docs/a/b and run `npm install` first.",
            "For the record, I prefer TypeScript over JavaScript.",
        ]
    )
    assert prose_of(text).split("\n") == [
        "I moved to Lisbon last week. My coverage is now 78% (up from 65%).",
        "Deadline: the 5th of April",
        "Here is my code:",
        "See and run",
        "first.",
        "For the record, I prefer TypeScript over JavaScript.",
    ]


def test_an_unclosed_fence_hides_the_rest_and_plain_prose_is_untouched() -> None:
    assert prose_of("Before.\n```\ncode\nMore code") == "Before."
    plain = "We went hiking on Saturday, and it rained."
    assert prose_of(plain) == plain


@given(st.text(alphabet=st.sampled_from(list("`#-*: \n{};()=>ab1./")), max_size=2000))
@settings(max_examples=300, deadline=None)
def test_any_text_gives_lines_made_of_its_own_words(text: str) -> None:
    # Nothing is invented: every word left was in the text, once its bold marks are taken off.
    words = {word.replace("**", "").replace("__", "") for word in text.split()}
    for line in prose_of(text).split("\n"):
        assert all(any(w in original for original in words) for w in line.split())


def test_a_long_sentence_that_opens_with_a_keyword_is_prose() -> None:
    line = (
        "From now on, when you answer about the deployment, always use the staging cluster first,"
    )
    assert prose_of(line) == line
    assert prose_of("for i in range(10):") == ""


def test_a_line_mostly_of_symbols_is_code_and_one_of_figures_is_prose() -> None:
    assert prose_of("=~=~=~ ++ -- !! ?? ~~ ^^ ** ==") == ""
    figures = "Coverage went 65% -> 78% -> 81%, steady."
    assert prose_of(figures) == figures
