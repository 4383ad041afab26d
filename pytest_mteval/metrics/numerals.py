"""Numbers written with Chinese/Japanese numeral characters, read by value.

A source that writes 十万 and an output that writes 100000 hold the same number; the
hallucination check's "new number" must see that (on the WMT21 TED zh->en outputs all nine
"new numbers" it reported before were 十万 -> 100000, i.e. correct translations).
"""

from __future__ import annotations

import regex

_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5}
_DIGITS.update({"六": 6, "七": 7, "八": 8, "九": 9})
_SMALL = {"十": 10, "百": 100, "千": 1000}
_LARGE = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_RUN = regex.compile(r"[0-9〇零一二两兩三四五六七八九十百千万萬亿億]+")


def cjk_numbers(text: str) -> set[str]:
    """The values (ASCII digit strings) of the numeral runs of ``text`` that use a CJK
    numeral character: 十万 -> "100000", 3万 -> "30000", 二十五 -> "25"."""
    found = set()
    for match in _RUN.finditer(text):
        run = match.group()
        if run.isascii():
            continue  # plain digits: ``text.numbers`` reads those
        value = _value(run)
        if value is not None:
            found.add(str(value))
    return found


def _value(run: str) -> int | None:
    total = section = digit = 0
    number = ""
    for char in run:
        if char.isascii():
            number += char
            continue
        if number:
            digit, number = int(number), ""
        if char in _DIGITS:
            digit = _DIGITS[char]
        elif char in _SMALL:
            section += (digit or 1) * _SMALL[char]
            digit = 0
        elif _LARGE[char] == 10**8:  # 亿 multiplies everything before it
            total = (total + section + digit) * 10**8
            section = digit = 0
        else:  # 万 multiplies its own section: 一亿两千万 = 1 * 10^8 + 2000 * 10^4
            total += (section + digit) * 10**4
            section = digit = 0
    if number:
        digit = int(number)
    value = total + section + digit
    return value if value > 0 else None
