"""The WHATWG "domain to ASCII" step of ``new URL`` for a host that is not all ASCII, as Claude
Code 2.1.197's Bun runs it (UTS #46 with ICU), measured with ``claude plugin validate`` on 84
hosts: which international names a ``homepage`` (or a hook's ``url``) may hold.

An all-ASCII host is taken as it is (``xn--a``, ``-a-``, ``a..b`` pass), as Bun does. A host
with any other character is mapped (full-width letters and digits to ASCII, ``．`` and ``。`` to
dots, soft hyphens and variation selectors dropped, case folded) and then fails on: a
character UTS #46 disallows (controls, format characters other than the joiners, unassigned
and private-use code points, U+FFFD, Hangul fillers, a character that maps to a dot such as
``⒈``), a label starting with a combining mark, a zero-width joiner not after a virama, a
zero-width non-joiner not after a virama nor between letters of a joining script, a right-to-
left label (or a left-to-right one in a name holding right-to-left text) that breaks the bidi
rule of RFC 5893, and an ``xn--`` label that does not decode to valid non-ASCII text. Hyphens
at a label's ends or in its 3rd and 4th places, empty labels and long labels pass.

Made with the standard library (Python's ``idna`` codec is IDNA 2003, the ``idna`` package
IDNA 2008: both refuse names ``new URL`` takes, such as an emoji), so it is UTS #46 in part:
the mapping is NFKC with case folding (not the UTS #46 table), the joining-script rule is
read from character names, and a character newer than Python's Unicode data counts as
unassigned. It agrees with ``claude plugin validate`` on every host the unit tests name.
"""

from __future__ import annotations

import unicodedata

DOTS = "\u3002\uff0e\uff61"
"""What UTS #46 maps to a label separator (besides ``.``)."""
IGNORED = frozenset(
    "\u00ad\u034f\u180b\u180c\u180d\u180f\u200b\u2060\u2061\u2062\u2063\u2064\ufeff"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0x1BCA0, 0x1BCA4)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
"""What UTS #46 drops from a name (soft hyphen, zero-width space, variation selectors, ...)."""
JOINERS = "\u200c\u200d"
HANGUL_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")
DISALLOWED_KINDS = frozenset({"Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp"})
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
    if any(c != "." and c not in DOTS and "." in _mapped(c) for c in host):
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
        labels.append(label)
    if not all(_valid_label(label) for label in labels):
        return None
    if _bidi_domain(labels) and not all(_bidi_rule(label) for label in labels if label):
        return None
    return mapped


def _mapped(char: str) -> str:
    if char in DOTS:
        return "."
    if char in IGNORED:
        return ""
    if char in JOINERS or char in "ßς":  # deviations, kept by non-transitional processing
        return char
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", char).casefold())


def _disallowed(char: str) -> bool:
    if char == "\ufffd" or char in HANGUL_FILLERS:
        return True
    if char in JOINERS:
        return False
    return unicodedata.category(char) in DISALLOWED_KINDS


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
    return all(_joiner_allowed(label, i) for i, c in enumerate(label) if c in JOINERS)


def _joiner_allowed(label: str, index: int) -> bool:
    """CheckJoiners (RFC 5892 appendix A.1, A.2): a joiner after a virama; a non-joiner also
    between letters of a joining script (their joining types approximated by script)."""
    if index > 0 and unicodedata.combining(label[index - 1]) == 9:
        return True
    if label[index] == "\u200d":
        return False
    before = [c for c in label[:index] if unicodedata.category(c) != "Mn"]
    after = [c for c in label[index + 1 :] if unicodedata.category(c) != "Mn"]
    return bool(before and after) and _joins(before[-1]) and _joins(after[0])


def _joins(char: str) -> bool:
    return unicodedata.name(char, "").startswith(JOINING_SCRIPTS)


def _bidi_domain(labels: list[str]) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for label in labels for c in label)


def _bidi_rule(label: str) -> bool:
    """RFC 5893's rule for one label of a name holding right-to-left text."""
    kinds = [unicodedata.bidirectional(c) for c in label]
    last = next((k for k in reversed(kinds) if k != "NSM"), "")
    if kinds[0] in RTL:
        ends = last in ("R", "AL", "EN", "AN")
        return set(kinds) <= RTL_ALLOWED and ends and not {"EN", "AN"} <= set(kinds)
    return kinds[0] == "L" and set(kinds) <= LTR_ALLOWED and last in ("L", "EN")
