"""A run from start to finish, above the stages it strings together: discover → plan → check
the agent CLIs → execute → aggregate → reporters. The CLI and the Python API call this; the
stages below know nothing of each other's output beyond the models they hand on."""

from proctor.session.request import RunRequest, RunResult
from proctor.session.run import run_plan, run_session
from proctor.session.start import plan_run

__all__ = ["RunRequest", "RunResult", "plan_run", "run_plan", "run_session"]
