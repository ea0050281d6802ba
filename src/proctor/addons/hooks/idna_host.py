"""The WHATWG "domain to ASCII" step of ``new URL`` for a host that is not all ASCII, as Claude
Code 2.1.197's Bun runs it (UTS #46 with Unicode 15.1), measured with ``claude plugin validate``
on the hosts the unit tests name: which international names a ``homepage`` (or a hook's
``url``) may hold.

An all-ASCII host is taken as it is (``xn--a``, ``-a-``, ``a..b`` pass), as Bun does. A host
with any other character is mapped (full-width letters and digits to ASCII, ``．`` and ``。`` to
dots, soft hyphens and variation selectors dropped, case folded) and then fails on: a
character UTS #46 disallows (controls, spaces, format characters other than the joiners,
private-use code points, noncharacters, U+FFFD, Hangul fillers, a character that maps to a dot
such as ``⒈``, and the few :data:`DISALLOWED` that Python's Unicode data cannot tell apart), a
label starting with a combining mark, a label that is not all ASCII once mapped and is longer
than 1000 UTF-16 code units (:data:`LONGEST_LABEL`; an ``xn--`` label is not counted), a
zero-width joiner not after a virama, a zero-width non-joiner not after a virama nor between
letters of a joining script, a right-to-left label (or a left-to-right one in a name holding
right-to-left text) that breaks the bidi rule of RFC 5893, and an ``xn--`` label that does not
decode to valid non-ASCII text. Hyphens at a label's ends or in its 3rd and 4th places, empty
labels and long all-ASCII labels pass. Every check is one pass over the host.

Made with the standard library (Python's ``idna`` codec is IDNA 2003, the ``idna`` package
IDNA 2008: both refuse names ``new URL`` takes, such as an emoji), so it is UTS #46 in part:
the mapping is NFKC with case folding (not the UTS #46 table), the joining-script rule is
read from character names. A code point the running Python's Unicode data does not assign
(Python 3.11 has Unicode 14, so the emoji ``🩷``, CJK Extension H and I, Kawi, Nag Mundari) is
unknown, not refused (a false refusal skips a plugin Claude Code loads): it passes every check
(it is no mark, it joins, it may be a virama, its label has no bidi class to break the rule),
so a host Claude Code takes for a character Unicode 15 or 15.1 added passes on any Python, and
the dozen of those UTS #46 disallows are in :data:`DISALLOWED`. A code point no Unicode assigns
yet (``U+0378``) passes too, where Claude Code refuses it; a noncharacter (``U+FDD0``) fails.
It agrees with ``claude plugin validate`` on every other host the unit tests name.
"""

from __future__ import annotations

import unicodedata

DOTS = "\u3002\uff0e\uff61"
"""What UTS #46 maps to a label separator (besides ``.``)."""
IGNORED = frozenset(
    "\u00ad\u034f\u180b\u180c\u180d\u180f\u200b\u2060\u2064\ufeff"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0x1BCA0, 0x1BCA4)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
