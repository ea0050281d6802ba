"""The user's own agent credentials, lent to a trial's scratch home and to nothing else.

On a real provider a trial needs the agent's login or key, and only that: nothing else of the
user's configuration enters the scratch home. By default each real agent receives

=============== ================================================ ================================
agent           key variables (forwarded to the agent only)      login files (copied per trial)
=============== ================================================ ================================
claude-code     ``ANTHROPIC_API_KEY``, ``ANTHROPIC_AUTH_TOKEN``,  ``.credentials.json`` of
                ``CLAUDE_CODE_OAUTH_TOKEN``                      ``$CLAUDE_CONFIG_DIR`` or
                                                                 ``~/.claude``
codex           ``OPENAI_API_KEY``, ``CODEX_API_KEY``            ``auth.json`` of ``$CODEX_HOME``
                                                                 or ``~/.codex``
gemini-cli      ``GEMINI_API_KEY``, ``GOOGLE_API_KEY``           ``oauth_creds.json`` and
                                                                 ``google_accounts.json`` of
                                                                 ``~/.gemini``
=============== ================================================ ================================

Key values and the secrets inside login files are registered with :mod:`proctor.util.masking`,
so they are masked in everything proctor writes; the copies live in the scratch home and go
with it. A profile's ``"credentials": "none"`` lends nothing (strictly isolated runs, where
``forwardEnv`` and ``env`` alone say what the agent gets); a trial on the scripted model never
needs them. (On macOS, Claude Code keeps its login in the keychain, which is not a file:
there, set ``ANTHROPIC_API_KEY`` or ``CLAUDE_CODE_OAUTH_TOKEN``.)
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.agents.provisioning import register_mcp_secrets
from proctor.errors import WorkspaceError
from proctor.models.config import AgentProfile
from proctor.models.plan import TrialSpec
from proctor.util.files import read_regular
from proctor.util.masking import register_secret
from proctor.workspace.confine import link_out
from proctor.workspace.environment import is_setting, names_credential, url_passwords


@dataclass(frozen=True)
class CredentialKind:
    """Where one agent keeps its key variables and login files."""

    agent: str
    keys: tuple[str, ...]
    files: tuple[str, ...]
    folder_variable: str | None
    """The variable that moves the agent's folder (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``)."""
    folder: str
    """The folder under the home otherwise (and under the scratch home, always)."""
    fix: str
    """What the user does when there is neither."""
    routes: tuple[str, ...] = ()
    """Variables that say where the key goes (a gateway's base URL): lent with it when set, so
    a key made for a gateway never goes to the provider's own host instead."""


KINDS: dict[str, CredentialKind] = {
    k.agent: k
    for k in (
        CredentialKind(
            "claude-code",
            ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
            (".credentials.json",),
            "CLAUDE_CONFIG_DIR",
            ".claude",
            "set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`), or "
            "log in once with `claude` (/login)",
            ("ANTHROPIC_BASE_URL",),
        ),
        CredentialKind(
            "codex",
            ("OPENAI_API_KEY", "CODEX_API_KEY"),
            ("auth.json",),
            "CODEX_HOME",
            ".codex",
            "set OPENAI_API_KEY, or log in once with `codex login`",
            ("OPENAI_BASE_URL",),
        ),
        CredentialKind(
            "gemini-cli",
            ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            ("oauth_creds.json", "google_accounts.json"),
            None,
            ".gemini",
            "set GEMINI_API_KEY, or log in once with `gemini` (Login with Google)",
            ("GOOGLE_GEMINI_BASE_URL",),
        ),
    )
}
SECRET_FIELDS = ("token", "key", "secret")
"""A string in a login file is masked when its field name contains one of these."""


@dataclass
class Credentials:
    """What one trial's agent is lent: key variables (name → value) and login files."""

    agent: str
    keys: dict[str, str] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    """The user's login files (the originals; :func:`install` copies them)."""
    routes: dict[str, str] = field(default_factory=dict)
    """Where the keys go, as the user's environment says (see :attr:`CredentialKind.routes`)."""

    @property
    def empty(self) -> bool:
        return not self.keys and not self.files


def user_folder(kind: CredentialKind, env: Mapping[str, str]) -> Path:
    moved = env.get(kind.folder_variable) if kind.folder_variable else None
    if moved:
        return Path(moved)
    if kind.agent == "gemini-cli" and env.get("GEMINI_CLI_HOME"):
        return Path(env["GEMINI_CLI_HOME"]) / kind.folder
    return Path(env.get("HOME") or Path.home()) / kind.folder


