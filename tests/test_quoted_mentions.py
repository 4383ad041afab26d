"""Quoted mentions (issue 22): a word the source quotes in a short quotation (a title, a brand,
a catchphrase) and the output quotes too is a form kept as a form, not untranslated text.
Checked on frequency tables written by hand and on sentences of the genuine WMT23 en->de
outputs (segment 74), against the experts' own marks."""

from __future__ import annotations

import pytest

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics import code_switching
from pytest_mteval.metrics.quoted_mentions import kept_mentions, quoted_words
from pytest_mteval.metrics.text import words
from pytest_mteval.metrics.word_data import WordData, word_data

#: Zipf frequencies by hand (not wordfreq's): (word, language) -> value; any other is 0.
TABLE = {
    ("whassup", "en"): 1.6,
    ("guys", "en"): 5.0,
    ("really", "en"): 6.0,
    ("really", "de"): 3.4,
    ("those", "en"): 6.3,
    ("those", "de"): 2.0,
    ("tasteless", "en"): 3.2,
}


def by_hand(word: str, language: str) -> float:
    return TABLE.get((word.casefold(), language), 0.0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Those "whassup" guys', {"whassup"}),
        ("Diese „Whassup“-Typen", {"whassup"}),  # German marks; a hyphen after the close
        ("le « zoom zoom » du spot", {"zoom"}),
        ("Trump's Building On 'Lender Watch' Amid", {"lender", "watch"}),
        ("“The Gift” and “Yellowstone,”", {"the", "gift", "yellowstone"}),
        ("It's the Smiths' house, don't you know", set()),  # apostrophes quote nothing
        ('"We currently do not have a suspect" he said', set()),  # speech: over 3 words
        ('"Why not?" he asked, and "came up." she wrote', set()),  # speech: a sentence ends
        ('They call it "Yellowstone," and so on', {"yellowstone"}),  # a comma ends nothing
    ],
)
def test_a_quotation_is_a_mention_when_it_has_at_most_three_words(
    text: str, expected: set[str]
) -> None:
    assert quoted_words(text) == expected


def test_a_mention_is_kept_only_where_the_output_quotes_it_too() -> None:
    source = 'Those "whassup" guys are "tasteless" here.'
    assert kept_mentions(source, "Diese „Whassup“-Typen sind „geschmacklos“.") == {"whassup"}
    assert kept_mentions(source, "Diese Whassup-Typen sind geschmacklos.") == frozenset()
    assert kept_mentions("No quotation here.", '"No" "quotation"') == frozenset()


def detector(data: WordData | None) -> code_switching.CodeSwitching:
    return code_switching.CodeSwitching(None, frozenset(), frozenset(), word_data=data)


def leaked(metric: code_switching.CodeSwitching, entry: Entry, output: str) -> list[str]:
    return metric.leaked(words(output), entry, output)


def test_a_quoted_mention_is_not_untranslated_but_the_same_word_unquoted_is() -> None:
    metric = detector(WordData(by_hand, "en", "de"))
    entry = Entry(id="1", source='Those "whassup" guys are old.', reference="Die sind alt.")
    # By hand: "whassup" is 1.6 in English and unknown in German, so unquoted it is leaked.
    assert leaked(metric, entry, "Diese Whassup Typen sind alt.") == ["Whassup"]
    assert leaked(metric, entry, "Diese „Whassup“ Typen sind alt.") == []
    assert leaked(metric, entry, 'Diese "Whassup"-Typen sind alt.') == []
    # "guys" is not in the quotation: kept, it is leaked whatever the output quotes
    assert leaked(metric, entry, "Diese „Whassup“ guys sind alt.") == ["guys"]
    # without the output's text, nothing is known to be quoted (the older call)
    assert metric.leaked(words("Diese „Whassup“ Typen."), entry) == ["Whassup"]


def test_quoted_speech_kept_in_quotes_is_still_untranslated() -> None:
    metric = detector(WordData(by_hand, "en", "de"))
    entry = Entry(
        id="2", source='She said "those guys are really tasteless" today.', reference="Sie."
    )
    output = "Sie sagte heute „those guys are really tasteless“."
    # five words: speech, which a translation translates. By hand: "those" 2.0 < 6.3 - 1,
    # "guys" 0 < 5.0 - 1, "really" 3.4 < 6.0 - 1, "tasteless" 0 < 3.2 - 1; "are" is short.
    assert leaked(metric, entry, output) == ["those", "guys", "really", "tasteless"]


def test_the_experts_marks_on_genuine_wmt23_outputs_of_segment_74() -> None:
    pytest.importorskip("wordfreq")
    metric = detector(word_data("en", "de"))
    source = (
        "Those \"whassup\" guys but the bit is that now they're old. Everybody's into "
        "whodunnits now, right?"
    )
    entry = Entry(id="74", source=source, reference="Jeder steht auf Krimis.")
    # ONLINE-G and Lan-BridgeMT, the same two sentences. Both keep "Whassup" in quotes, and
    # no rater marked it in either (nor in any of the 9 systems' outputs); a rater marked
    # Lan-BridgeMT's "Whodunnits", which it keeps unquoted, as a source-language fragment.
    online_g = (
        'Diese "Whassup" -Typen, aber das Bisschen ist, dass sie jetzt alt sind. Jeder steht '
        "jetzt auf Krimis, richtig?"
    )
    lan_bridge = (
        'Diese "Whassup"-Jungs, aber das bisschen ist, dass sie jetzt alt sind. Jeder ist jetzt '
        "auf Whodunnits, oder?"
    )
    assert leaked(metric, entry, online_g) == []
    assert leaked(metric, entry, lan_bridge) == ["Whodunnits"]
    assert metric.score_entry(entry, online_g)["code_switching_detected"] is False
    assert metric.score_entry(entry, lan_bridge)["leaked_tokens"] == ["Whodunnits"]
