"""Base classes of every model proctor reads from users or writes to disk.

Every file proctor writes carries ``schemaVersion``. Version 2 (this proctor) types every part
of every record; version 1 (proctor 0.1.0) left ``process``, ``rules``, ``harnessCalls``,
``usageCheck``, ``ab``, ``abGate`` and ``repeated`` untyped. Reading upgrades an older record
(:meth:`RecordModel.upgrade`) and refuses a newer one.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

SCHEMA_VERSION = 2


class UserModel(BaseModel):
    """Something a user writes (config files, plans): camelCase keys, unknown keys rejected."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=False,
        allow_inf_nan=False,  # a timeout of 1e400 or NaN is a typo, never a setting
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
    schema_version: int = SCHEMA_VERSION

    @classmethod
    def upgrade(cls, data: dict[str, Any], version: int) -> dict[str, Any]:
        """``data`` as written by schema ``version`` (older than this one), rewritten in this
        version's shape. Records whose shape did not change keep their data."""
        return data
