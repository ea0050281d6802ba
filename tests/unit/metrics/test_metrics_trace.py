"""Unit tests of paths, timestamps, call/result pairing and check recognition."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from metrics_fixtures import call, result, shell
from pydantic import ValidationError

from proctor.metrics import (
    DEFAULT_CHECK_PATTERNS,
    MetricsConfig,
    check_pattern,
    is_check,
    normalise_path,
)
from proctor.metrics.trace import (
    build_steps,
    normalise_paths,
    outcome,
    parse_ts,
    seconds_since,
    shell_command,
    trial_start,
)
from proctor.models.trajectory import Event, make_event


@pytest.mark.parametrize(
    ("path", "workspace", "want"),
    [
        ("./src/a.py", None, "src/a.py"),
        ("src/dir/", None, "src/dir"),
        ("src//a.py", None, "src/a.py"),
        ("src\\a.py", None, "src/a.py"),
        ("/ws/src/a.py", "/ws", "src/a.py"),
        ("/ws/src/a.py", "/ws/", "src/a.py"),
        ("/ws", "/ws", "."),
        ("/wsx/a.py", "/ws", "/wsx/a.py"),
        ("/elsewhere/a.py", "/ws", "/elsewhere/a.py"),
        ("/ws/a.py", None, "/ws/a.py"),
        ("", "/ws", ""),
        ("   ", None, ""),
        # Path and workspace are normalised before the workspace is stripped.
        ("/ws/../ws/src/a.py", "/ws", "src/a.py"),
        ("/ws/src/a.py", "/ws/./", "src/a.py"),
        ("//ws/src/a.py", "/ws", "src/a.py"),
        ("//src/a.py", None, "/src/a.py"),
        ("/ws/./", "/ws", "."),
    ],
)
def test_normalise_path(path: str, workspace: str | None, want: str) -> None:
    assert normalise_path(path, workspace) == want


def test_normalise_paths_dedupes_and_drops_blanks() -> None:
    assert normalise_paths(None, None) == ()
    assert normalise_paths(["./a", "a", "", "b/"], None) == ("a", "b")


def test_parse_ts() -> None:
    assert parse_ts(None) is None
    assert parse_ts("") is None
    assert parse_ts("not a time") is None
    assert parse_ts("2025-01-01T00:00:00Z") == datetime(2025, 1, 1, tzinfo=UTC)
    assert parse_ts("2025-01-01T00:00:00") == datetime(2025, 1, 1, tzinfo=UTC)


def test_trial_start_and_seconds_since_degenerate() -> None:
    assert trial_start([]) is None
    assert trial_start([make_event("user_message")]) is None
    start = datetime(2025, 1, 1, tzinfo=UTC)
    assert seconds_since(None, "2025-01-01T00:00:01Z") is None
    assert seconds_since(start, None) is None
    assert seconds_since(start, "2025-01-01T00:00:01Z") == 1.0


def test_outcome() -> None:
    assert outcome(None) == "unknown"
    assert outcome(result("a", None)) == "unknown"
    assert outcome(result("a", True, denied=True)) == "unknown"
    assert outcome(result("a", False)) == "pass"
    assert outcome(result("a", True)) == "fail"


def test_build_steps_pairing() -> None:
    assert build_steps([]) == []
    steps = build_steps(
        [
            result("a", True),
            call("a", "read"),
            result("a", False, output="first"),
            result("a", True, output="second"),
            call(None, "read"),
            result("zzz", True),
        ]
    )
    assert [s.index for s in steps] == [0, 1]
    assert steps[0].result is not None and steps[0].result.output == "first"
    assert steps[0].outcome == "pass"
    assert steps[1].result is None and steps[1].outcome == "unknown"


def test_build_steps_reused_ids_pair_with_the_latest_open_call() -> None:
    steps = build_steps(
        [
            call("a", "read"),
            call("a", "read"),
            result("a", False, output="second call"),
            result("a", True, output="first call"),
        ]
    )
    assert [s.result.output if s.result else None for s in steps] == ["first call", "second call"]
    assert [s.outcome for s in steps] == ["fail", "pass"]


def test_shell_command() -> None:
    def one(event: Event) -> str | None:
        return shell_command(build_steps([event])[0])

    assert one(shell("a", "pytest")) == "pytest"
    assert one(shell("a", ["bash", "-lc", "pytest"])) == "bash -lc pytest"
    assert one(call("a", "shell", input={"cmd": "make test"})) == "make test"
    assert one(shell("a", 3)) is None
    assert one(call("a", "shell")) is None
    assert one(call("a", "read", input={"command": "pytest"})) is None


# --- checks and config -----------------------------------------------------------------------

CHECKS = [
    "pytest",
    "pytest -k collect-only",  # a test's name, not the option
    "coverage run -m pytest",
    "coverage run --source=src -m pytest -q",
    "npm t",
    "npm tst",
    "hatch test",
    "make test-unit",
    "make tests_integration",
    "make check:all",
    "npm test -- --help",  # past ``--`` the words are the script's
    "sudo -h ci-host pytest",  # sudo's own -h takes a host
    "exec pytest -q",
    "find tests -name '*.py' | xargs pytest",
    "xargs -n 1 pytest < files",
    "yarn jest",
    "pnpm vitest run",
    "npx playwright test",
    "mvn -pl core -am test",
    "mvn clean test",
    "python -m coverage run -m pytest",
    "python -m coverage run --rcfile .coveragerc -m pytest",
    "mvn -D x=y test",
    "mvn -Dskip=true verify",
    "pytest -q tests/test_a.py",
    ".venv/bin/pytest -x",
    "python -m pytest",
    "python3.11 -m unittest discover",
    "uv run pytest",
    "cd app && pytest",
    "FOO=1 timeout 60 pytest",
    "bash -lc 'cd /ws && npm test'",
    "npm run test:unit",
    "pnpm test",
    "yarn build",
    "npx tsc --noEmit",
    "cargo clippy -- -D warnings",
    "go vet ./...",
    "make check",
    "tox -e py311",
    "ruff check src",
    "ruff format --check .",
    "mypy --strict src",
    "flake8",
    "eslint .",
    "jest --ci",
    "vitest run",
    "mvn -q test",
    "./gradlew test",
    "echo start; pytest",
    "git stash\npytest -q",
    "(cd app && pytest)",
    "/bin/bash -lc pytest -q",
    "bash -o pipefail -c 'pytest -q | tail'",
    "python3 -m unittest 2>&1 | tail -3",
    # Runners given options, stepped over by their own grammar.
    "timeout -s KILL 60 pytest",
    "timeout --signal=KILL -k 5 60s pytest -q",
    "env -u VIRTUAL_ENV pytest",
    "env -i PATH=/usr/bin FOO=1 pytest",
    "uv run --with pytest-xdist pytest -n 4",
    "uv run --frozen pytest",
    "nice -n 10 make test",
    "sudo -u bob -E pytest",
    "time -p cargo test",
    "poetry run -- pytest",
    "npx -y jest",
    "FOO=1 timeout -k 5 60 env BAR=2 pytest",
    "docker compose exec web pytest",
    "docker compose run --rm -e X=1 web python -m pytest",
    "docker exec -it app npm test",
    # A tool's own options before its subcommand or target.
    "make -C app test",
    "make -j4 check",
    "make VERBOSE=1 clean test",
    "pnpm --filter web test",
    "npm --prefix app run test",
    "yarn workspace web test",
    "pnpm -r run build",
    "cargo +nightly test",
    "go -C app test ./...",
    "python -X dev -W error -m pytest",
    "python3 -u -mpytest",
    "./gradlew :app:testDebugUnitTest",
    "npm run -w web test",
    "cargo --manifest-path x/Cargo.toml test",
    "cargo --color always build",
    # A runner's own options before its subcommand, and flags clustered with a valued one.
    "sudo -iu ci pytest",
    "docker exec -itu root app pytest",
    "uv --directory app run pytest",
    "poetry -C app run pytest",
    "docker compose -f ci.yml run --rm web pytest",
    "docker compose --profile test run web pytest",
    "pnpm --filter web exec vitest",
    # A substitution is part of its word; a script behind a runner is opened.
    "make -j$(nproc) test",
    "make -j $(nproc) test",
    "make -j`nproc` test",
    "pytest $(git diff --name-only)",
    "timeout 60 bash -c 'pytest -q'",
    'sudo -u ci sh -c "pytest -q"',
    "docker compose exec web sh -c 'cd /app && pytest'",
    "docker exec -it app bash -lc 'npm test'",
    # Quotes are the shell's, not the words'.
    'make "test"',
    'npm run "test"',
    "'pytest' -q",
    "$(pnpm bin)/vitest run",
    "`npm bin`/jest",
    # A make's variables are not its options.
    'make test ARGS="-x -q -v"',
    "make test PYTEST_ARGS='-x -q -vv'",
    'make check CFLAGS="-O2 -n -g"',
    "make V=1 test CFLAGS='-n'",
    "make V=1 ARGS=-n test",  # the variable's value, not make's option
    # An option a package manager is not known to take may have a value.
    "npm --loglevel silent test",
    "npm run --loglevel silent test",
    "npm --registry http://localhost:4873 test",
    "pnpm -r --workspace-concurrency 1 test",
    "yarn --mutex network test",
    "pnpm -w test",  # pnpm's -w is --workspace-root, a flag
    # The shell's keywords are stepped over.
    "if pytest -q; then echo ok; fi",
    "until make check; do sleep 1; done",
    "{ pytest; }",
]
NOT_CHECKS = [
    "",
    "pytest --version",
    "pytest -h",
    "tsc --init",
    "jest --listTests",
    "go test -h",
    "pytest --collect-only -q",
    "pytest -q --co",
    "pytest --fixtures",
    "python3 -m pytest --collect-only -q",  # run by the interpreter: it runs no test either
    "python -m pytest tests --co",
    "coverage run -m pytest --markers",
    "python -m coverage run -m pytest --collect-only",
    "mypy --version",
    "eslint --help",
    "uv run pytest --version",
    "coverage report",
    "npm run t",
    "make lint-fix",
    "make testing",
    "yarn add jest",
    "mvn dependency:tree -Dx=test",
    "xargs echo",
    "mvn clean # then test",
    "mvn dependency:tree > test",
    'mvn exec:java -Dexec.args="run test"',
    "mvn -P test spring-boot:run",
    "mvn -pl test clean",
    "npx playwright test --list",
    "pip install pytest",
    "cat pytest.ini",
    "grep -r mypy .",
    "ls tests",
    "ruff format src",
    "npm install",
    "go mod tidy",
    "make",
    "pytest-watch",
    "./run_tests.sh",
    # Quoted text is not a command.
    'echo "done && make test"',
    'git commit -m "fix; pytest passes"',
    "git commit -m 'fix\npytest passes'",
    "echo 'unbalanced | pytest",
    "echo ok # ; pytest",
    # A runner's or a tool's option values are not the command or the target.
    "make -C test install",
    "make -f test.mk",
    "timeout 60",
    "timeout -s KILL 60",
    "env -u X",
    "npm -g install typescript",
    "uv run --with pytest python x.py",
    "docker exec app echo pytest",
    "docker exec app",
    "env 'pytest; rm'",
    "npm -w test install",
    "npm --workspace test install lodash",
    "npm --prefix build install",
    "npm -w build ci",
    "pnpm -C build install",
    "pnpm --filter test-utils add lodash",
    "yarn --cwd test add jest",
    "bun --cwd test install",
    # A make that only says what it would do.
    "make -n test",
    "make --dry-run build",
    "make --just-print test",
    "make -q check",
    "make -kn check",
    "make VERBOSE=1 -n test",  # after a variable too
    "make -C app V=1 --dry-run test",
    "make V=1 --just-print test",
    "make V=1 J=$(nproc) --recon build",
    "make V=1 -q check",
    "make V=1 --question lint",
    "uv run --upgrade-package pytest python x.py",
    "./gradlew buildEnvironment",
    "docker compose up -d",
    "poetry -C run install",
]


@pytest.mark.parametrize("command", CHECKS)
def test_default_patterns_recognise_checks(command: str) -> None:
    assert is_check(MetricsConfig(), command)


@pytest.mark.parametrize("command", NOT_CHECKS)
def test_default_patterns_ignore_non_checks(command: str) -> None:
    assert not is_check(MetricsConfig(), command)


def test_config_defaults_and_validation() -> None:
    config = MetricsConfig()
    assert config.check_patterns == DEFAULT_CHECK_PATTERNS
    assert (config.loop_repeat, config.long_orientation_max, config.rework_max) == (3, 20, 3)
    assert config.loops_max == 0
    loaded = MetricsConfig.model_validate({"loopRepeat": 4, "longOrientationMax": 5})
    assert (loaded.loop_repeat, loaded.long_orientation_max) == (4, 5)
    with pytest.raises(ValidationError):
        MetricsConfig(check_patterns=("(",))
    with pytest.raises(ValidationError):
        MetricsConfig(loop_repeat=1)
    with pytest.raises(ValidationError):
        MetricsConfig.model_validate({"unknownKey": 1})
    with pytest.raises(ValidationError):
        config.loop_repeat = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    "pattern", ["(", "a{99999999999}", "(" * 1000 + ")" * 1000], ids=["syntax", "overflow", "deep"]
)
def test_unusable_check_pattern_is_a_config_error(pattern: str) -> None:
    with pytest.raises(ValidationError, match="invalid check pattern"):
        MetricsConfig.model_validate({"checkPatterns": [pattern]})


def test_raw_pattern_anchors_at_each_command() -> None:
    config = MetricsConfig(check_patterns=(r"^\./run_tests\.sh\b",))
    assert is_check(config, "cd app && ./run_tests.sh")
    assert not is_check(config, "echo './run_tests.sh'")
    assert not is_check(config, "echo '\n./run_tests.sh'")


def test_check_pattern_extends_defaults() -> None:
    config = MetricsConfig(check_patterns=(*DEFAULT_CHECK_PATTERNS, check_pattern(r"just\s+test")))
    assert is_check(config, "cd x && just test")
    assert not is_check(config, "echo just test")
    assert not is_check(MetricsConfig(check_patterns=()), "pytest")
