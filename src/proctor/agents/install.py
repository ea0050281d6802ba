"""Installing the pinned agent CLIs from the npm registry into a project-local folder.

``proctor agents install`` (and ``make test``) put them in ``./.agents``, where proctor finds
them without any PATH change. Already-installed pinned versions are reused.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from proctor.agents.spec import ACP_PINS, npm_specs
from proctor.errors import AgentError
from proctor.paths import current_folder
from proctor.util.cutting import masked_tail, output_tail
from proctor.util.masking import credentials_masked, mask
from proctor.util.processes import run_captured

#: npm package → version: the versions proctor's contract tests and goldens were made with.
PINNED: dict[str, str] = {
    **{s.npm_package: s.version for s in npm_specs() if s.npm_package and s.version},
    **ACP_PINS,
}


#: How long one ``npm install`` may take (a slow registry, postinstall downloads).
NPM_TIMEOUT_SEC = 3600.0


def _json_file(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def installed_version(folder: Path, package: str) -> str | None:
    """The version of ``package`` a finished ``npm install`` left in ``folder``, else None.

    The package's own ``package.json`` is there as soon as npm unpacked it, before its
    dependencies, its ``.bin`` link or its install script: an install cut short (Ctrl-C, a
    CI cancel) leaves it behind. So the version counts only when npm's own record of a
    finished install, ``node_modules/.package-lock.json`` (written last), lists it too."""
    key = f"node_modules/{package}"
    version = _json_file(folder / key / "package.json").get("version")
    packages = _json_file(folder / "node_modules" / ".package-lock.json").get("packages")
    entry = packages.get(key) if isinstance(packages, dict) else None
    recorded = entry.get("version") if isinstance(entry, dict) else None
    return str(version) if version and recorded == version else None


def missing_pins(folder: Path, pins: dict[str, str] = PINNED) -> list[str]:
    return [f"{p}@{v}" for p, v in pins.items() if installed_version(folder, p) != v]


def install_agents(folder: Path, pins: dict[str, str] = PINNED) -> list[str]:
    """Install what is missing; return the ``package@version`` specs installed."""
    missing = missing_pins(folder, pins)
    if not missing:
        return []
    npm = shutil.which("npm")
    if npm is None:
        raise AgentError("npm was not found on PATH; install Node.js and npm to install agent CLIs")
    unreachable = registry_problem(npm, folder)
    if unreachable:  # said in a second, not after the minutes of npm's own retries
        raise AgentError(unreachable)
    made = _missing_folders(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _remove_if_empty(made)
        raise AgentError(
            f"cannot make the install folder {folder}: {exc.strerror or exc}; "
            f"give `--dir` a folder you can write"
        ) from None
    try:
        _npm_install(npm, folder, missing, pins)
    except BaseException:  # a failure, a timeout, Ctrl-C: no empty folder of its own is left
        _remove_if_empty(made)
        raise
    return missing


def _missing_folders(folder: Path) -> list[Path]:
    """The folders making ``folder`` would make, deepest first (none when it exists)."""
    missing = []
    for path in [folder, *folder.parents]:
        if path.exists() or path.is_symlink():
            break
        missing.append(path)
    return missing


def _remove_if_empty(folders: list[Path]) -> None:
    """Remove the folders an install made, deepest first, as long as each is empty: one npm
    wrote anything into is kept, and so is every folder that was there before."""
    for path in folders:
        try:
            path.rmdir()
        except OSError:
            return


def _npm_cwd(folder: Path) -> Path:
    """The folder npm runs in: the current one (whose ``.npmrc`` npm reads, as it would run
    there), else, that one gone (removed while a shell was in it), the install folder or the
    nearest folder above it that is there (none holds a project's ``.npmrc``)."""
    here = current_folder()
    if here is not None:
        return here
    return next((above for above in (folder, *folder.parents) if above.is_dir()), Path("/"))


def _npm_install(npm: str, folder: Path, missing: list[str], pins: dict[str, str]) -> None:
    if not os.access(folder, os.W_OK | os.X_OK):
        raise AgentError(
            f"the install folder {folder} is not writable; give `--dir` a folder you can write"
        )
    argv = [
        npm,
        "install",
        "--prefix",
        str(folder),
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--foreground-scripts",
        *missing,
    ]
    # Its own process group, killed whole when proctor is interrupted (an install script's
    # download included), rather than npm alone.
    proc = run_captured(argv, cwd=_npm_cwd(folder), env=None, timeout=NPM_TIMEOUT_SEC)
    flooded = proc.stopped_for_output()
    if flooded:  # an install script printing without end, most likely
        said = output_tail(proc, 300).strip()  # masked before it is cut
        raise AgentError(
            f"npm install {flooded}, so nothing was taken as installed; its last output: "
            f"{said or '(none)'}"
        )
    if proc.timed_out:
        raise AgentError(
            f"npm install did not finish in {NPM_TIMEOUT_SEC:.0f} s and was stopped; "
            f"check the network to {_registry_named(npm_registry(npm, folder))} and run it again"
        )
    if proc.returncode != 0:
        registry = npm_registry(npm, folder) or ""  # asked, though npm may not say
        proxies = npm_proxies(npm, folder)
        raise AgentError(npm_failure_message(proc.returncode, proc.stderr, registry, proxies))
    still = missing_pins(folder, pins)
    if still:
        raise AgentError(
            f"npm install ended without installing {', '.join(still)} into {folder}; "
            f"run `proctor agents install` again"
        )


def npm_registry(npm: str, folder: Path) -> str | None:
    """The registry npm is set to use when it installs into ``folder`` (``npm_config_registry``,
    an ``.npmrc``, ``folder``'s own included); None when npm does not say (it keeps a registry
    whose address holds a login to itself: "the registry option is protected")."""
    out = npm_config(npm, folder, "registry").strip()
    return credentials_masked(out) if out else None


def npm_config(npm: str, folder: Path, *keys: str) -> str:
    """What ``npm config get KEYS`` prints as npm would install into ``folder`` (its
    ``.npmrc`` included): the value of one key, ``key = value`` lines of several; empty when
    npm does not answer."""
    try:
        return subprocess.run(
            [npm, "config", "get", *keys, "--prefix", str(folder)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def _offline(npm: str, folder: Path) -> bool:
    """Whether npm is set to install from its cache (``offline``, ``prefer-offline``)."""
    out = npm_config(npm, folder, "offline", "prefer-offline")
    return any(line.replace(" ", "").endswith("=true") for line in out.splitlines())


def _registry_named(registry: str | None) -> str:
    return f"the registry {registry}" if registry else "its registry"


#: How long asking the registry whether it answers (``npm ping``) may take in all.
PROBE_TIMEOUT_SEC = 60.0

#: How long npm waits for the registry's answer to that question, each of two tries (a
#: second apart). npm's own settings (two retries 10 to 60 s apart, 5 minutes for each
#: request, each package asked for in turn) take minutes to give up on a registry that
#: cannot be reached, and longer on one that never answers.
PROBE_FETCH_TIMEOUT_SEC = 20.0


def registry_problem(npm: str, folder: Path) -> str | None:
    """The sentence when npm cannot reach its registry (as it would install into ``folder``:
    its proxy, ``.npmrc`` and registry settings), asked with ``npm ping`` and short retries
    before any install; None when it answers, and when it says anything but that it could
    not connect (a registry without npm's ping answers 404: the install itself will tell)."""
    argv = [
        npm,
        "ping",
        "--prefix",
        str(folder),
        "--loglevel=error",
        "--fetch-retries=1",
        "--fetch-retry-mintimeout=1000",
        "--fetch-retry-maxtimeout=1000",
        f"--fetch-timeout={PROBE_FETCH_TIMEOUT_SEC * 1000:.0f}",
    ]
    try:
        proc = run_captured(argv, cwd=_npm_cwd(folder), env=None, timeout=PROBE_TIMEOUT_SEC)
    except OSError:
        return None  # npm install, started next, says why npm does not run
    # As npm names it in its error (a login in it masked), else as its settings say.
    asked = re.search(r"(?:request to|network timeout at:) (\S+?/)-/ping\b", proc.stderr)
    registry = _registry_named(asked[1] if asked else npm_registry(npm, folder))
    proxies = npm_proxies(npm, folder) if proc.timed_out or proc.returncode else []
    fix = f"{network_fix(proxies)}; nothing was installed"
    if proc.timed_out and not _offline(npm, folder):
        return (
            f"npm could not reach {registry}: it did not answer within "
            f"{PROBE_TIMEOUT_SEC:.0f} s; {fix}"
        )
    if proc.timed_out or proc.returncode == 0:
        return None
    code = next((c for c in NETWORK_CODES if c in proc.stderr), None)
    if code is None and "network timeout at:" in proc.stderr:  # connected, never answered
        code = f"no answer within {PROBE_FETCH_TIMEOUT_SEC:.0f} s, twice"
    if code is None or _offline(npm, folder):
        return None  # npm set to install from its cache may need no registry at all
    reason = next(
        (
            line.split("reason: ", 1)[1].strip()
            for line in proc.stderr.splitlines()
            if "reason: " in line
        ),
        code,
    )
    reason = credentials_masked(reason)
    if any(_names_proxy(reason, address) for _, address in proxies):  # not the registry's
        return f"npm could not reach the proxy it goes through to {registry} ({reason}); {fix}"
    return f"npm could not reach {registry} ({reason}); {fix}"


#: The variables npm takes its proxy from (in either case) when its own ``https-proxy`` and
#: ``proxy`` settings are unset.
PROXY_VARIABLES = ("https_proxy", "http_proxy", "proxy")


def npm_proxies(npm: str, folder: Path) -> list[tuple[str, str]]:
    """The proxies npm may go through to its registry as it would install into ``folder``:
    (where it is set, its address), a login in it masked: the environment's ``HTTPS_PROXY``
    and the like, and npm's own ``https-proxy`` and ``proxy`` settings."""
    found = [
        (name, credentials_masked(value))
        for name, value in sorted(os.environ.items())
        if name.lower() in PROXY_VARIABLES and value.strip()
    ]
    for line in npm_config(npm, folder, "https-proxy", "proxy").splitlines():
        key, equals, value = line.partition("=")
        if equals and value.strip() not in ("", "null"):
            key = key.strip()
            where = f"npm_config_{key.replace('-', '_')} or an .npmrc's {key}"
            found.append((where, credentials_masked(value.strip())))
    return found


def _names_proxy(reason: str, address: str) -> bool:
    """Whether npm's reason (``connect ECONNREFUSED 127.0.0.1:9``, ``getaddrinfo ENOTFOUND
    proxy.corp``) is about the proxy at ``address`` rather than the registry."""
    parts = urlsplit(address if "://" in address else f"http://{address}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    host = parts.hostname or ""
    return bool(host) and (f"{host}:{port}" in reason or f"ENOTFOUND {host}" in reason)


def network_fix(proxies: list[tuple[str, str]]) -> str:
    """What to check when npm could not reach its registry: the proxies it goes through too,
    when there are any."""
    if not proxies:
        return (
            "check the network, or npm's registry setting (npm_config_registry, an .npmrc), "
            "and run it again"
        )
    named = ", ".join(f"{where}={address}" for where, address in proxies)
    return (
        f"check the network and the proxy npm goes through ({named}): that it runs, or, when "
        "the registry needs no proxy, unset it or add the registry's host to NO_PROXY; or "
        "npm's registry setting (npm_config_registry, an .npmrc); and run it again"
    )


#: How many of npm's own error lines a failure message shows.
NPM_ERROR_LINES = 6


#: npm's error codes of a registry it could not reach.
NETWORK_CODES = ("ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EAI_AGAIN", "ECONNRESET", "ENETUNREACH")


def npm_failure_message(
    returncode: int,
    stderr: str,
    registry: str | None = None,
    proxies: list[tuple[str, str]] | None = None,
) -> str:
    """The message for a failed ``npm install``: npm's first ``npm error`` / ``npm ERR!`` lines,
    which name the cause (``request to … failed, reason: ECONNREFUSED``), without the stack
    trace npm prints among them; the stderr's tail only when there are none, since a tail
    usually starts mid stack trace and misses the cause. A registry npm could not reach is
    named, with the fix (the ``proxies`` npm goes through among what to check)."""
    proxies = proxies or []
    lines = []
    for line in stderr.splitlines():
        if not line.lstrip().startswith(("npm error", "npm ERR!")):
            continue
        text = line.strip().removeprefix("npm error").removeprefix("npm ERR!").strip()
        if text and not text.startswith("at ") and not text.startswith("A complete log"):
            lines.append(line.strip())
    # Masked before the tail is cut: a key the cut would split shows no part of it.
    detail = mask("\n".join(lines[:NPM_ERROR_LINES])) if lines else masked_tail(stderr.strip(), 600)
    message = f"npm install failed ({returncode}): {detail}"
    if registry is not None and any(code in stderr for code in NETWORK_CODES):
        message += f"\nnpm could not reach {_registry_named(registry)}: {network_fix(proxies)}"
    return message
