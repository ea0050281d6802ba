import pytest

from proctor.agents.gemini_cli import HOOK_EVENTS, HOOK_TOOLS
from proctor.agents.provisioning import hook_groups
from proctor.errors import WorkspaceError
from proctor.models.config import HOOK_EVENTS as EVERY_EVENT
from proctor.models.config import HookEntry, ProvisionEntry


def entry(**fields: str) -> ProvisionEntry:
    return ProvisionEntry.model_validate({"name": "h", "command": "true", **fields})


def test_hooks_keep_claude_names_without_a_translation() -> None:
    groups = hook_groups([entry(matcher="Bash"), entry(event="Stop")])
    assert groups == {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "true"}]}],
    }


def test_gemini_translation_of_events_and_matcher_words() -> None:
    entries = [
        entry(matcher="Write|Edit"),
        entry(event="PostToolUse", matcher="^(Bash|Read)$"),
        entry(event="UserPromptSubmit"),
        entry(event="BeforeModel"),
        entry(event="BeforeTool", matcher="run_shell_command|mcp__docs__lookup"),
    ]
    groups = hook_groups(entries, HOOK_EVENTS, HOOK_TOOLS)
    matchers = {event: [g.get("matcher") for g in gs] for event, gs in groups.items()}
    assert matchers == {
        "BeforeTool": ["write_file|replace", "run_shell_command|mcp__docs__lookup"],
        "AfterTool": ["^(run_shell_command|read_file)$"],
        "BeforeAgent": [None],
        "BeforeModel": [None],
    }


def test_control_a_hook_without_a_command_is_refused() -> None:
    bad = ProvisionEntry.model_validate({"name": "h", "event": "Stop"})
    with pytest.raises(WorkspaceError, match="provision.hooks 'h': field 'command' is required"):
        hook_groups([bad])


def test_regex_escapes_in_matchers_survive_the_translation() -> None:
    groups = hook_groups([entry(matcher=r"\bBash\b|^Read$")], HOOK_EVENTS, HOOK_TOOLS)
    assert groups["BeforeTool"][0]["matcher"] == r"\brun_shell_command\b|^read_file$"


@pytest.mark.parametrize(
    ("event", "meant"),
    [("PreToolUSe", "PreToolUse"), ("pretooluse", "PreToolUse"), ("Stopp", "Stop"),
     ("AfterToolUse", "AfterTool"), ("SessionStrat", "SessionStart")],
)  # fmt: skip
def test_a_hook_event_that_is_a_slip_of_a_known_one_is_refused_with_it(
    event: str, meant: str
) -> None:
    with pytest.raises(
        ValueError, match=f"'{event}', which no agent CLI names; did you mean '{meant}'"
    ):
        HookEntry(name="guard", command="true", event=event)


@pytest.mark.parametrize("event", ["PreToolUse", "BeforeTool", "SubagentStop", "OnCommit"])
def test_control_known_events_and_names_far_from_them_pass(event: str) -> None:
    assert HookEntry(name="guard", command="true", event=event).field("event") == event
    known = {*HOOK_EVENTS, *HOOK_EVENTS.values()}
    assert known <= set(EVERY_EVENT)  # every name the Gemini translation knows counts as known
