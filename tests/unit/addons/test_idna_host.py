"""The hosts ``new URL`` takes in Claude Code 2.1.197 (its Bun), measured one by one as a plugin
manifest's ``homepage`` with ``claude plugin validate``: an all-ASCII host as it is, any other
mapped and checked as UTS #46 does (:mod:`proctor.addons.hooks.idna_host`), an IPv6 address
between brackets as the WHATWG IPv6 parser reads it."""

from __future__ import annotations

import unicodedata
from types import ModuleType
from typing import Any

import pytest

from proctor.addons.hooks import idna_host
from proctor.addons.hooks.claude_schema import web_url
from proctor.addons.hooks.idna_host import domain_to_ascii

TAKEN = [
    "b\xfccher.example",
    "xn--bcher-kva.example",
    "xn--bcher.example",
    "xn--a.example",
    "xn--.example",
    "xn--zz-.example",
    "\u4f8b\u3048.\u30c6\u30b9\u30c8",
    "a\uff0eb",
    "a\u3002b",
    "\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com",
    "fa\xdf.de",
    "-abc-.example",
    "ab--cd.example",
    "\u06271.example",
    "\xad.example",
    "a\xadb.example",
    "\u2460.example",
    "xn--ls8h.example",
    "\U0001f4a9.example",
    "a..b",
    "\u3002",
    "XN--BCHER-KVA.example",
    "xn--bcher-kva.xn--",
    "b\xfc%63her.example",
    "b%C3%BCcher.example",
    "www.\u0441\u0430\u0439\u0442.\u0440\u0444",
    "a\ufe0fb.example",
    "\u2115.example",
    "1.2.3.\uff14",
    "\uff10x7f.1",
    "1\uff0e2\uff0e3\uff0e4",
    "\u0645\u06cc\u200c\u062e.example",
    "\u0915\u094d\u200d\u0937.example",
    "\u2474.example",
    "\xdf.example",
    "a\u0301.example",
    "\u05d0.example",
    "\u2f00.example",
    "\xaa.example",
    "\u2153.example",
    "a\u2044b.example",
    "\u0640.example",
    "\u200b.example",
    "ab\u0345.example",
    "\ufb00.example",
    "a\u180bb.example",
    "-a-.b\xfccher",
    "ab--c.b\xfccher",
    "a..b\xfccher",
    "b\xfccher.",
    "B\xdcCHER.example",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xfc.example",
    "xn--bcher.b\xfccher",
    "\xfc.xn--ls8h",
    "a\u2064b.example",
    "\xfc" * 1000 + ".example",
    "\xfc" * 999 + "\xad" * 10 + ".example",
    "\xfc" * 1000 + "\xad.example",
    "\U0001f600" * 500 + ".example",
    "\xfc" * 600 + "." + "\xfc" * 600,
    "a" * 1001 + ".\xfc",
    "xn--" + ("\xfc" * 1001).encode("punycode").decode() + ".\xfc",
    "\u0628\u200c" * 499 + "\u0628.example",
    "\u0628\u064e\u200c\u064e\u0628.example",
]
"""Hosts ``claude plugin validate`` passed: punycode it cannot decode in an all-ASCII host,
full-width letters, digits and dots, ignored characters, emoji, hyphens and empty labels."""

REFUSED = [
    "a b",
    "a%20b",
    "a\u200db.example",
    "\u200d.example",
    "a\u0627.example",
    "\ufffd.example",
    "\u0301a.example",
    "\u2488.example",
    "\xa0.example",
    "a\xa0b.example",
    "\u0660\u06f0.example",
    "\ud800.example",
    "a\u2024b",
    "b%FCcher.example",
    "\u1100\u3164.example",
    "abc\u180ed.example",
    "a\u200cb.example",
    "a\uff0fb.example",
    "\u3164.example",
    "\u05d0\u0661\u06f1.example",
    "\u05d0a.example",
    "xn--a.\u05d0",
    "\ufdd0.example",
    "\ue000.example",
    "a\u2028b.example",
    "xn--a.b\xfccher.example",
    "xn--zz-.b\xfccher",
    "xn--.b\xfccher",
    "a\u200d.b\xfccher",
    "\xfc" * 1001 + ".example",
    "a" * 1000 + "\xfc.example",
    "\U0001f600" * 500 + "a.example",
    "\xfc" * 999 + "\ufb01.example",
    "\u0628\u200c" * 8000 + "\u0628.example",
    "\u0628\u200c\u200c\u0628.example",
    "\u0628\u200c\u064e.example",
    "a\u3000b.example",
]
"""Hosts it refused ("homepage: Invalid URL"): joiners out of place, a no-break space, a
character UTS #46 disallows, the bidi rule broken, an ``xn--`` label that is no valid
international name beside a non-ASCII one, a lone surrogate (read as U+FFFD), a label that is
not all ASCII longer than 1000 UTF-16 code units once mapped (``ﬁ`` is two, an emoji two)."""

