"""The gate vocabulary over a trajectory, shared by evals written as code (``t.called_tool``…)
and the ``expect`` evaluator of case folders: matching tool calls and events, assertions and
their handles, and expectation builders."""