"""What UTS #46 drops from a name (soft hyphen, zero-width space, variation selectors, ...)."""
JOINERS = "\u200c\u200d"
HANGUL_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")
DISALLOWED = frozenset(
    "\u04c0\u17b4\u17b5\u1806\u2061\u2062\u2063\u2132\u2183\u31ef\ufe12\ufffc"
    + "".join(map(chr, range(0x10A0, 0x10C6)))
    + "".join(map(chr, range(0x2FF0, 0x3000)))
    + "".join(map(chr, range(0x13439, 0x13440)))
    + "\U0002f868\U0002f874\U0002f91f\U0002f95f\U0002f9bf"
)
"""What UTS #46 (15.1) disallows though its kind and mapping in Python's Unicode data would let
it pass: Cyrillic palochka, the Georgian capitals (which Python's case folding maps to valid
letters), Khmer inherent vowels, the Mongolian todo soft hyphen, three invisible operators
(``U+2061``-``U+2063``), turned capital F, reversed Roman one hundred, the ideographic
description characters, the vertical ideographic full stop (``︒``, folded to ``。``), the
object replacement character, the Egyptian hieroglyph format controls Unicode 15 added, and
five CJK compatibility ideographs."""
DISALLOWED_KINDS = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp", "Zs"})
LONGEST_LABEL = 1000
"""The most UTF-16 code units a label that is not all ASCII may have once mapped (ICU's
Punycode limit): ``ü`` 1000 times passes, 1001 times fails, and so do 501 emoji."""
JOINING_SCRIPTS = (
    "ARABIC",
    "SYRIAC",
    "NKO",
    "MONGOLIAN",
    "MANDAIC",
    "PHAGS-PA",
    "MANICHAEAN",
    "PSALTER PAHLAVI",
    "HANIFI ROHINGYA",
    "SOGDIAN",
    "ADLAM",
    "CHORASMIAN",
    "OLD UYGHUR",
)
"""Scripts whose letters join, so a zero-width non-joiner between two of them is valid."""
RTL = frozenset({"R", "AL"})
RTL_ALLOWED = frozenset({"R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})
LTR_ALLOWED = frozenset({"L", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})


def domain_to_ascii(host: str) -> str | None:
    """``host`` (percent-escapes decoded) as ``new URL`` carries it on, lower-cased with its
    international labels checked, or None when it refuses it."""
    if host.isascii():
        return host.lower()
    if any(c in DISALLOWED or (c != "." and c not in DOTS and "." in _mapped(c)) for c in host):
        return None  # such as ⒈ (mapped to "1."), which UTS #46 disallows
    mapped = unicodedata.normalize("NFC", "".join(_mapped(c) for c in host))
    if any(_disallowed(c) for c in mapped):
        return None
    labels = []
    for label in mapped.split("."):
        if label.startswith("xn--"):
            decoded = _decoded(label[4:])
            if decoded is None:
                return None
            label = decoded
        elif not label.isascii() and _utf16_length(label) > LONGEST_LABEL:
            return None
        labels.append(label)
    if not all(_valid_label(label) for label in labels):
        return None
    if _bidi_domain(labels) and not all(_bidi_rule(label) for label in labels if label):
        return None
    return mapped


def unknown(char: str) -> bool:
    """Whether the running Python's Unicode data does not assign ``char`` (a noncharacter,
    which no Unicode assigns, is not unknown)."""
    if unicodedata.category(char) != "Cn":
        return False
    point = ord(char)
    return not (0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE)


def _mapped(char: str) -> str:
    if char in DOTS:
        return "."
    if char in IGNORED:
        return ""
    if char in JOINERS or char in "ßς":  # deviations, kept by non-transitional processing
        return char
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", char).casefold())


def _disallowed(char: str) -> bool:
    if char == "\ufffd" or char in HANGUL_FILLERS or char in DISALLOWED:
        return True
    if char in JOINERS:
        return False
    kind = unicodedata.category(char)
    return kind in DISALLOWED_KINDS or (kind == "Cn" and not unknown(char))


def _utf16_length(label: str) -> int:
    return len(label) + sum(1 for c in label if c > "\uffff")


def _decoded(code: str) -> str | None:
    """An ``xn--`` label's Punycode ``code`` decoded, or None: no code, no Unicode text, or
    text that is all ASCII, holds a disallowed character or is not as mapping leaves it."""
    try:
        text = code.encode("ascii").decode("punycode") if code else ""
    except (UnicodeError, ValueError):
        return None
    if text.isascii() or any(_disallowed(c) for c in text):
        return None
    return text if "".join(_mapped(c) for c in text) == text else None


def _valid_label(label: str) -> bool:
    if label and unicodedata.category(label[0]).startswith("M"):
        return False
    return _joiners_valid(label)


def _joiners_valid(label: str) -> bool:
    """CheckJoiners (RFC 5892 appendix A.1, A.2), in one pass: a joiner after a virama; a
    non-joiner also between letters of a joining script (their joining types approximated by
    script), nonspacing marks between them skipped."""
    if "\u200c" not in label and "\u200d" not in label:
        return True
    previous = ""
    base = ""  # the last character so far that is no nonspacing mark
    waiting = False  # a non-joiner wants the next character that is no nonspacing mark to join
    for char in label:
        mark = unicodedata.category(char) == "Mn"
        if waiting and not mark:
            if not _joins(char):
                return False
            waiting = False
        if char in JOINERS and not _virama(previous):
            if char == "\u200d" or not _joins(base):
                return False
            waiting = True
        if not mark:
            base = char
        previous = char
    return not waiting


def _virama(char: str) -> bool:
    return char != "" and (unicodedata.combining(char) == 9 or unknown(char))


def _joins(char: str) -> bool:
    return char != "" and (unicodedata.name(char, "").startswith(JOINING_SCRIPTS) or unknown(char))


def _bidi_domain(labels: list[str]) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for label in labels for c in label)


def _bidi_rule(label: str) -> bool:
    """RFC 5893's rule for one label of a name holding right-to-left text (a label holding an
    unknown character, whose direction Python cannot tell, passes)."""
    kinds = [unicodedata.bidirectional(c) for c in label]
    if "" in kinds:
        return True
    last = next((k for k in reversed(kinds) if k != "NSM"), "")
    if kinds[0] in RTL:
        ends = last in ("R", "AL", "EN", "AN")
        return set(kinds) <= RTL_ALLOWED and ends and not {"EN", "AN"} <= set(kinds)
    return kinds[0] == "L" and set(kinds) <= LTR_ALLOWED and last in ("L", "EN")
