from proctor.metrics.trace import build_steps
from proctor.metrics.traces import trace_metrics
from proctor.models.process import TraceMetrics
from proctor.models.trajectory import Event, make_event


def _read(i: int, path: str, output: str = "") -> list[Event]:
    return [
        make_event(
            "tool_call",
            id=str(i),
            name="Read",
            kind="read",
            files=[path],
            input={"file_path": path},
        ),
        make_event("tool_result", id=str(i), output=output, is_error=False),
    ]


EVENTS = _read(0, "api/routes.py", "from auth import login_redirect") + _read(
    1, "auth/views.py", "def login_redirect(): ..."
)


def test_a_trace_followed_in_order() -> None:
    steps = build_steps(EVENTS, None)
    result = trace_metrics(steps, [{"from": "api/routes.py", "to": "auth/views.py"}])
    assert result == TraceMetrics(expected=1, followed=1, coverage=1.0, missed=[])


def test_symbols_match_in_inputs_and_outputs() -> None:
    steps = build_steps(EVENTS, None)
    assert trace_metrics(steps, [{"from": "api/routes.py", "to": "login_redirect"}]).followed == 1


def test_control_the_reverse_order_is_not_followed() -> None:
    steps = build_steps(EVENTS, None)
    result = trace_metrics(steps, [{"from": "auth/views.py", "to": "api/routes.py"}])
    assert result.followed == 0 and result.missed == ["auth/views.py -> api/routes.py"]


def test_no_traces_gives_no_coverage() -> None:
    assert trace_metrics([], []).coverage is None


def test_documentation_edits_alone_are_not_a_task() -> None:
    from proctor.metrics import compute_process_metrics

    def write(path: str) -> list[Event]:
        return [
            make_event("tool_call", id=path, name="Write", kind="write", files=[path], input={}),
            make_event("tool_result", id=path, output="ok", is_error=False),
        ]

    assert not compute_process_metrics(write("NOTES.md")).is_task
    assert compute_process_metrics(write("NOTES.md") + write("app.py")).is_task


def _followed(events: list[Event], start: str, end: str, workspace: str | None = None) -> int:
    result = trace_metrics(build_steps(events, workspace), [{"from": start, "to": end}], workspace)
    followed = result.followed
    assert isinstance(followed, int)
    return followed


def test_a_file_target_matches_only_that_file() -> None:
    events = _read(0, "src/metadata.py") + _read(1, "src/calc.py")
    assert _followed(events, "data.py", "src/calc.py") == 0
    assert _followed(events, "src/metadata.py", "src/calc.py") == 1
    assert _followed(events, "./src//metadata.py", "/ws/src/calc.py", "/ws") == 1


def test_a_file_mentioned_in_text_is_not_touched() -> None:
    events = _read(0, "api/routes.py") + _read(1, "README.md", "The logic is in src/calc.py.")
    assert _followed(events, "api/routes.py", "src/calc.py") == 0
    assert _followed(events, "api/routes.py", "README.md") == 1


def test_symbols_match_non_ascii_text_in_input_values() -> None:
    events = [
        *_read(0, "api/routes.py"),
        make_event("tool_call", id="s", kind="search", name="Grep", input={"pattern": "größe"}),
    ]
    assert _followed(events, "api/routes.py", "größe") == 1
    assert _followed(events, "api/routes.py", "pattern") == 0


def test_blank_targets_touch_nothing() -> None:
    assert _followed(EVENTS, " ", "login_redirect") == 0
    assert _followed(EVENTS, "api/routes.py", "") == 0
