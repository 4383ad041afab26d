"""What a dependency's licence allows: redistribution, or not, or unknown.

The method interface asks for an SPDX identifier or expression, ``proprietary`` or ``none``.
A licence is judged by its terms, not by the manifest's own ``redistributable`` flag, so a
method cannot claim rights its licence withholds. Only terms known here are judged: an SPDX
identifier missing from the lists is unknown and left to review.
"""

from __future__ import annotations

import re
from typing import Final

#: Terms that grant no redistribution: no licence at all, all rights reserved, or unknown.
NO_RIGHTS_TERMS: Final = frozenset(
    {"proprietary", "none", "unknown", "unlicensed", "noassertion", "all-rights-reserved"}
)
#: SPDX licences that restrict use or change (non-commercial, no derivatives, source-available):
#: a community cannot receive them freely, so the spec's S and O classes cannot hold them.
RESTRICTED_IDS: Final = frozenset(
    {
        "polyform-noncommercial-1.0.0",
        "polyform-strict-1.0.0",
        "elastic-2.0",
        "busl-1.1",
    }
)
#: Creative Commons licences with a NonCommercial or NoDerivatives term.
_CC_RESTRICTED: Final = re.compile(r"^CC-BY(?:-[A-Z]+)*-(?:NC|ND)(?:-|$)", re.IGNORECASE)
#: Creative Commons licences free to share and adapt (BY, BY-SA, CC0), any version or port.
_CC_OPEN: Final = re.compile(r"^(?:CC-BY(?:-SA)?-\d\.\d(?:-[A-Z]+)?|CC0-1\.0)$", re.IGNORECASE)
#: Open licences (OSI-approved software, open-data) a method commonly bundles or mirrors.
OPEN_IDS: Final = frozenset(
    i.lower()
    for i in (
        "0BSD", "AFL-3.0", "AGPL-3.0", "AGPL-3.0-only", "AGPL-3.0-or-later", "Apache-1.1",
        "Apache-2.0", "Artistic-2.0", "BSD-1-Clause", "BSD-2-Clause", "BSD-3-Clause",
        "BSD-3-Clause-Clear", "BSL-1.0", "CDLA-Permissive-1.0", "CDLA-Permissive-2.0",
        "CDLA-Sharing-1.0", "ECL-2.0", "EPL-1.0", "EPL-2.0", "EUPL-1.1", "EUPL-1.2",
        "GFDL-1.3-only", "GFDL-1.3-or-later", "GPL-2.0", "GPL-2.0-only", "GPL-2.0-or-later",
        "GPL-3.0", "GPL-3.0-only", "GPL-3.0-or-later", "ISC", "LGPL-2.1", "LGPL-2.1-only",
        "LGPL-2.1-or-later", "LGPL-3.0", "LGPL-3.0-only", "LGPL-3.0-or-later", "MIT", "MIT-0",
        "MPL-1.1", "MPL-2.0", "MS-PL", "NCSA", "ODbL-1.0", "ODC-By-1.0", "OFL-1.1",
        "OGL-UK-3.0", "PDDL-1.0", "PSF-2.0", "Python-2.0", "Unicode-3.0", "Unicode-DFS-2016",
        "Unlicense", "UPL-1.0", "W3C", "WTFPL", "X11", "Zlib", "ZPL-2.1",
    )
)  # fmt: skip
_TOKEN: Final = re.compile(r"\s*(\(|\)|[A-Za-z0-9][A-Za-z0-9.+:-]*)")
_OPERATORS: Final = ("AND", "OR", "WITH")


class LicenceSyntaxError(ValueError):
    """A licence that is neither an SPDX expression nor a term the spec names."""


def allows_redistribution(licence: str) -> bool | None:
    """True for an open licence, False for one that withholds redistribution, None unknown.

    In an expression, ``A OR B`` allows what either allows and ``A AND B`` what both allow;
    an exception (``WITH``) only adds permissions, so the base licence decides."""
    tokens = _tokens(licence)
    verdict, rest = _expression(tokens, licence)
    if rest:
        raise LicenceSyntaxError(_not_spdx(licence))
    return verdict


def why_not_redistributable(licence: str) -> str:
    """A short reason a person can check, for a licence judged not redistributable."""
    names = [t.lower() for t in _tokens(licence) if t not in ("(", ")", *_OPERATORS)]
    if any(n in NO_RIGHTS_TERMS or n.startswith("licenseref-") for n in names):
        return "it grants no public licence: all rights reserved"
    return "its terms forbid commercial use or changes: not an open licence"


def _tokens(licence: str) -> list[str]:
    text, tokens, at = licence.strip(), [], 0
    if not text:
        raise LicenceSyntaxError(_not_spdx(licence))
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None:
            raise LicenceSyntaxError(_not_spdx(licence))
        tokens.append(found.group(1))
        at = found.end()
    return tokens


def _expression(tokens: list[str], licence: str) -> tuple[bool | None, list[str]]:
    """``term (OR term)*`` where ``term`` is ``simple (AND simple)*``."""
    verdicts: list[bool | None] = []
    verdict, tokens = _term(tokens, licence)
    verdicts.append(verdict)
    while tokens[:1] == ["OR"]:
        verdict, tokens = _term(tokens[1:], licence)
        verdicts.append(verdict)
    if True in verdicts:
        return True, tokens
    return (None if None in verdicts else False), tokens


def _term(tokens: list[str], licence: str) -> tuple[bool | None, list[str]]:
    verdicts: list[bool | None] = []
    verdict, tokens = _simple(tokens, licence)
    verdicts.append(verdict)
    while tokens[:1] == ["AND"]:
        verdict, tokens = _simple(tokens[1:], licence)
        verdicts.append(verdict)
    if False in verdicts:
        return False, tokens
    return (None if None in verdicts else True), tokens


def _simple(tokens: list[str], licence: str) -> tuple[bool | None, list[str]]:
    if not tokens or tokens[0] in (")", *_OPERATORS):
        raise LicenceSyntaxError(_not_spdx(licence))
    if tokens[0] == "(":
        verdict, rest = _expression(tokens[1:], licence)
        if rest[:1] != [")"]:
            raise LicenceSyntaxError(_not_spdx(licence))
        return verdict, rest[1:]
    verdict, rest = _identifier(tokens[0]), tokens[1:]
    if rest[:1] == ["WITH"]:
        if len(rest) < 2 or rest[1] in ("(", ")", *_OPERATORS):
            raise LicenceSyntaxError(_not_spdx(licence))
        rest = rest[2:]
    return verdict, rest


def _identifier(name: str) -> bool | None:
    key = name.lower().removesuffix("+")
    if key in NO_RIGHTS_TERMS or key in RESTRICTED_IDS or _CC_RESTRICTED.search(key):
        return False
    if "licenseref-" in key:
        return False if re.search(r"proprietary|commercial|all-rights", key) else None
    if key in OPEN_IDS or _CC_OPEN.match(key):
        return True
    return None


def _not_spdx(licence: str) -> str:
    return (
        f"license {licence!r} is not an SPDX identifier or expression (e.g. Apache-2.0, "
        "MIT OR CC0-1.0), 'proprietary' or 'none'"
    )
