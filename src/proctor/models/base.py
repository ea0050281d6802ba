"""Base classes of every model proctor reads from users or writes to disk."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

SCHEMA_VERSION = 1


class UserModel(BaseModel):
    """Something a user writes (config files, plans): camelCase keys, unknown keys rejected."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=False,
    )


class RecordModel(BaseModel):
    """Something proctor writes to disk: camelCase keys and a ``schemaVersion``.

    Readers ignore unknown keys so that files written by older or newer minor versions still
    load; :func:`proctor.models.io.read_record` refuses a newer ``schemaVersion``.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
    )

    current_schema_version: ClassVar[int] = SCHEMA_VERSION
    schema_version: int = SCHEMA_VERSION
