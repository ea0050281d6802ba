"""Base classes of every model proctor reads from users or writes to disk.

Every file proctor writes carries ``schemaVersion``. Version 2 (this proctor) types every part
of every record; version 1 (proctor 0.1.0) left ``process``, ``rules``, ``harnessCalls``,
``usageCheck``, ``ab``, ``abGate`` and ``repeated`` untyped. Reading upgrades an older record
(:meth:`RecordModel.upgrade`) and refuses a newer one.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationInfo
from pydantic.alias_generators import to_camel

SCHEMA_VERSION = 2

MAX_TIMEOUT_SEC = 86_400.0
"""The longest time limit or pause a user's configuration takes (a day): a larger one is a
typo, and one past what a clock holds (``1e300``) crashed or hung a run instead of failing
validation."""
MAX_PAIRS = 1000
"""The most pairs a repeat manifest plans (``plan-repeats --pairs``): each pair is a run."""
OWN_RECORD = "proctor-record"
"""Validation context key set when proctor reads back a record it wrote (see
:func:`proctor.models.io.read_record`): limits added since it was written do not apply."""


def within_a_day(value: float, info: ValidationInfo) -> float:
    """At most :data:`MAX_TIMEOUT_SEC`, in what a user writes; a record an earlier proctor
    wrote with a larger value (a run to resume) still reads."""
    if value > MAX_TIMEOUT_SEC and not (info.context or {}).get(OWN_RECORD):
        raise ValueError(f"expected at most {MAX_TIMEOUT_SEC:g} seconds (a day)")
    return value


AtMostADay = AfterValidator(within_a_day)


class UserModel(BaseModel):
    """Something a user writes (config files, evaluator parameters, add-on files): camelCase
    keys, unknown keys rejected, and every value of the JSON type its field names.

    Validation is strict: a JSON ``true`` is never the number 1, a string is never a number or
    a boolean (``"3"`` is not 3, ``"false"`` is not false), a number is never a boolean, and an
    integer field takes an integer only (``3.0`` is refused like ``3.5``); a number field takes
    an integer. A field whose values arrive as JSON of another type (a tuple read from a JSON
    list) says ``Field(strict=False)``. Proctor's own records that embed a user model are read
    back leniently (:func:`proctor.models.io.read_record`), so files older runs wrote still
    load.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=False,
        allow_inf_nan=False,  # a timeout of 1e400 or NaN is a typo, never a setting
        strict=True,  # "timeoutSec": true is a typo, never 1 second
    )


class CamelModel(BaseModel):
    """A part of a record: camelCase keys on disk, unknown keys ignored when read."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with camelCase keys, as written to disk."""
        return self.model_dump(mode="json", by_alias=True)


class RecordModel(CamelModel):
    """Something proctor writes to disk as a file (or a line) of its own: camelCase keys and a
    ``schemaVersion``.

    Readers ignore unknown keys so that files written by older or newer minor versions still
    load; :func:`proctor.models.io.read_record` upgrades an older ``schemaVersion`` and refuses
    a newer one.
    """

    current_schema_version: ClassVar[int] = SCHEMA_VERSION
    first_schema_version: ClassVar[int] = 1
    """The oldest ``schemaVersion`` proctor ever wrote this record with: above 1, a file with an
    older one is refused, and one without any is left for the model to refuse (read as schema 1,
    it would pass for an empty record)."""
    schema_version: int = SCHEMA_VERSION

    @classmethod
    def upgrade(cls, data: dict[str, Any], version: int) -> dict[str, Any]:
        """``data`` as written by schema ``version`` (older than this one), rewritten in this
        version's shape. Records whose shape did not change keep their data."""
        return data
