"""The list prices proctor ships: each model maker's published price per million tokens, for
the models the coding-agent CLIs use, as of :data:`LIST_PRICES_AS_OF`.

A model priced in the configuration's ``pricing`` table takes that price; every other model
takes its list price here, by its own id or a form of it a provider writes (see
:func:`list_name`); a model in neither has no price (an unknown cost, never 0).

**Long prompts.** A whole response whose prompt is over 200,000 tokens costs more on Claude
Sonnet 4 and 4.5 (with the 1M-token window, a beta that ended on 2026-04-30) and on Gemini 2.5
Pro, 3 Pro and 3.1 Pro, and on Claude Opus 4.6's fast mode; over 272,000 tokens on GPT-5.4,
5.5 and 5.6 (:data:`LONG_CONTEXT`).
Such a response is priced at those rates where its own tokens are known (a history's
sessions, a trial's usage events).

**Fast mode.** A Claude response served in Anthropic's fast mode (its ``usage.speed`` is
``"fast"``) counts for the model with ``-fast`` after its name (``claude-opus-4-8-fast``, as
ccusage names it), at that mode's rates: Opus 5 and 4.8 $10 and $50, Opus 4.6 $30 and $150
($60 and $225 for a prompt over 200,000 tokens, as its page gave them while that mode ran),
the usual cache multiples on top. The other
models' fast modes (Opus 5.5's, Fable 5.2's, Opus 4.7's before it was removed) have no rates
on the pages read, so they have no list price.

What a list price leaves out (set ``pricing`` for the model where these matter):

* **a provider's own rates**: batch and flex discounts, OpenAI's fast mode (priority
  processing), Claude's US-only inference (1.1 times), Bedrock's regional endpoints (their
  ids, ``us.anthropic.…``, have no list price here; Vertex AI's ids do not name their
  region), contracts.
* **rates as they were**: a response is priced at this list's rates whatever its day, but for
  the changes a page gives the day of (:data:`LIST_CHANGES`: Gemini 3.8 Flash's price is an
  offer through 2026-12-31, $1.50 and $7.50 from 2027-01-01), which apply by the day the
  session or trial started. Claude Opus 4.6 and Sonnet 4.6 also charged more for long prompts
  before 2026-03-14, at rates the pages read no longer give. GPT-5.6 Sol's price was an offer
  "at least through November 21, 2026", so it has none here.

The sources: Anthropic's https://platform.claude.com/docs/en/about-claude/pricing (as of
2026-08-22; Opus 4.6's fast mode from its fast mode page,
https://platform.claude.com/docs/en/build-with-claude/fast-mode, while that mode ran),
OpenAI's https://developers.openai.com/api/docs/pricing and
https://developers.openai.com/api/docs/guides/prompt-caching, and Google's
https://ai.google.dev/gemini-api/docs/pricing (as of October 2026). Prices of models since
retired are the last ones listed: their sessions stay in people's histories.
"""

from __future__ import annotations

import re
from datetime import date

LIST_PRICES_AS_OF = "2026-10-07"
"""The day of the latest page read (Anthropic's was read as of 2026-08-22, Google's and
OpenAI's as of October 2026)."""

Price = tuple[float, float, float, float, float]
"""Dollars per million tokens: input, output, cache read, cache write for five minutes, cache
write for an hour (as :class:`~proctor.models.pricing.ModelPrice` names them)."""


def _claude(input_: float, output: float) -> Price:
    """Anthropic's prices follow from the input's: a cache read costs a tenth of the input, a
    cache write for five minutes 1.25 times the input, one for an hour twice the input (the
    models whose page says otherwise are written out)."""
    return (input_, output, round(input_ / 10, 6), input_ * 1.25, input_ * 2)


def _cached(input_: float, output: float, cached: float) -> Price:
    """OpenAI's (to GPT-5.5) and Google's: cached input at its own price; caching costs nothing
    to write (a token a CLI counts as written to a cache is priced as input)."""
    return (input_, output, cached, input_, input_)


def _written(input_: float, output: float, cached: float) -> Price:
    """OpenAI's from GPT-5.6: a cache write costs 1.25 times the input."""
    return (input_, output, cached, input_ * 1.25, input_ * 1.25)