def find(agent: str, env: Mapping[str, str]) -> Credentials:
    """The user's credentials for ``agent`` (none for an agent proctor lends nothing to)."""
    kind = KINDS.get(agent)
    if kind is None:
        return Credentials(agent)
    keys = {name: env[name] for name in kind.keys if env.get(name)}
    folder = user_folder(kind, env)
    files = [folder / name for name in kind.files if (folder / name).is_file()]
    routes = {name: env[name] for name in kind.routes if env.get(name)} if keys else {}
    return Credentials(agent, keys, files, routes)


def lends(profile: AgentProfile, on_scripted_model: bool) -> bool:
    """Whether a trial with this profile is lent the user's credentials."""
    return not on_scripted_model and profile.credentials != "none"


def problem(
    agent: str, profile: AgentProfile, env: Mapping[str, str], dotenv_dir: Path | None = None
) -> str | None:
    """One sentence when ``agent`` cannot authenticate on a real provider, else None: a key
    it would be lent with whitespace or control characters in it is one (see
    :func:`unclean_key`). A key of the agent's found only in the ``.env`` proctor reads for
    its roles (the one in ``dotenv_dir``, default the current folder: a resume's is the
    folder its run was started in) is named with that file."""
    kind = KINDS.get(agent)
    if kind is None:
        return None
    unclean = unclean_key(kind, profile, env)
    if unclean is not None:
        return (
            f"agent '{agent}' would be lent {unclean}, whose value has whitespace or control "
            "characters in it (a line break or a space at its end?); remove them"
        )
    if profile.credentials == "none":
        given = set(profile.forward_env) | set(profile.env)
        if any(name in given and (profile.env.get(name) or env.get(name)) for name in kind.keys):
            return None
        return (
            f'agent \'{agent}\' cannot authenticate: its profile sets "credentials": "none" '
            f"and forwards none of {', '.join(kind.keys)} (add one to forwardEnv, or run with "
            "--model scripted)"
        )
    if not find(agent, env).empty:
        return None
    folder = user_folder(kind, env)
    empty = [name for name in kind.keys if name in env and not env[name]]
    blank = f" ({' and '.join(empty)} set but empty)" if empty else ""
    said = (
        f"agent '{agent}' cannot authenticate: no {' or '.join(kind.keys)} in the environment"
        f"{blank} and no login in {folder} ({kind.fix}; or run with --model scripted)"
    )
    from proctor.llm.secrets import dotenv_name, load_dotenv

    try:
        dotenv = load_dotenv(dotenv_dir)
    except OSError:  # the current folder was deleted meanwhile: it holds no .env
        return said
    in_dotenv = [name for name in kind.keys if dotenv.get(name)]
    if in_dotenv:
        said += (
            f"; {in_dotenv[0]} is in {dotenv_name(dotenv)}, which proctor reads for its own "
            "model roles only: an agent is lent what the environment holds, so export it"
        )
    return said


def unclean_key(kind: CredentialKind, profile: AgentProfile, env: Mapping[str, str]) -> str | None:
    """The first of the agent's key variables it would be lent (from the environment, by
    ``forwardEnv`` or its profile's ``env``) whose value has whitespace or control characters
    in it, said with where it comes from; None when there is none. Lent as it is, the CLI
    fails in its own way (an illegal header, a refused key) once the trial has started."""
    lent, said = _lent_keys(kind, profile, env)
    for name in kind.keys:
        key = lent.get(name)
        if key and any(ch.isspace() or not ch.isprintable() for ch in key):
            return said[name]
    return None


