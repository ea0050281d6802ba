"""The hosts ``new URL`` takes in Claude Code 2.1.197 (its Bun), measured one by one as a plugin
manifest's ``homepage`` with ``claude plugin validate``: an all-ASCII host as it is, any other
mapped and checked as UTS #46 does (:mod:`proctor.addons.hooks.idna_host`)."""

from __future__ import annotations

import pytest

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
    "\u0378.example",
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
]
"""Hosts it refused ("homepage: Invalid URL"): joiners out of place, a no-break space, a
character UTS #46 disallows, the bidi rule broken, an ``xn--`` label that is no valid
international name beside a non-ASCII one, a lone surrogate (read as U+FFFD)."""


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