LIST_PRICES: dict[str, Price] = {
    # Anthropic
    "claude-opus-5-5": (4, 20, 0.2, 5, 8),
    "claude-opus-5": _claude(5, 25),
    "claude-sonnet-5": _claude(2, 10),
    "claude-fable-5-1": (10, 50, 0.25, 12.5, 20),
    "claude-fable-5": _claude(10, 50),
    "claude-opus-4-8": _claude(5, 25),
    "claude-opus-4-7": _claude(5, 25),
    "claude-opus-4-6": _claude(5, 25),
    # Fast mode (``usage.speed`` "fast": the model's tokens counted apart, see list_name)
    "claude-opus-5-fast": _claude(10, 50),
    "claude-opus-4-8-fast": _claude(10, 50),
    "claude-opus-4-6-fast": _claude(30, 150),
    "claude-opus-4-5": _claude(5, 25),
    "claude-opus-4-1": _claude(15, 75),
    "claude-opus-4": _claude(15, 75),
    "claude-sonnet-4-6": _claude(3, 15),
    "claude-sonnet-4-5": _claude(3, 15),
    "claude-sonnet-4": _claude(3, 15),
    "claude-3-7-sonnet": _claude(3, 15),
    "claude-3-5-sonnet": _claude(3, 15),
    "claude-haiku-4-5": _claude(1, 5),
    "claude-3-5-haiku": _claude(0.8, 4),
    "claude-3-haiku": (0.25, 1.25, 0.03, 0.3, 0.5),
    "claude-3-opus": _claude(15, 75),
    # OpenAI
    "gpt-5.6-terra": _written(2, 12, 0.2),
    "gpt-5.6-luna": _written(0.2, 1.2, 0.02),
    "gpt-5.5": _cached(5, 30, 0.5),
    "gpt-5.4": _cached(2.5, 15, 0.25),
    "gpt-5.4-mini": _cached(0.75, 4.5, 0.075),
    "gpt-5.4-nano": _cached(0.2, 1.25, 0.02),
    "gpt-5.3-codex": _cached(1.75, 14, 0.175),
    "gpt-5.2": _cached(1.75, 14, 0.175),
    "gpt-5.2-codex": _cached(1.75, 14, 0.175),
    "gpt-5.1": _cached(1.25, 10, 0.125),
    "gpt-5.1-codex": _cached(1.25, 10, 0.125),
    "gpt-5.1-codex-max": _cached(1.25, 10, 0.125),
    "gpt-5.1-codex-mini": _cached(0.25, 2, 0.025),
    "gpt-5": _cached(1.25, 10, 0.125),
    "gpt-5-codex": _cached(1.25, 10, 0.125),
    "gpt-5-mini": _cached(0.25, 2, 0.025),
    "gpt-5-nano": _cached(0.05, 0.4, 0.005),
    "o3": _cached(2, 8, 0.5),
    "o4-mini": _cached(1.1, 4.4, 0.275),
    "gpt-4.1": _cached(2, 8, 0.5),
    # Google (Gemini 3.8 Flash: an offer through 2026-12-31, then $1.50 and $7.50)
    "gemini-3.8-flash": _cached(0.75, 3.75, 0.075),
    "gemini-3.5-flash": _cached(1.5, 9, 0.15),
    "gemini-3.5-flash-lite": _cached(0.3, 2.5, 0.03),
    "gemini-3.1-pro-preview": _cached(2, 12, 0.2),
    "gemini-3-pro-preview": _cached(2, 12, 0.2),
    "gemini-3-flash-preview": _cached(0.5, 3, 0.05),
    "gemini-2.5-pro": _cached(1.25, 10, 0.125),
    "gemini-2.5-flash": _cached(0.3, 2.5, 0.03),
    "gemini-2.5-flash-lite": _cached(0.1, 0.4, 0.01),
}
"""Dollars per million tokens, by the model's id without a date."""

LIST_CHANGES: dict[str, tuple[tuple[date, Price, tuple[int, Price] | None], ...]] = {
    # The offer's end: the input and output the page gives; cached input at a tenth of the
    # input, as Google's other 3.x Flash models.
    "gemini-3.8-flash": ((date(2027, 1, 1), _cached(1.5, 7.5, 0.15), None),),
}
"""The models whose list price changes on a day the page gives: from that day (in UTC), that
price and those long-context rates, the days in order. Before the first, and for a response
whose day is not known, :data:`LIST_PRICES` and :data:`LONG_CONTEXT` hold."""

