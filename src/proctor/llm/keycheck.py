"""Before the first trial: cheap requests to each provider proctor's own roles call (the
judge, the answering and the classifying models), so that a refused key, or a model the
provider does not have, stops the run at once instead of failing every judge call after every
agent has run.

The key's request is the provider's models list, which costs nothing. A refusal (401 or 403)
is a :class:`ConfigError` naming the roles, the provider and the variable that holds the key
(masked). A 403 is confirmed with a one-token completion first: a key restricted to
completions may be refused the models list and still do its work. Anything else (the server
down, a timeout, a gateway without a models list) does not stop the run: a network failure
is said once per provider, other answers are let pass.

A key taken (or neither taken nor refused), each model the roles name is looked up, once per
provider and base URL whatever the number of roles and cases naming it (the models lookup,
free as the list is). A 404 is confirmed with a one-token completion (a gateway without the
lookup answers any path so); one answered 404 too is a :class:`ConfigError` naming where the
model was chosen (the file and its field, or the flag), the roles, the model and the
provider, with the nearest of the models it lists (or, when the 404 names no model, the
address that was not found). Any other answer lets the model pass.
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
from proctor.util.text import did_you_mean

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
    users: dict[ModelRef, list[str]] = field(default_factory=dict)
    """Who calls each model: ``the judge role``, ``an llm-judge``."""
    given: dict[ModelRef, list[str]] = field(default_factory=dict)
    """Where each model was chosen (see :attr:`RoleModels.given`)."""


def endpoints(models: Iterable[RoleModels]) -> list[Endpoint]:
    """The provider endpoints the roles of ``models`` call, proctor's scripted model left
    out (it needs no key), each once."""
    found: dict[tuple[str, str | None], Endpoint] = {}
    for roles in models:
        named = [(f"the {role} role", ref, role) for role, ref in roles.refs.items()]
        named += [
            ("an llm-judge", ref, ref) for ref in roles.extra if ref not in roles.refs.values()
        ]
        for who, text, chosen in named:
            ref = parse_ref(text, who)
            if ref.provider in KEYLESS:
                continue
            url = roles.urls.get(ref.provider)
            endpoint = found.setdefault((ref.provider, url), Endpoint(ref.provider, url))
            label = f"{who}'s model ({ref})" if who == "an llm-judge" else f"{who} ({ref})"
            if label not in endpoint.roles:
                endpoint.roles.append(label)
            if ref not in endpoint.models:
                endpoint.models.append(ref)
            for said, more in (
                (endpoint.users.setdefault(ref, []), who),
                (endpoint.given.setdefault(ref, []), roles.given.get(chosen)),
            ):
                if more and more not in said:
                    said.append(more)
    return list(found.values())


def check_role_keys(
    models: Iterable[RoleModels],
    env: Mapping[str, str],
    dotenv: Mapping[str, str],
    warn: Callable[[str], None],
    timeout: float = CHECK_TIMEOUT_SEC,
    before_run: bool = True,
) -> list[str]:
    """Check each provider's key with one request, and that it has each model the roles name;
    a refused key or a missing model raises :class:`KeysRefused` (every one in one sentence),
    a provider that cannot be reached is ``warn``-ed. ``before_run`` False (``validate
    --check-keys``): the sentences speak of no run. Returns what each other provider
    answered, one sentence each (``validate`` prints them)."""
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
        results = [check.result() for check in checks]
    missing: list[str] = []
    for (endpoint, _key), checked in zip(keyed, results, strict=True):
        # (a gateway's URL may hold a login: its password is never shown)
        where = credentials_masked(endpoint.url or f"{endpoint.provider}'s default URL")
        source = key_source(endpoint.provider, env, dotenv)
        failure = checked.key
        looked = _looked_up(checked)
        if failure is None:
            answered.append(f"{endpoint.provider} at {where} took the key in {source}{looked}")
        elif failure.kind not in ("auth", "network"):
            answered.append(
                f"{endpoint.provider} at {where} neither took nor refused the key in {source} "
                f"({failure}); let pass{looked}"
            )
        if failure is not None and failure.kind == "auth":
            many = len(endpoint.roles) > 1
            refused.append(
                f"{' and '.join(endpoint.roles)}: {endpoint.provider} at {where} refused the key "
                f"in {source} ({failure}); set a valid key "
                f"there, or choose another model for {'each role' if many else 'the role'}"
            )
        elif failure is not None and failure.kind == "network":
            before, goes_on = (" before the run", "; the run goes on") if before_run else ("", "")
            warn(
                f"the key for {endpoint.provider} at {where} could not be checked{before} "
                f"({failure}){goes_on}"
            )
        for ref, said in checked.models.items():
            if isinstance(said, ProviderError):
                missing.append(_missing(endpoint, where, ref, said, checked.listed))
    if refused or missing:
        raise KeysRefused(
            "; ".join([*refused, *missing]) + (" (checked before any trial)" if before_run else ""),
            answered,
        )
    return answered


class KeysRefused(ConfigError):
    """A provider refused a role's key, or has no role's model; ``answered`` says what the
    others answered."""

    def __init__(self, message: str, answered: list[str]) -> None:
        super().__init__(message)
        self.answered = answered


FOUND = "found"


@dataclass
class Checked:
    """What one endpoint answered: what went wrong with its key (None: nothing), and for each
    model looked up, :data:`FOUND`, why it was let pass unchecked, or the 404 that says the
    provider has no such model (``listed``: the ids of the models it lists, then)."""

    key: ProviderError | None = None
    key_answered: bool = False
    models: dict[ModelRef, str | ProviderError] = field(default_factory=dict)
    listed: list[str] = field(default_factory=list)


def _looked_up(checked: Checked) -> str:
    """``; has claude-x`` for the models found, and each let pass with why, for ``validate``'s
    line of the provider."""
    found = [ref.model for ref, said in checked.models.items() if said == FOUND]
    passed = [
        f"{ref.model} not looked up ({said})"
        for ref, said in checked.models.items()
        if isinstance(said, str) and said != FOUND
    ]
    return "".join(f"; {x}" for x in ([f"has {', '.join(found)}"] if found else []) + passed)


def _missing(
    endpoint: Endpoint, where: str, ref: ModelRef, failure: ProviderError, listed: list[str]
) -> str:
    """The sentence of a model the provider at ``where`` does not have: where it was chosen,
    who calls it, what the provider said, and the nearest of the models it lists; of a 404
    that names no model, the address that was not found (see :func:`provider_error`)."""
    given = " and ".join(endpoint.given.get(ref, []))
    users = endpoint.users.get(ref, [])
    owned = "'s model" if users == ["an llm-judge"] else ""
    who = f"{' and '.join(users)}{owned} ({ref})"
    chosen = f"{given}: " if given else ""
    if ref.model.lower() not in str(failure).lower():  # (the address, not the model)
        return (
            f"{chosen}{who}: {endpoint.provider} at {where} answered a completion of "
            f"'{ref.model}' with {failure}"
        )
    near = did_you_mean(ref.model, listed, n=2) if listed else ""
    return (
        f"{chosen}{who}: {endpoint.provider} at {where} has no model '{ref.model}' "
        f"({failure}); {near}name a model it has" + (" there" if given else "")
    )


def _check(endpoint: Endpoint, key: str, timeout: float) -> Checked:
    """What the endpoint answered of the key and of each model; within ``timeout`` seconds in
    all. The client's own timeout bounds each step (the connection, each read), not the whole:
    a server that trickles its answer, a byte at a time, would hold the run for as long as it
    kept sending. So the check runs in a thread of its own; when it has not answered in time
    its connections are shut down and its thread ends (a key not yet answered is said as
    unreachable, a model not yet looked up is let pass)."""
    made: list[Provider] = []

    def provider(ref: ModelRef) -> Provider:
        made.append(PROVIDER_CLASSES[endpoint.provider](ref, key, endpoint.url, "key-check"))
        return made[-1]

    checked = Checked()
    frozen: list[Checked] = []

    def abandon() -> None:
        # What was answered in time, before the connections are cut: the thread's failures
        # after it (the cut connection's own) are not the provider's answers.
        frozen.append(
            Checked(checked.key, checked.key_answered, dict(checked.models), list(checked.listed))
        )
        for each in list(made):
            each.abandon(each.client)

    first = provider(endpoint.models[0])
    try:
        within(timeout, lambda: _ask(first, endpoint, provider, timeout, checked), abandon)
    except ProviderError:  # (the check itself keeps its errors: this is the deadline's)
        late = f"no answer within {timeout:g} s"
        checked = frozen[0] if frozen else Checked()
        if not checked.key_answered:
            checked.key = ProviderError("network", late)
        for ref in endpoint.models:
            checked.models.setdefault(ref, late)
    return checked


def _ask(
    provider: Provider,
    endpoint: Endpoint,
    make: Callable[[ModelRef], Provider],
    timeout: float,
    checked: Checked,
) -> None:
    """The check itself: the models list (after a 403, a one-token completion), then, unless
    the key was refused or the provider could not be reached, the lookup of each model."""
    checked.key = _key_failure(provider, timeout)
    checked.key_answered = True
    if checked.key is not None and checked.key.kind in ("auth", "network"):
        return
    for ref in endpoint.models:
        said = _model_failure(provider, ref, make, timeout)
        checked.models[ref] = said
        if isinstance(said, ProviderError) and not checked.listed:
            try:  # (for a did-you-mean: the models it has)
                checked.listed = provider.model_ids(timeout)
            except ProviderError:
                pass


def _key_failure(provider: Provider, timeout: float) -> ProviderError | None:
    """What went wrong with the key: the models list, and after a 403 a one-token completion."""
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


def _model_failure(
    provider: Provider, ref: ModelRef, make: Callable[[ModelRef], Provider], timeout: float
) -> str | ProviderError:
    """:data:`FOUND`, why the model was let pass unchecked, or the 404 saying the provider
    has no model ``ref`` (or, naming no model, that its address leads nowhere). The lookup's
    404 is confirmed with a one-token completion of the model: a gateway without the lookup
    answers any path so."""
    try:
        provider.check_model(ref.model, timeout)
    except ProviderError as exc:
        if exc.status != 404:
            return str(exc)  # (a key refused the lookup alone, a gateway's own answer)
    else:
        return FOUND
    try:
        make(ref).complete("Reply with OK.", "OK?", max_tokens=1, logprobs=False, timeout=timeout)
    except ProviderError as exc:
        return exc if exc.status == 404 else str(exc)
    return FOUND
