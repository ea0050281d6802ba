"""Before the first trial: one cheap authenticated request per provider proctor's own roles
call (the judge, the answering and the classifying models), so that a refused key stops the
run at once instead of failing every judge call after every agent has run.

The request is the provider's models list, which costs nothing. A refusal (401 or 403) is a
:class:`ConfigError` naming the roles, the provider and the variable that holds the key
(masked). A 403 is confirmed with a one-token completion first: a key restricted to
completions may be refused the models list and still do its work. Anything else (the server
down, a timeout, a gateway without a models list) does not stop the run: a network failure
is said once per provider, other answers are let pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import proctor.llm.providers  # noqa: F401 - registers the provider classes
from proctor.errors import ConfigError
from proctor.llm.client import PROVIDER_CLASSES, Provider, within
from proctor.llm.failures import ProviderError
from proctor.llm.refs import KEYLESS, ModelRef, parse_ref
from proctor.llm.secrets import key_source, resolve_key
from proctor.models.plan import RoleModels
from proctor.util.masking import credentials_masked

CHECK_TIMEOUT_SEC = 10.0
"""The longest the check of one provider may take; a slower one is let pass (and said). The
providers are checked at once, so this is the longest the whole check takes too."""


@dataclass
class Endpoint:
    """One provider at one base URL, with the roles that call it."""

    provider: str
    url: str | None
    models: list[ModelRef] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)


def endpoints(models: Iterable[RoleModels]) -> list[Endpoint]:
    """The provider endpoints the roles of ``models`` call, proctor's scripted model left
    out (it needs no key), each once."""
    found: dict[tuple[str, str | None], Endpoint] = {}
    for roles in models:
        named = [(f"the {role} role", ref) for role, ref in roles.refs.items()]
        named += [
            ("an llm-judge's model", ref) for ref in roles.extra if ref not in roles.refs.values()
        ]
        for who, text in named:
            ref = parse_ref(text, who)
            if ref.provider in KEYLESS:
                continue
            url = roles.urls.get(ref.provider)
            endpoint = found.setdefault((ref.provider, url), Endpoint(ref.provider, url))
            label = f"{who} ({ref})"
            if label not in endpoint.roles:
                endpoint.roles.append(label)
            if ref not in endpoint.models:
                endpoint.models.append(ref)
    return list(found.values())


def check_role_keys(
    models: Iterable[RoleModels],
    env: Mapping[str, str],
    dotenv: Mapping[str, str],
    warn: Callable[[str], None],
    timeout: float = CHECK_TIMEOUT_SEC,
    before_run: bool = True,
) -> list[str]:
    """Check each provider's key with one request; a refused one raises :class:`KeysRefused`
    (every refused provider in one sentence), a provider that cannot be reached is ``warn``-ed.
    ``before_run`` False (``validate --check-keys``): the sentences speak of no run. Returns
    what each other provider answered, one sentence each (``validate`` prints them)."""
    refused: list[str] = []
    answered: list[str] = []
    keyed = []
    for endpoint in endpoints(models):
        key, _looked = resolve_key(endpoint.provider, env, dotenv)
        if key is not None:  # (else the planner stopped a role that needs one: not called)
            keyed.append((endpoint, key))
    # All at once, so that unreachable providers cost ``timeout`` in all, not each; what they
    # answered is said in the order of the roles, whichever answered first.
    with ThreadPoolExecutor(max_workers=max(1, len(keyed))) as pool:
        checks = [pool.submit(_check, endpoint, key, timeout) for endpoint, key in keyed]
        failures = [check.result() for check in checks]
    for (endpoint, _key), failure in zip(keyed, failures, strict=True):
        # (a gateway's URL may hold a login: its password is never shown)
        where = credentials_masked(endpoint.url or f"{endpoint.provider}'s default URL")
        source = key_source(endpoint.provider, env, dotenv)
        if failure is None:
            answered.append(f"{endpoint.provider} at {where} took the key in {source}")
            continue
        if failure.kind not in ("auth", "network"):
            answered.append(
                f"{endpoint.provider} at {where} neither took nor refused the key in {source} "
                f"({failure}); let pass"
            )
        if failure.kind == "auth":
            many = len(endpoint.roles) > 1
            refused.append(
                f"{' and '.join(endpoint.roles)}: {endpoint.provider} at {where} refused the key "
                f"in {source} ({failure}); set a valid key "
                f"there, or choose another model for {'each role' if many else 'the role'}"
            )
        elif failure.kind == "network":
            before, goes_on = (" before the run", "; the run goes on") if before_run else ("", "")
            warn(
                f"the key for {endpoint.provider} at {where} could not be checked{before} "
                f"({failure}){goes_on}"
            )
    if refused:
        raise KeysRefused(
            "; ".join(refused) + (" (checked before any trial)" if before_run else ""), answered
        )
    return answered


class KeysRefused(ConfigError):
    """A provider refused a role's key; ``answered`` says what the others answered."""

    def __init__(self, message: str, answered: list[str]) -> None:
        super().__init__(message)
        self.answered = answered


def _check(endpoint: Endpoint, key: str, timeout: float) -> ProviderError | None:
    """What went wrong with the key's check, or None when nothing did; within ``timeout``
    seconds in all. The client's own timeout bounds each step (the connection, each read),
    not the whole: a server that trickles its answer, a byte at a time, would hold the run
    for as long as it kept sending. So the check runs in a thread of its own; when it has not
    answered in time its connections are shut down and its thread ends."""
    provider = PROVIDER_CLASSES[endpoint.provider](
        endpoint.models[0], key, endpoint.url, "key-check"
    )

    try:
        client = provider.client
        return within(timeout, lambda: _ask(provider, timeout), lambda: provider.abandon(client))
    except ProviderError:  # (the check itself returns its errors: this is the deadline's)
        return ProviderError("network", f"no answer within {timeout:g} s")


def _ask(provider: Provider, timeout: float) -> ProviderError | None:
    """The check itself: the models list, and after a 403 a one-token completion."""
    try:
        provider.check_key(timeout)
    except ProviderError as exc:
        if exc.status != 403:
            return exc
    else:
        return None
    # A 403 on the models list: the key may be restricted to completions; one token says.
    try:
        provider.complete("Reply with OK.", "OK?", max_tokens=1, logprobs=False, timeout=timeout)
    except ProviderError as exc:
        return exc
    return None
