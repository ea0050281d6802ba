"""Dollars from tokens: the one place prices are looked up and added.

**Where a price comes from.** A model's price comes from the configuration's ``pricing``
table, under its ``provider/model`` key, its bare model name, or the name the list finds it by;
else from the list prices proctor ships (:mod:`proctor.models.list_prices`). A configured
price of a listed model takes the list's rates for those it does not give. A Claude model's
US-only responses (``…-us``) without a price of their own cost their model's price
:data:`~proctor.models.list_prices.US_ONLY_RATE` times over. proctor's own scripted agent and
scripted model (``scripted``, ``scripted/…``) cost nothing.

**The rule for unknown prices.** A model with no price has an unknown cost, which is ``None``,
never ``0``; any sum that includes an unknown cost is unknown too, and the models without a
price are listed beside it (``unpriced``) so a user knows what to add.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from proctor.models.base import CamelModel, UserModel
from proctor.models.list_prices import (
    LIST_CHANGES,
    LIST_PRICES,
    LONG_CONTEXT,
    US_ONLY,
    US_ONLY_RATE,
    Price,
    list_name,
    us_only_priced,
)
from proctor.models.trajectory import ModelUsage, ResponseTokens, usage_by_model

PER_TOKENS = 1_000_000


_OWN = "null or left out: the model's own rate"


# The rates of a long prompt: a response whose prompt (input, cache reads and cache writes)
# is over ``overPromptTokens`` costs these rates for all its tokens; a rate not given is the
# model's own. No docstring: it would change the published schema.
class LongContextPrice(UserModel):
    over_prompt_tokens: int = Field(
        gt=0,
        alias="overPromptTokens",
        description="a response whose prompt (input, cache reads and writes) is over this "
        "many tokens costs these rates for all its tokens",
    )
    input_per1_m: float | None = Field(default=None, ge=0, alias="inputPer1M", description=_OWN)
    output_per1_m: float | None = Field(default=None, ge=0, alias="outputPer1M", description=_OWN)
    cache_read_per1_m: float | None = Field(
        default=None, ge=0, alias="cacheReadPer1M", description=_OWN
    )
    cache_write_per1_m: float | None = Field(
        default=None, ge=0, alias="cacheWritePer1M", description=_OWN
    )
    cache_write1h_per1_m: float | None = Field(
        default=None,
        ge=0,
        alias="cacheWrite1hPer1M",
        description="null or left out: this price's cacheWritePer1M if given, else the "
        "model's own rate for an hour's write",
    )


# A model's dollars per million tokens, as the configuration's ``pricing`` map holds them
# (``proctor.models.config`` reads the map; the model lives here, so that pricing needs none
# of the configuration's other models). No docstring: it would change the published schema.
class ModelPrice(UserModel):
    input_per1_m: float = Field(default=0.0, ge=0, alias="inputPer1M")
    output_per1_m: float = Field(default=0.0, ge=0, alias="outputPer1M")
    cache_read_per1_m: float = Field(default=0.0, ge=0, alias="cacheReadPer1M")
    cache_write_per1_m: float = Field(default=0.0, ge=0, alias="cacheWritePer1M")
    cache_write1h_per1_m: float | None = Field(
        default=None,
        ge=0,
        alias="cacheWrite1hPer1M",
        description="a cache write kept for an hour; null or left out: cacheWritePer1M",
    )
    long_context: LongContextPrice | None = Field(
        default=None,
        alias="longContext",
        description="the rates of a long prompt's responses (left out, for a model with a list "
        "price: the list's; null: none)",
    )


def long_rates(price: ModelPrice) -> ModelPrice | None:
    """The rates of ``price``'s long prompts, each one not given its own rate (a cache write
    for an hour: the rate a cache write for an hour costs without a long prompt)."""
    long = price.long_context
    if long is None:
        return None
    hour = _either(price.cache_write1h_per1_m, price.cache_write_per1_m)
    if long.cache_write_per1_m is not None:  # without an hour's rate, the write's own
        hour = long.cache_write_per1_m
    return ModelPrice(
        input_per1_m=_either(long.input_per1_m, price.input_per1_m),
        output_per1_m=_either(long.output_per1_m, price.output_per1_m),
        cache_read_per1_m=_either(long.cache_read_per1_m, price.cache_read_per1_m),
        cache_write_per1_m=_either(long.cache_write_per1_m, price.cache_write_per1_m),
        cache_write1h_per1_m=_either(long.cache_write1h_per1_m, hour),
    )


def _either(given: float | None, otherwise: float) -> float:
    return otherwise if given is None else given


def _list_price(
    values: tuple[float, float, float, float, float], long: tuple[int, Price] | None
) -> ModelPrice:
    inp, out, read, write, write_1h = values
    return ModelPrice(
        input_per1_m=inp,
        output_per1_m=out,
        cache_read_per1_m=read,
        cache_write_per1_m=write,
        cache_write1h_per1_m=write_1h,
        long_context=None
        if long is None
        else LongContextPrice(
            over_prompt_tokens=long[0],
            input_per1_m=long[1][0],
            output_per1_m=long[1][1],
            cache_read_per1_m=long[1][2],
            cache_write_per1_m=long[1][3],
            cache_write1h_per1_m=long[1][4],
        ),
    )


FREE = ModelPrice()
_LISTED = {
    name: _list_price(values, LONG_CONTEXT.get(name)) for name, values in LIST_PRICES.items()
}


@functools.lru_cache(maxsize=4096)
def _list_key(model: str) -> str:
    """The name the list finds ``model`` by (found once per name: a history asks for each
    session's)."""
    return list_name(model)


def _listed(model: str, day: date | None = None) -> ModelPrice | None:
    """``model``'s list price on ``day`` (None: the list's own day, see
    :data:`~proctor.models.list_prices.LIST_CHANGES`)."""
    name = _list_key(model)
    if day is not None and name in LIST_CHANGES:
        return _changed(name, day)
    return _LISTED.get(name)


@functools.lru_cache(maxsize=1024)
def _changed(name: str, day: date) -> ModelPrice | None:
    price = _LISTED.get(name)
    for first, values, long in LIST_CHANGES[name]:
        if day >= first:
            price = _list_price(values, long)
    return price


class CostInfo(CamelModel):
    """A trial's dollars per model (``None``: no price) and their total (``None`` when any is
    unknown); harness roles are keyed ``role:provider/model``."""

    total_usd: float | None = None
    by_model: dict[str, float | None] = {}
    unpriced: list[str] = []
    source: str = "agent"
    collected: bool = True
    """False when the run was told not to price tokens (``--no-collect-cost``)."""


class PriceTable(BaseModel):
    """Prices per million tokens, keyed as the configuration's ``pricing`` map; a model the
    map does not name takes its list price."""

    model_config = ConfigDict(frozen=True)

    prices: dict[str, ModelPrice] = {}

    def price_of(self, model: str, day: date | None = None) -> ModelPrice | None:
        """The price of ``model`` (``provider/model``, a bare name, or ``role:provider/model``)
        for a response of ``day`` (a list price that changes on a day: see
        :data:`~proctor.models.list_prices.LIST_CHANGES`); None when it has none."""
        # The name as written first: a model's own name may hold a ':' (gpt-oss:20b,
        # a Bedrock id ending in ':0'); then without a role's prefix.
        names = (model, model.split(":", 1)[1]) if ":" in model else (model,)
        for name in names:
            found = self._lookup(name, day)
            if found is not None:
                return found
        return None

    def _lookup(self, model: str, day: date | None) -> ModelPrice | None:
        if model == "scripted" or model.startswith("scripted/"):
            return FREE
        if _us_only(model):
            return self._us_only_price(model, day)
        listed = _listed(model, day)
        found = self._configured(model) if self.prices else None
        if found is None or listed is None:
            return found if found is not None else listed
        return _over(listed, found)

    def _us_only_price(self, model: str, day: date | None) -> ModelPrice | None:
        """A Claude model's US-only responses: its model's price, configured or listed,
        :data:`~proctor.models.list_prices.US_ONLY_RATE` times over (an earlier model than
        Claude 4.6: as it is), under the rates a price configured for the US-only name gives,
        as a configured price lies over a list price."""
        found = self._configured(model) if self.prices else None
        name = model[: -len(US_ONLY)]
        base = None if _us_only(name) else self._lookup(name, day)  # (…-us-us: no model's)
        if base is not None and us_only_priced(name):
            base = us_only_rates(base)
        if found is None or base is None:
            return found if found is not None else base
        return _over(base, found)

    def _configured(self, model: str) -> ModelPrice | None:
        found = self.prices.get(model)
        if found is None:
            bare = {key.split("/", 1)[-1]: price for key, price in self.prices.items()}
            found = bare.get(model.split("/", 1)[-1])
        if found is None:  # as the list finds a model: without its date, `[1m]`, provider…
            found = self._by_list_name.get(list_name(model))
        return found

    @functools.cached_property
    def _by_list_name(self) -> dict[str, ModelPrice]:
        """The configured prices by the name the list finds a model by (the first key of a
        name, as written, wins)."""
        named: dict[str, ModelPrice] = {}
        for key, price in self.prices.items():
            named.setdefault(list_name(key), price)
        return named


def _us_only(model: str) -> bool:
    """Whether ``model`` names a Claude model's US-only responses (see
    :data:`~proctor.models.list_prices.US_ONLY`): a Claude id (as the list finds it) ending
    with it."""
    return model.lower().endswith(US_ONLY) and _list_key(model).startswith("claude-")


def us_only_rates(price: ModelPrice) -> ModelPrice:
    """``price`` with every rate :data:`~proctor.models.list_prices.US_ONLY_RATE` times over,
    a long prompt's rates too (a rate left to another stays left to it)."""

    def times(rate: float | None) -> float | None:
        return None if rate is None else round(rate * US_ONLY_RATE, 9)

    update: dict[str, Any] = {name: times(getattr(price, name)) for name in _RATES}
    long = price.long_context
    if long is not None:
        long_rates = {name: times(getattr(long, name)) for name in _RATES}
        update["long_context"] = long.model_copy(update=long_rates)
    return price.model_copy(update=update)


_RATES = (
    "input_per1_m",
    "output_per1_m",
    "cache_read_per1_m",
    "cache_write_per1_m",
    "cache_write1h_per1_m",
)
"""The rates of a price (and of a long prompt's)."""


def _over(listed: ModelPrice, given: ModelPrice) -> ModelPrice:
    """A configured price over a model's list price: the rates it gives (its long-context
    rates too), the list's for the others."""
    if given.model_fields_set >= set(ModelPrice.model_fields):
        return given
    update = {name: getattr(given, name) for name in given.model_fields_set}
    if "cache_write_per1_m" in update and "cache_write1h_per1_m" not in update:
        update["cache_write1h_per1_m"] = None  # a write for an hour: the write's rate given
    return listed.model_copy(update=update)


def dollars(usage: ModelUsage, price: ModelPrice) -> float:
    """The tokens' dollars at ``price``'s rates (a long prompt's rates are not applied here:
    see :func:`model_dollars`); cache writes for an hour at their own rate when it has one."""
    hour = min(usage.cache_write_1h_tokens, usage.cache_write_tokens)
    hour_price = _either(price.cache_write1h_per1_m, price.cache_write_per1_m)
    return (
        usage.input_tokens * price.input_per1_m
        + usage.output_tokens * price.output_per1_m
        + usage.cache_read_tokens * price.cache_read_per1_m
        + (usage.cache_write_tokens - hour) * price.cache_write_per1_m
        + hour * hour_price
    ) / PER_TOKENS


def total(values: Iterable[float | None]) -> float | None:
    """The sum, or None when any value is unknown (0.0 for no values)."""
    out = 0.0
    for value in values:
        if value is None:
            return None
        out += value
    return round(out, 6)


def model_dollars(used: ModelUsage, price: ModelPrice, long: ModelUsage | None = None) -> float:
    """A model's dollars, rounded to the millionth: ``long``, the part of ``used`` its long
    prompts gave (see :func:`long_prompts`), at the price's long-context rates, the rest at
    its own."""
    rates = long_rates(price) if long is not None else None
    if long is None or rates is None:
        return round(dollars(used, price), 6)
    rest = ModelUsage(  # (never below 0: a part that is not within the whole is all of it)
        input_tokens=max(used.input_tokens - long.input_tokens, 0),
        output_tokens=max(used.output_tokens - long.output_tokens, 0),
        cache_read_tokens=max(used.cache_read_tokens - long.cache_read_tokens, 0),
        cache_write_tokens=max(used.cache_write_tokens - long.cache_write_tokens, 0),
        cache_write_1h_tokens=max(used.cache_write_1h_tokens - long.cache_write_1h_tokens, 0),
    )
    return round(dollars(rest, price) + dollars(long, rates), 6)


class _EveryModelFree(PriceTable):
    """Every model at no cost: the prices of an agent whose responses came from proctor's
    scripted model server, which names them after the model the agent asked for."""

    def price_of(self, model: str, day: date | None = None) -> ModelPrice | None:
        return FREE


SCRIPTED_PRICES: PriceTable = _EveryModelFree()
"""The prices of an agent's responses on the scripted model (``--model scripted``)."""


def long_prompts(
    responses: Iterable[ResponseTokens],
    models: Iterable[str],
    table: PriceTable,
    day: date | None = None,
) -> dict[str, ModelUsage]:
    """Per model of ``models`` whose price has long-context rates, the tokens of its responses
    whose prompt (input, cache reads and cache writes) was over the rates' threshold: the
    whole response costs those rates. Empty, without a look at the responses, when no model
    has such rates (the common case)."""
    return _long_prompts_at(responses, {model: table.price_of(model, day) for model in models})


def _long_prompts_at(
    responses: Iterable[ResponseTokens], prices: Mapping[str, ModelPrice | None]
) -> dict[str, ModelUsage]:
    """:func:`long_prompts` of the models whose prices are looked up already."""
    over: dict[str, int] = {}
    for model, price in prices.items():
        if price is not None and price.long_context is not None:
            over[model] = price.long_context.over_prompt_tokens
    if not over:
        return {}
    return usage_by_model(
        row
        for row in responses
        if (limit := over.get(row[0])) is not None and prompt_tokens(row) > limit
    )


def prompt_tokens(row: ResponseTokens) -> int:
    """A response's prompt: its input, cache reads and cache writes."""
    return row[1] + row[3] + row[4]


def dollars_by_model(
    usage: Mapping[str, ModelUsage],
    table: PriceTable,
    responses: Iterable[ResponseTokens] | None = None,
    day: date | None = None,
) -> tuple[dict[str, float | None], list[str]]:
    """Each model's dollars (None without a price) and the models without a price; with the
    ``responses`` that gave ``usage``, a long prompt's response at its model's long-context
    rates (without them, every response at the base rates). ``day``: when the tokens were
    spent (the session's or trial's start), for a list price that changes on a day."""
    # Each model's price looked up once: a lookup costs more than the rest of a model's sum.
    prices = {model: table.price_of(model, day) for model in usage}
    long = _long_prompts_at(responses, prices) if responses is not None else {}
    by_model: dict[str, float | None] = {}
    unpriced: list[str] = []
    for model, used in usage.items():
        price = prices[model]
        if price is None:
            by_model[model] = None
            unpriced.append(model)
        else:
            by_model[model] = model_dollars(used, price, long.get(model))
    return by_model, unpriced


def price_usage(
    usage: Mapping[str, ModelUsage],
    table: PriceTable,
    responses: Iterable[ResponseTokens] | None = None,
    day: date | None = None,
) -> CostInfo:
    """Dollars per model and in total, by the rule above (see :func:`dollars_by_model`)."""
    by_model, unpriced = dollars_by_model(usage, table, responses, day)
    return CostInfo(total_usd=total(by_model.values()), by_model=by_model, unpriced=unpriced)


def merge_costs(costs: Iterable[CostInfo]) -> tuple[float | None, list[str]]:
    """(the total over several costs, by the rule above; the models without a price). A cost
    that names no model at all (a trial that never reached its agent: a setup that failed, a
    trial interrupted before it started) spent nothing that was recorded: it adds 0, and
    leaves the others' total known. A cost not collected (``--no-collect-cost``) is unknown."""
    costs = list(costs)
    unpriced = sorted({m for c in costs for m in c.unpriced})
    return total(0.0 if _nothing_spent(c) else c.total_usd for c in costs), unpriced


def _nothing_spent(cost: CostInfo) -> bool:
    return cost.collected and cost.total_usd is None and not cost.by_model and not cost.unpriced