def _lent_keys(
    kind: CredentialKind, profile: AgentProfile, env: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """The variables the agent would be lent (name → value; its key variables from the
    environment, unless ``"credentials": "none"``, ``forwardEnv``'s, its profile's ``env``),
    and each said with where it comes from."""
    lent = dict(find(kind.agent, env).keys) if profile.credentials != "none" else {}
    lent.update({name: env[name] for name in profile.forward_env if env.get(name)})
    said = {name: f"{name} (in the environment)" for name in lent}
    for name, value in profile.env.items():
        lent[name] = value
        said[name] = f"{name} (in its profile's env)"
    return lent, said


def lent_names(
    agent: str, profile: AgentProfile, env: Mapping[str, str]
) -> tuple[list[str], list[Path]] | None:
    """What a trial of ``agent`` on a real provider would be lent, by name only (never a
    value): its key variables that are set and its login files found; None for an agent
    proctor lends nothing to (the scripted agent, an ACP agent)."""
    kind = KINDS.get(agent)
    if kind is None:
        return None
    lent, _ = _lent_keys(kind, profile, env)
    keys = [name for name in kind.keys if lent.get(name)]
    files = find(agent, env).files if profile.credentials != "none" else []
    return keys, files


@dataclass(frozen=True)
class LentFile:
    """A login file as lent to one trial: the user's file, the trial's copy, and the bytes
    the copy started from."""

    original: Path
    copy: Path
    lent: bytes


def lent_folders(agent: str) -> tuple[str, ...]:
    """Where :func:`install` copies ``agent``'s login files, relative to the trial's scratch
    folder (``home/.claude``); nothing for an agent proctor lends no file to."""
    kind = KINDS.get(agent)
    return (f"home/{kind.folder}",) if kind is not None else ()


def install(credentials: Credentials, home: Path, within: Path | None = None) -> list[LentFile]:
    """Copy the login files into the scratch ``home`` (owner-only) and register every secret
    they and the key variables hold with the masker; returns what :func:`give_back` needs.
    A copy that would land outside ``within`` (the trial's scratch folder; default ``home``)
    through a link (``.claude -> /elsewhere``) raises WorkspaceError, with nothing written; a
    ``.credentials.json`` that is a link is replaced, never written through."""
    for value in credentials.keys.values():
        register_secret(value)
    kind = KINDS.get(credentials.agent)
    if kind is None:
        return []
    target = home / kind.folder
    lent = []
    for source in credentials.files:
        dest = target / source.name
        root = home if within is None else within
        found = link_out(root, target)
        if found is not None:
            raise WorkspaceError(
                f"{found[0]} is a link to {found[1]}, outside the trial's scratch folder "
                f"{root}: {source.name} is lent to the scratch folder only"
            )
        target.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(dest)  # a file or link the setup lines left there: replaced, not written
        # O_EXCL: a link put there meanwhile is never followed.
        fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(dest, 0o600)
        _register_file_secrets(dest)
        lent.append(LentFile(source, dest, data))
    return lent


FRESHNESS_FIELDS = ("last_refresh", "expiresAt", "expiry_date")
"""Where a login file says how recent it is: Codex's ``auth.json`` (``last_refresh``), Claude
Code's ``.credentials.json`` (``claudeAiOauth.expiresAt``), Gemini CLI's ``oauth_creds.json``
(``expiry_date``)."""


def give_back(lent: list[LentFile], lock: Path) -> list[str]:
    """Write a login the agent renewed during the trial back to the user's file.

    An agent that refreshes its OAuth login rewrites its copy, and a provider that rotates
    refresh tokens (Codex's does) revokes the one the user's own file still holds: without
    this, a trial would log the user out. The renewed copy replaces the user's file when that
    file is still the one lent, or when the copy is fresher by its own timestamp (another
    trial gave back first); never when the user's file moved on to something newer (a fresh
    `login`). The file is replaced whole (a temporary file and a rename, the user's file mode
    kept), under ``lock`` so that proctor's trials give back one at a time. Returns a note
    per file given back or left alone after a renewal; nothing when no login was renewed."""
    notes: list[str] = []
    for item in lent:
        try:
            # Never through a link the agent put in the copy's place (its bytes are not the
            # login renewed), nor from a pipe.
            renewed = b"" if item.copy.is_symlink() else read_regular(item.copy)
        except OSError:
            continue
        if renewed == item.lent or not _login_document(renewed):
            continue
        missing = _missing_fields(item.lent, renewed)
        if missing:
            # Any JSON object the agent wrote there is not a renewal of the login lent: the
            # user's file would hold the agent's text in place of the login.
            notes.append(
                f"the trial's copy of {item.original} changed but is no renewal of the login "
                f"lent (it lacks {', '.join(missing)}): {item.original} was left as it is"
            )
            continue
        _register_file_secrets(item.copy)  # the new tokens are masked like the old ones
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            with open(lock, "a") as held:
                fcntl.flock(held, fcntl.LOCK_EX)
                current = item.original.read_bytes()
                if current != item.lent and not _fresher(renewed, current):
                    notes.append(
                        f"the agent renewed its login, but {item.original} changed since it was "
                        "lent and is at least as recent: left as it is"
                    )
                    continue
                _replace(item.original, renewed)
                notes.append(f"the agent renewed its login: {item.original} holds the new one")
        except OSError as exc:
            notes.append(f"the agent renewed its login, but {item.original} was not updated: {exc}")
    return notes


def _missing_fields(lent: bytes, renewed: bytes) -> list[str]:
    """The top-level fields of the login lent that the renewed copy lacks (a renewal rewrites
    the tokens and their dates, and keeps the document's shape)."""
    before, after = _login_document(lent) or {}, _login_document(renewed) or {}
    return [f"'{name}'" for name in before if name not in after]


def _login_document(data: bytes) -> dict[str, Any] | None:
    try:
        document = json.loads(data)
    except ValueError:
        return None
    return document if isinstance(document, dict) and document else None


def _freshness(document: dict[str, Any] | None) -> str | float | None:
    if document is None:
        return None
    for node in (document, *(v for v in document.values() if isinstance(v, dict))):
        for name in FRESHNESS_FIELDS:
            value = node.get(name)
            if isinstance(value, (int, float, str)) and not isinstance(value, bool):
                return value
    return None


def _fresher(renewed: bytes, current: bytes) -> bool:
    ours, theirs = _freshness(_login_document(renewed)), _freshness(_login_document(current))
    if ours is None or theirs is None or type(ours) is not type(theirs):
        return theirs is None and _login_document(current) is None  # theirs is broken or empty
    return ours > theirs  # type: ignore[operator]


def _replace(path: Path, data: bytes) -> None:
    """Replace the file ``path`` (the file a symlink points to, so that the link stays) whole,
    keeping its mode and, where proctor may, its owner."""
    path = path.resolve()
    stat = path.stat()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".proctor")
    try:
        os.fchmod(fd, stat.st_mode & 0o777)
        if (stat.st_uid, stat.st_gid) != (os.getuid(), os.getgid()):
            with contextlib.suppress(OSError):  # only root may give a file to someone else
                os.fchown(fd, stat.st_uid, stat.st_gid)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _register_file_secrets(path: Path) -> None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for value in _secret_strings(document, ""):
        register_secret(value)


