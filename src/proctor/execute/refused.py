"""A run that starts no further trial that would meet a key a provider refused: the agent's
key (its trial ended ``authentication failed: …``: no further trial of that agent starts), or
the key of proctor's own answering model or judge (a key revoked after the check before the
run: no further trial that calls that model starts). Every such trial would meet the same
refusal, each after its agent's whole ``timeoutSec`` (a headless Claude Code turn on a key is
stopped at its first retry of a 401, which it would retry until its ``timeoutSec``) or after
its agent ran for nothing but a judge's error. The other trials (of another agent, that call no
such model) run on.

The trials already running finish; those left are not started, and the run ends as a stopped
one (``interrupted``, exit 130), so that ``proctor run --resume`` runs them once the key is
mended (and runs again the trials that met the refusal: they never measured the agent).
"""

from __future__ import annotations

import re

from proctor.execute.events import RunEvent, TrialFinished
from proctor.llm.failures import LABELS, refused_model_in, refused_said
from proctor.models.plan import TrialSpec
from proctor.models.trial import TrialRecord

_AUTH = LABELS["auth"]
_REFUSAL = re.compile(rf"{re.escape(_AUTH)}(?: \(\d+\))?")
"""The refusal in a trial's reason (``authentication failed (401)``), its end where a cause
stops quoting the reason."""


def refused_key(record: TrialRecord) -> bool:
    """Whether ``record``'s trial ended because a provider refused a key: its agent could not
    authenticate, or proctor's answering model or judge was refused."""
    return refused_said(record.status, record.reason)


def refused_model(record: TrialRecord) -> str | None:
    """The model (``provider/model``) of proctor's answering model or judge whose key was
    refused in ``record``'s trial; None when none was."""
    return refused_model_in(record.status, record.reason)


def meets(record: TrialRecord, spec: TrialSpec) -> bool:
    """Whether ``spec``'s trial would meet the refusal ``record``'s trial met: it runs the same
    agent (an agent's key), or calls the same model (a role's): see :func:`calls`."""
    model = refused_model(record)
    if model is None:
        return spec.agent == record.agent
    return calls(spec, model)


def calls(spec: TrialSpec, model: str) -> bool:
    """Whether ``spec``'s trial may call ``model`` (``provider/model``): as its answering
    model or classifier (the ``workhorse`` and ``fast`` roles: any trial's agent may ask a
    question), or as the judge of an llm-judge of its case that runs for its condition (the
    model the llm-judge names, else the ``judge`` role). A trial whose evaluators call no judge
    (a case without an llm-judge, one not evaluated) does not call the judge role's model,
    though ``models.judge`` gives every trial that role."""
    roles = spec.roles
    if roles is None:
        return False
    if model in (roles.refs.get("workhorse"), roles.refs.get("fast")):
        return True
    if not spec.case.evaluated:
        return False
    for evaluator in spec.case.evaluators:
        if evaluator.use != "llm-judge":
            continue
        if evaluator.conditions and spec.condition not in evaluator.conditions:
            continue
        named = evaluator.params.get("model")
        if (
            named.strip() if isinstance(named, str) and named else roles.refs.get("judge")
        ) == model:
            return True
    return False


def _whose(record: TrialRecord) -> str:
    """The trials a refusal holds back, as a sentence names them."""
    model = refused_model(record)
    return f"of agent {record.agent}" if model is None else f"calling {model}"


class StopOnRefusedKey:
    """A subscriber that notes each trial that ended on a refused key (the first of each
    agent, or of each model of proctor's); ``holds`` (the executor's ``held_back``) then says
    which trials not to start: those that would meet one of those refusals."""

    def __init__(self) -> None:
        self.refused: list[TrialRecord] = []

    def __call__(self, event: RunEvent) -> None:
        if not isinstance(event, TrialFinished) or not refused_key(event.record):
            return
        record = event.record
        if not any(_whose(r) == _whose(record) for r in self.refused):
            self.refused.append(record)

    def holds(self, spec: TrialSpec) -> bool:
        return bool(self.refused) and any(meets(record, spec) for record in self.refused)

    def cause(self, not_started: int) -> str | None:
        """Why the run stopped short, for its exit reason after ``interrupted after 1 of 3
        trials finished (2 not started), as``: the trials that met a refusal, what refused
        them (each reason up to the refusal: the trial's line said the rest), the trials left
        for it, and what to do; None when it did not stop for a key."""
        if not self.refused or not_started <= 0:
            return None
        said = []
        for record in self.refused:
            trial = f"{record.case}/{record.agent}/{record.condition}/{record.repeat}"
            refusal = _REFUSAL.search(record.reason)
            what = record.reason[: refusal.end()] if refusal else record.reason
            said.append(f"trial {trial} ({what})")
        one = len(said) == 1
        whose = " or ".join(_whose(record) for record in self.refused)
        keys = "the key is" if one else "the keys are"
        return (
            f"{'a provider' if one else 'providers'} refused {'a key' if one else 'keys'} in "
            f"{' and '.join(said)} and every trial {whose} not started would meet the same "
            f"refusal until {keys} mended"
        )
