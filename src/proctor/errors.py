"""The one exception hierarchy of proctor.

::

    ProctorError                 anything proctor raises on purpose
    ├── ConfigError              a user-written file or flag is wrong      (exit 2)
    │   └── DiscoveryError       a source folder or case cannot be found  (exit 2)
    ├── SchemaVersionError       an on-disk file is newer than this proctor (exit 2)
    ├── WorkspaceError           a fixture cannot be materialised safely   (trial: infra-error)
    ├── AgentError               the agent could not be launched or driven (trial: agent-error)
    ├── EvaluatorError           an evaluator could not produce a result   (trial: eval-error)
    └── TranscriptError          a native transcript cannot be read at all

Third-party exceptions are translated where they enter (``raise ConfigError(...) from exc``).
The CLI maps these types to exit codes in one place (``proctor.cli.main``).
"""

from __future__ import annotations


class ProctorError(Exception):
    """Base class of every error proctor raises on purpose."""


class ConfigError(ProctorError):
    """A user-written file or option is invalid. The message is one sentence for the user."""


class Problems(ConfigError):
    """Every problem found in one file or folder (``problems``), one sentence each: its
    message is the first, as a command that stops at it says it, with how many more there are
    and the command that lists them all (``validate``)."""

    def __init__(self, problems: list[str], where: str, lists_them: str) -> None:
        more = len(problems) - 1
        said = f" (and {more} more in {where}: `{lists_them}` lists them all)" if more else ""
        super().__init__(problems[0] + said)
        self.problems = problems


class DiscoveryError(ConfigError):
    """A source folder, case or file named by the user does not exist or cannot be read."""


class SchemaVersionError(ProctorError):
    """An on-disk record was written by a newer proctor than the one reading it."""


class WorkspaceError(ProctorError):
    """A trial's workspace or scratch home could not be prepared (unsafe zip, missing fixture)."""


class AgentError(ProctorError):
    """The agent could not be launched or driven."""


class EvaluatorError(ProctorError):
    """An evaluator failed to produce a result (not a low score: an error)."""


class TranscriptError(ProctorError):
    """A native transcript could not be located or opened."""