def _secret_strings(node: Any, name: str) -> list[str]:
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in _secret_strings(value, str(key))]
    if isinstance(node, list):
        return [s for value in node for s in _secret_strings(value, name)]
    lowered = name.lower()
    if lowered.endswith("_type") or lowered.endswith("type"):
        return []  # "token_type": "Bearer" names a kind of token, it is none
    if isinstance(node, str) and len(node) >= 16 and any(p in lowered for p in SECRET_FIELDS):
        return [node]
    return []


def register_user_keys(folder: Path | None = None) -> None:
    """Register for masking every key the user's environment and ``.env`` (in ``folder``,
    default the current one) hold, the providers' and the agents' (``ANTHROPIC_API_KEY``,
    ``GEMINI_API_KEY``, ``CLAUDE_CODE_OAUTH_TOKEN``, ``CODEX_API_KEY``, ``PROCTOR_*_KEY``, …),
    whether or not any trial is lent one: each is masked in every file proctor writes, on
    every page it serves and in what it prints. Called by the process that writes a run's
    records, before its workers start (they inherit what it registered)."""
    from proctor.llm.refs import PROVIDERS
    from proctor.llm.secrets import key_variables, load_dotenv

    dotenv: Mapping[str, str]
    try:
        dotenv = load_dotenv(folder, quiet=True)  # (its lines are said where it serves keys)
    except OSError:  # the current folder was deleted meanwhile: it holds no .env
        dotenv = {}
    names = {name for kind in KINDS.values() for name in kind.keys}
    names |= {name for provider in PROVIDERS for name in key_variables(provider)}
    for name in sorted(names):
        for found in (os.environ.get(name), dotenv.get(name)):
            if found:
                register_secret(found)


def register_given_secrets(
    forward: Iterable[str], given: Mapping[str, str], environ: Mapping[str, str]
) -> None:
    """Register for masking the secrets a trial's agent, setup lines and evaluators are given
    beside the keys it is lent: the value of each variable ``forward`` names (``forwardEnv``:
    deny-listed for a reason) but a setting's (a provider's prefix and no credential in its
    name, ``ANTHROPIC_MODEL``, ``AWS_REGION``: only a URL's password in it), each value the
    case's, profile's or condition's ``env`` (``given``) sets under a name that says it holds
    a credential (``GITHUB_TOKEN``, ``DB_PASSWORD``), and the password of a URL it sets
    (``postgres://app:pw@db``). Called by the process that writes a run's records before
    anything is printed, and by each trial's worker."""
    for name in forward:
        value = environ.get(name, "")
        if is_setting(name):  # ANTHROPIC_MODEL, AWS_REGION: masked, the model would be ***
            for password in url_passwords(value):
                register_secret(password)
        else:
            register_secret(value)
    for name, value in given.items():
        if names_credential(name):
            register_secret(value)
        for password in url_passwords(value):
            register_secret(password)


def register_spec_secrets(spec: TrialSpec, environ: Mapping[str, str]) -> None:
    """Register for masking what a trial of ``spec`` is given beyond the keys its agent is
    lent: :func:`register_given_secrets` of its profile's ``forwardEnv`` and the case's,
    profile's and condition's ``env``, and the credentials of its MCP servers (whatever the
    agent: one with no MCP may still show them)."""
    given = {**spec.case.env, **spec.profile.env, **spec.variant.env}
    register_given_secrets(spec.profile.forward_env, given, environ)
    for entry in spec.case.provision.merged_with(spec.variant.provision).mcps:
        register_mcp_secrets(entry)
