from proctor.metrics.trace import build_steps
from proctor.metrics.traces import trace_metrics
from proctor.models.trajectory import Event


def _read(i: int, path: str, output: str = "") -> list[Event]:
    return [
        Event(
            type="tool_call",
            id=str(i),
            name="Read",
            kind="read",
            files=[path],
            input={"file_path": path},
        ),
        Event(type="tool_result", id=str(i), output=output, is_error=False),
    ]


EVENTS = _read(0, "api/routes.py", "from auth import login_redirect") + _read(
    1, "auth/views.py", "def login_redirect(): ..."
)


def test_a_trace_followed_in_order() -> None:
    steps = build_steps(EVENTS, None)
    result = trace_metrics(steps, [{"from": "api/routes.py", "to": "auth/views.py"}])
    assert result == {"expected": 1, "followed": 1, "coverage": 1.0, "missed": []}


def test_symbols_match_in_inputs_and_outputs() -> None:
    steps = build_steps(EVENTS, None)
    assert (
        trace_metrics(steps, [{"from": "api/routes.py", "to": "login_redirect"}])["followed"] == 1
    )


def test_control_the_reverse_order_is_not_followed() -> None:
    steps = build_steps(EVENTS, None)
    result = trace_metrics(steps, [{"from": "auth/views.py", "to": "api/routes.py"}])
    assert result["followed"] == 0 and result["missed"] == ["auth/views.py -> api/routes.py"]


def test_no_traces_gives_no_coverage() -> None:
    assert trace_metrics([], [])["coverage"] is None


def test_documentation_edits_alone_are_not_a_task() -> None:
    from proctor.metrics import compute_process_metrics

    def write(path: str) -> list[Event]:
        return [
            Event(type="tool_call", id=path, name="Write", kind="write", files=[path], input={}),
            Event(type="tool_result", id=path, output="ok", is_error=False),
        ]

    assert not compute_process_metrics(write("NOTES.md")).is_task
    assert compute_process_metrics(write("NOTES.md") + write("app.py")).is_task
