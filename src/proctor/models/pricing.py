"""Dollars from tokens: the one place prices are looked up and added.

**Where a price comes from.** A model's price comes from the configuration's ``pricing``
table, under its ``provider/model`` key or its bare model name; else from the list prices
proctor ships (:mod:`proctor.models.list_prices`); proctor's own scripted agent and scripted
model (``scripted``, ``scripted/…``) cost nothing.

**The rule for unknown prices.** A model with no price has an unknown cost, which is ``None``,
never ``0``; any sum that includes an unknown cost is unknown too, and the models without a
price are listed beside it (``unpriced``) so a user knows what to add.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from proctor.models.base import CamelModel, UserModel
from proctor.models.list_prices import LIST_PRICES, list_name
from proctor.models.trajectory import ModelUsage

PER_TOKENS = 1_000_000


# A model's dollars per million tokens, as the configuration's ``pricing`` map holds them
# (``proctor.models.config`` reads the map; the model lives here, so that pricing needs none
# of the configuration's other models). No docstring: it would change the published schema.
class ModelPrice(UserModel):
    input_per1_m: float = Field(default=0.0, ge=0, alias="inputPer1M")
    output_per1_m: float = Field(default=0.0, ge=0, alias="outputPer1M")
    cache_read_per1_m: float = Field(default=0.0, ge=0, alias="cacheReadPer1M")
    cache_write_per1_m: float = Field(default=0.0, ge=0, alias="cacheWritePer1M")
    cache_write1h_per1_m: float | None = Field(default=None, ge=0, alias="cacheWrite1hPer1M")


def _list_price(values: tuple[float, float, float, float, float]) -> ModelPrice:
    inp, out, read, write, write_1h = values
    return ModelPrice(
        input_per1_m=inp,
        output_per1_m=out,
        cache_read_per1_m=read,
        cache_write_per1_m=write,
        cache_write1h_per1_m=write_1h,
    )


FREE = ModelPrice()
_LISTED = {name: _list_price(values) for name, values in LIST_PRICES.items()}


@functools.lru_cache(maxsize=4096)
def _listed(model: str) -> ModelPrice | None:
    """``model``'s list price (looked up once per name: a history asks for each session's)."""
    return _LISTED.get(list_name(model))


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

    def price_of(self, model: str) -> ModelPrice | None:
        """The price of ``model`` (``provider/model``, a bare name, or ``role:provider/model``);
        None when it has none."""
        # The name as written first: a model's own name may hold a ':' (gpt-oss:20b,
        # a Bedrock id ending in ':0'); then without a role's prefix.
        names = (model, model.split(":", 1)[1]) if ":" in model else (model,)
        for name in names:
            found = self._lookup(name)
            if found is not None:
                return found
        return None

    def _lookup(self, model: str) -> ModelPrice | None:
        if model == "scripted" or model.startswith("scripted/"):
            return FREE
        found = self.prices.get(model)
        if found is None and self.prices:
            bare = {key.split("/", 1)[-1]: price for key, price in self.prices.items()}
            found = bare.get(model.split("/", 1)[-1])
        return found if found is not None else _listed(model)


def dollars(usage: ModelUsage, price: ModelPrice) -> float:
    """The tokens' dollars; cache writes for an hour at their own price when it has one."""
    hour = min(usage.cache_write_1h_tokens, usage.cache_write_tokens)
    hour_price = price.cache_write1h_per1_m
    if hour_price is None:
        hour_price = price.cache_write_per1_m
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


def price_usage(usage: Mapping[str, ModelUsage], table: PriceTable) -> CostInfo:
    """Dollars per model and in total, by the rule above."""
    cost = CostInfo(by_model={}, unpriced=[])  # given: a default would be deep-copied
    for model, used in usage.items():
        price = table.price_of(model)
        cost.by_model[model] = None if price is None else round(dollars(used, price), 6)
        if price is None:
            cost.unpriced.append(model)
    cost.total_usd = total(cost.by_model.values())
    return cost


def merge_costs(costs: Iterable[CostInfo]) -> tuple[float | None, list[str]]:
    """(the total over several costs, by the rule above; the models without a price)."""
    costs = list(costs)
    unpriced = sorted({m for c in costs for m in c.unpriced})
    return total(c.total_usd for c in costs), unpriced