DISALLOWED = [
    0x04C0,
    *range(0x10A0, 0x10C6),
    0x1680,
    0x17B4,
    0x17B5,
    0x1806,
    0x2061,
    0x2062,
    0x2063,
    0x2132,
    0x2183,
    *range(0x2FF0, 0x3000),
    0x31EF,
    0xFE12,
    0xFFFC,
    *range(0x13439, 0x13440),
    0x2F868,
    0x2F874,
    0x2F91F,
    0x2F95F,
    0x2F9BF,
]
"""Code points UTS #46 (15.1) disallows that Python's Unicode data would let pass (a letter,
a symbol, a mark, a space, folded to a valid letter or to ``。``), each refused in
``https://a<it>b.com`` by ``claude plugin validate``."""

NEWER = [
    "\U0001fa77.com",
    "a\U0001fae8b.com",
    "\U0001f6dc.com",
    "a\U00031350b.com",
    "a\U0002ebf0b.com",
    "a\U00011f04b.com",
    "a\U0001e4d0b.com",
    "a\U0001e030b.com",
    "\U00011f04\U00011f41\u200d\U00011f04.com",
    "\u05d0.a\U0001fa77b",
]
"""Hosts with characters Unicode 15 and 15.1 added (which Python 3.11's Unicode 14 does not
assign): emoji (pink heart, shaking face, wireless), CJK Extension H and I, Kawi (a joiner after
its virama), Nag Mundari, a Cyrillic modifier letter; ``claude plugin validate`` passes each."""

IPV6_TAKEN = [
    "::1",
    "::",
    "1:2:3:4:5:6:7:8",
    "0:0:0:0:0:0:0:0",
    "::FFFF",
    "::1.2.3.4",
    "::ffff:1.2.3.4",
    "1:2:3:4:5:6:1.2.3.4",
    "::0.0.0.0",
    "::1:2.3.4.5",
]
IPV6_REFUSED = [
    "g::1",
    "1:2:3:4:5:6:7:8:9",
    "1::2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7:8::",
    "fe80::1%25eth0",
    "fe80::1%eth0",
    "\uff1a\uff1a1",
    "::\u0661",
    "%3A%3A1",
    "::1.02.3.4",
    "::1.2.3.256",
    "::1.2.3",
    "1:2:3:4:5:6:7:1.2.3.4",
    "00001::",
    ":1",
    "1:::2",
    "::1::2",
    "1.2.3.4",
    " ::1",
    "",
    "v1.x",
]
"""What ``new URL`` takes and refuses between a host's brackets (``https://[::1]/``): hex
groups, one ``::``, an IPv4 tail without leading zeros; no zone id, no full-width colon, no
Arabic digit, no percent-escape."""


@pytest.mark.parametrize("host", TAKEN)
def test_a_host_new_url_takes_passes(host: str) -> None:
    assert web_url(f"https://{host}/")


@pytest.mark.parametrize("host", REFUSED)
def test_a_host_new_url_refuses_fails(host: str) -> None:
    assert not web_url(f"https://{host}/")


def test_an_international_host_is_mapped_before_it_is_read_as_an_ipv4_address() -> None:
    """A full-width ``０x7f.1`` is the IPv4 address ``0x7f.1``; ``1.2.3.２５６`` one too large."""
    assert domain_to_ascii("\uff10x7f\uff0e1") == "0x7f.1"
    assert web_url("http://\uff10x7f.1") and not web_url("http://1.2.3.\uff12\uff15\uff16")


@pytest.mark.parametrize("point", DISALLOWED, ids=lambda p: f"U+{p:04X}")
def test_a_character_uts_46_disallows_fails_though_python_would_take_it(point: int) -> None:
    assert not web_url(f"https://a{chr(point)}b.com/")


@pytest.mark.parametrize("host", NEWER)
def test_a_character_newer_than_python_s_unicode_data_passes(host: str) -> None:
    """Python 3.11's Unicode 14 does not assign these; Claude Code's Unicode 15.1 does, and
    takes them: they are unknown, so passed, on any Python (a newer one judges them)."""
    assert web_url(f"https://{host}/")


def test_a_code_point_no_unicode_assigns_passes_as_unknown() -> None:
    """``U+0378`` is unassigned in Unicode 15.1 too, and Claude Code refuses it; Python cannot
    tell it from a character newer than its data, so it passes (a noncharacter fails)."""
    assert unicodedata.category("\u0378") == "Cn"
    assert web_url("https://\u0378.example/")
    assert not web_url("https://\ufdd0.example/") and not web_url("https://a\U0001fffeb/")


@pytest.mark.parametrize("text", IPV6_TAKEN)
def test_an_ipv6_address_new_url_takes_passes(text: str) -> None:
    assert web_url(f"https://[{text}]/") and web_url(f"https://[{text}]:80/")


@pytest.mark.parametrize("text", IPV6_REFUSED)
def test_an_ipv6_address_new_url_refuses_fails(text: str) -> None:
    assert not web_url(f"https://[{text}]/")


def test_the_joiners_of_a_label_are_checked_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """A label of 999 characters, Arabic letters and zero-width non-joiners in turn, costs a
    few look-ups of Unicode data per character, not one per character for each non-joiner."""

    class Counted(ModuleType):
        looked_up = 0

        def __getattr__(self, name: str) -> Any:
            Counted.looked_up += 1
            return getattr(unicodedata, name)

    monkeypatch.setattr(idna_host, "unicodedata", Counted("unicodedata"))
    host = "\u0628\u200c" * 499 + "\u0628.example"
    assert domain_to_ascii(host) is not None
    assert Counted.looked_up < 20 * len(host)