LONG_CONTEXT: dict[str, tuple[int, Price]] = {
    "claude-opus-4-6-fast": (200_000, _claude(60, 225)),
    "claude-sonnet-4-5": (200_000, (6, 22.5, 0.6, 7.5, 12)),
    "claude-sonnet-4": (200_000, (6, 22.5, 0.6, 7.5, 12)),
    "gpt-5.6-terra": (272_000, (4, 18, 0.4, 5, 5)),
    "gpt-5.6-luna": (272_000, (0.4, 1.8, 0.04, 0.5, 0.5)),
    "gpt-5.5": (272_000, (10, 45, 1, 10, 10)),
    "gpt-5.4": (272_000, (5, 22.5, 0.5, 5, 5)),
    "gemini-3.1-pro-preview": (200_000, (4, 18, 0.4, 4, 4)),
    "gemini-3-pro-preview": (200_000, (4, 18, 0.4, 4, 4)),
    "gemini-2.5-pro": (200_000, (2.5, 15, 0.25, 2.5, 2.5)),
}
"""The models whose response costs other rates when its prompt (input, cache reads and cache
writes) is over a number of tokens: that number, and the rates of all the response's tokens."""

FAST = "-fast"
"""After the model of a Claude response served in fast mode, as the Claude Code readers name it
(:func:`proctor.transcripts.claude.records.usage_model`); it stays after the name the list
finds (``claude-opus-4-8-20260101-fast`` is ``claude-opus-4-8-fast``)."""
US_ONLY = "-us"
"""After the model of a Claude response whose inference ran in the US only (its
``usage.inference_geo`` is ``"us"``), after :data:`FAST` when both apply
(``claude-opus-4-8-fast-us``); it stays after the name the list finds, as :data:`FAST` does."""
CLAUDE_SUFFIXES = (US_ONLY, FAST)
"""What the Claude Code readers write after a model's name, the outer one first."""
US_ONLY_RATE = 1.1
"""How many times its model's rates a US-only response costs, every kind of token (input,
output, cache reads and writes, a long prompt's rates too) and on top of fast mode: Anthropic's
data residency pricing, for Claude 4.6 and later models (:func:`us_only_priced`)."""
US_ONLY_FROM = (4, 6)
"""The first Claude version whose US-only responses cost :data:`US_ONLY_RATE` times its rates:
the earlier models refuse the parameter, and "always use standard pricing"."""
_VERSION = re.compile(r"claude-(?:[a-z]+-)?(\d+)(?:-(\d+))?(?=-|$)")


def us_only_priced(model: str) -> bool:
    """Whether the US-only responses of the Claude model ``model`` cost more than its others
    (its version is :data:`US_ONLY_FROM` or later; a name whose version cannot be read is
    taken for a later model's)."""
    found = _VERSION.match(list_name(model))
    if found is None:
        return True
    return (int(found.group(1)), int(found.group(2) or 0)) >= US_ONLY_FROM


_BEDROCK = re.compile(r"(?:global\.)?anthropic\.(claude-[a-z0-9.-]+?)(?:-v\d+(?::\d+)?)?")
_VERTEX = re.compile(r"(claude-[a-z0-9.-]+)@\d{8}")
_DATED = re.compile(r"(.+?)(?:-\d{8}|-\d{4}-\d{2}-\d{2})")


def list_name(model: str) -> str:
    """The id :data:`LIST_PRICES` keys ``model`` by: without a provider's prefix
    (``anthropic/``, ``models/``), Bedrock's and Vertex AI's forms of a Claude id
    (``anthropic.claude-sonnet-4-5-20250929-v1:0``, ``claude-sonnet-4-5@20250929``), a date
    (``-20250929``, ``-2025-08-07``) or Claude Code's ``[1m]``; a Claude version written with
    a dot (``claude-sonnet-4.5``) is written with a dash. A fast mode's ``-fast`` and a US-only
    response's ``-us`` stay at the end: their rates are their own."""
    name = model.strip().lower().rsplit("/", 1)[-1].removesuffix("[1m]")
    kept = ""
    for suffix in CLAUDE_SUFFIXES:
        if name.endswith(suffix) and "claude-" in name:
            name, kept = name.removesuffix(suffix).removesuffix("[1m]"), suffix + kept
    if (found := _BEDROCK.fullmatch(name)) or (found := _VERTEX.fullmatch(name)):
        name = found.group(1)
    if found := _DATED.fullmatch(name):
        name = found.group(1)
    if name.startswith("claude-"):
        name = name.replace(".", "-")
    return name + kept
