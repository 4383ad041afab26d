"""Quoted mentions: words a source cites as a form, which a translation may keep as a form.

A short quotation names a title, a brand, a slogan or a catchphrase ("The Gift", "McCrispy",
"zoom zoom", "whassup"): a form cited as a form. A translator who keeps it, inside quotation
marks of their own, keeps it on purpose, and MQM raters do not call that untranslated text:
on WMT23 en->de 2 of the 71 outputs that keep such a quotation in quotes are marked (both
"Lender Watch" in a headline). A longer quotation, or a short one that ends a sentence inside
its marks ("Why not?", "came up."), is speech, which a translation translates.
"""

from __future__ import annotations

import regex

from pytest_mteval.metrics.text import words

#: The longest quotation that is a mention rather than speech: a clause takes more words.
MENTION_WORDS = 3
#: What ends a sentence inside a quotation's marks.
SENTENCE_END = ".?!…。？！"
#: Quotation marks of the scripts' typographies, paired loosely ("..." and „...“ and «...»):
#: a quotation opens after a character that is not a letter, mark or digit and closes before
#: one, so the apostrophes of "don't" and "Trump's" open and close nothing.
QUOTES = "\"'“”„‟«»‹›‚‘’「」『』"
_QUOTATION = regex.compile(
    rf"(?<![\p{{L}}\p{{M}}\p{{N}}])[{QUOTES}]([^{QUOTES}\n]+)[{QUOTES}](?![\p{{L}}\p{{M}}\p{{N}}])"
)


def quoted_words(text: str) -> frozenset[str]:
    """The words (case-folded) of the text's mentions: quotations of at most MENTION_WORDS
    words that do not end a sentence inside their marks."""
    return frozenset(
        word.casefold()
        for quotation in _QUOTATION.findall(text)
        if len(found := words(quotation)) <= MENTION_WORDS
        and not quotation.rstrip().endswith(tuple(SENTENCE_END))
        for word in found
    )


def kept_mentions(source: str, predicted: str) -> frozenset[str]:
    """Words the source quotes as a mention and the output quotes too."""
    in_source = quoted_words(source)
    return in_source & quoted_words(predicted) if in_source else frozenset()
