"""Which model plays which role, with its key, resolved once before any trial runs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import proctor.llm.providers  # noqa: F401 - registers the provider classes
from proctor.errors import ConfigError
from proctor.llm.client import PROVIDER_CLASSES, CallRecord, ModelClient
from proctor.llm.failures import ProviderError
from proctor.llm.refs import KEYLESS, ROLES, ModelRef, base_url, parse_ref
from proctor.llm.secrets import dotenv_name, key_source, resolve_key
from proctor.models.config import RoleEntry
from proctor.models.plan import RoleModels
from proctor.util.masking import install_log_masking
from proctor.util.text import unknown_name


@dataclass
class RoleSet:
    """The configured roles. ``client(role)`` builds a client on first use (per process)."""

    refs: dict[str, ModelRef] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    key_sources: dict[str, str] = field(default_factory=dict)
    """Where each provider's key was found, masked (a refused key's error names it)."""
    urls: dict[str, str | None] = field(default_factory=dict)
    extra_refs: list[ModelRef] = field(default_factory=list)
    """Models named by evaluators directly (an llm-judge's ``model``)."""
    _clients: dict[str, ModelClient] = field(default_factory=dict)
    output_tokens: dict[str, int] = field(default_factory=dict)
    """Each role's reply token limit, where its configuration sets one (``maxOutputTokens``)."""
    deadline: float | None = None
    """When every call must be over (``time.monotonic``): the trial's timeout while its agent
    runs, None otherwise (the judge's calls after it)."""

    def has(self, role: str) -> bool:
        return role in self.refs

    def max_output_tokens(self, role: str, default: int) -> int:
        """The token limit of ``role``'s replies: its configured one, else ``default``."""
        return self.output_tokens.get(role, default)

    def client(self, role: str, ref: ModelRef | None = None) -> ModelClient:
        ref = ref or self.refs[role]
        cache_key = f"{role}:{ref}"
        if cache_key not in self._clients:
            if ref.provider == "scripted":
                url = self.urls.get("scripted")
                if url is None:
                    raise ProviderError("network", "the scripted model server is not running")
                provider = PROVIDER_CLASSES["openai"](ref, "scripted", url + "/v1", role)
            else:
                provider = PROVIDER_CLASSES[ref.provider](
                    ref, self.keys[ref.provider], self.urls.get(ref.provider), role
                )
            source = self.key_sources.get(ref.provider)
            self._clients[cache_key] = ModelClient(role, ref, provider, key_source=source)
        self._clients[cache_key].deadline = self.deadline
        return self._clients[cache_key]

    def uses_scripted(self) -> bool:
        return any(r.provider == "scripted" for r in self.refs.values()) or any(
            r.provider == "scripted" for r in self.extra_refs
        )

    def set_url(self, provider: str, url: str | None) -> None:
        """Point a provider at a new base URL (the per-trial scripted server)."""
        self.urls[provider] = url
        for key in [k for k, c in self._clients.items() if c.ref.provider == provider]:
            self._clients.pop(key).close()

    def close(self) -> None:
        """Close every client's connections, when the trial or evaluation that made them is
        over (a socket left to the garbage collector stays open until it comes); the records
        of their calls stay (:meth:`calls`)."""
        for client in self._clients.values():
            client.close()

    def calls(self) -> list[CallRecord]:
        return [c for client in self._clients.values() for c in client.calls]

    def reset_calls(self) -> None:
        for client in self._clients.values():
            client.calls.clear()


Layers = Iterable[tuple[str, Mapping[str, RoleEntry]]]
"""``role → model`` maps, each named by where it comes from (see :func:`role_refs`)."""


def role_field(where: str, role: str, key: str = "") -> str:
    """Where ``role`` of a layer was given: the flag (``--judge-model``), or the file's field
    as a JSON path (``proctor.json: field 'models.judge'``, ``key`` below it)."""
    if "<role>" in where:
        return where.replace("<role>", role)
    return f"{where}: field 'models.{role}{'.' + key if key else ''}'"


def role_refs(layers: Layers) -> dict[str, ModelRef]:
    """Merge ``role → provider/model`` maps (later layers win); ``judge`` defaults to
    ``workhorse``. Each layer is named by the file its ``models`` is in (``proctor.json``),
    or by a template with ``<role>`` in it (``--<role>-model``); each reference keeps where
    it was given (:func:`role_field`)."""
    refs: dict[str, ModelRef] = {}
    for where, mapping in layers:
        for role, value in mapping.items():
            if role not in ROLES:
                said = unknown_name("role", role, ROLES)
                raise ConfigError(
                    f"{where}: {said}" if "<role>" in where else f"{where}: field 'models': {said}"
                )
            if isinstance(value, str):
                refs[role] = parse_ref(value, role_field(where, role))
            else:
                refs[role] = parse_ref(value.model, role_field(where, role, "model"))
    if "judge" not in refs and "workhorse" in refs:
        refs["judge"] = refs["workhorse"]
    return refs


def role_output_tokens(layers: Layers) -> dict[str, int]:
    """Each role's ``maxOutputTokens``, from the latest layer that sets one (a layer that
    names another model without it keeps the limit). The judge's limit is each ``llm-judge``
    evaluator's own ``maxOutputTokens``: one set on the role is refused."""
    limits: dict[str, int] = {}
    for where, mapping in layers:
        for role, value in mapping.items():
            if isinstance(value, str) or value.max_output_tokens is None:
                continue
            if role == "judge":
                raise ConfigError(
                    f"{role_field(where, role, 'maxOutputTokens')}: the judge's token limit is "
                    "set on each llm-judge evaluator (its own 'maxOutputTokens'), not on the "
                    "judge role"
                )
            limits[role] = value.max_output_tokens
    return limits


def build_roles(
    refs: dict[str, ModelRef],
    needed: Mapping[str, ModelRef],
    env: Mapping[str, str],
    dotenv: Mapping[str, str],
) -> RoleSet:
    """Resolve keys and base URLs. A provider without a key is fine unless a needed role uses
    it; then one sentence names where the model was chosen, the role, the model and the
    variables looked at."""
    install_log_masking()
    roles = RoleSet(refs=dict(refs), extra_refs=list(needed.values()))
    providers = {r.provider for r in refs.values()} | {r.provider for r in needed.values()}
    for provider in sorted(providers - set(KEYLESS)):
        key, looked = resolve_key(provider, env, dotenv)
        roles.urls[provider] = base_url(provider, env, dotenv)
        if key is not None:
            roles.keys[provider] = key
            roles.key_sources[provider] = key_source(provider, env, dotenv)
            continue
        for role, ref in needed.items():
            if ref.provider == provider:
                chosen = f"{ref.where}: " if ref.where else ""
                raise ConfigError(
                    f"{chosen}the {role} role ({ref}) needs a key: set {' or '.join(looked)} "
                    f"(in the environment or in {dotenv_name(dotenv)})"
                    + _set_empty(looked, env, dotenv)
                )
    return roles


def _set_empty(looked: list[str], env: Mapping[str, str], dotenv: Mapping[str, str]) -> str:
    """``; ANTHROPIC_API_KEY is set but empty in ./.env`` when a variable looked at is there
    with no value (an unfilled template line, ``export KEY=`` of an unset variable), which a
    user would otherwise take for a key set; else nothing."""
    empty = [
        f"{name} is set but empty {where}"
        for source, where in ((env, "in the environment"), (dotenv, f"in {dotenv_name(dotenv)}"))
        for name in looked
        if name in source and not source[name]
    ]
    return f"; {', and '.join(empty)}" if empty else ""


def roles_from(models: RoleModels, env: Mapping[str, str], dotenv: Mapping[str, str]) -> RoleSet:
    """A worker's roles from the plan's :class:`RoleModels`, with keys found in its environment
    (the planner checked they are there) and clients built on first use."""
    refs = {role: parse_ref(ref, f"role {role}") for role, ref in models.refs.items()}
    roles = RoleSet(
        refs=refs,
        extra_refs=[parse_ref(ref, "llm-judge model") for ref in models.extra],
        urls=dict(models.urls),
        output_tokens=dict(models.max_output_tokens),
    )
    for ref in [*refs.values(), *roles.extra_refs]:
        if ref.provider not in KEYLESS and ref.provider not in roles.keys:
            key, _looked = resolve_key(ref.provider, env, dotenv)
            if key is not None:
                roles.keys[ref.provider] = key
                roles.key_sources[ref.provider] = key_source(ref.provider, env, dotenv)
    return roles
