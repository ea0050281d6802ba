# proctor: developer and user entry points. Every target creates .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
DEMO_OUT ?= proctor-results
# The bundled example suite fails its gate on purpose (a wrong fix, a flaky case, a timeout):
# `proctor run` exits 1 there, and `make demo` checks that it does. The example evals
# (examples/evals) hold one case that fails on purpose too: `proctor eval` exits 1.
DEMO_EXPECTED_EXIT := 1
# Trials of the scale benchmark (local, and on a local two-node Ray cluster when ray is there).
SCALE_TRIALS ?= 10000

.PHONY: demo test check bench schemas clean agents goldens corpus

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(STAMP)

demo: $(STAMP)
	@$(BIN)/proctor validate --source examples/cases
	@$(BIN)/proctor run --source examples/cases --out $(DEMO_OUT); code=$$?; \
	  echo "proctor run exited $$code (the example suite is documented to exit $(DEMO_EXPECTED_EXIT))"; \
	  test $$code -eq $(DEMO_EXPECTED_EXIT)
	@$(BIN)/proctor eval --dir examples/evals --out $(DEMO_OUT); code=$$?; \
	  echo "proctor eval exited $$code (the example evals are documented to exit $(DEMO_EXPECTED_EXIT))"; \
	  test $$code -eq $(DEMO_EXPECTED_EXIT)

agents: $(STAMP)
	$(BIN)/proctor agents install
	$(BIN)/python -m proctor.addons.memory.install .agents

test: $(TEST_STAMP) agents
	$(BIN)/python -m pytest -n 2 -q

# Regenerate the golden trajectories of the real CLIs; review the diff before committing.
goldens: $(TEST_STAMP) agents
	UPDATE_GOLDENS=1 $(BIN)/python -m pytest -q tests/contract

# Re-record the corpus of real transcripts (tests/corpus) from the pinned CLIs, each talking to
# the scripted model; review the diff before committing.
corpus: $(TEST_STAMP) agents
	$(BIN)/python tests/corpus/record.py

check: $(TEST_STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP) agents
	$(BIN)/python bench/run_bench.py
	$(BIN)/python bench/parse_bench.py
	$(BIN)/python bench/instructions.py
	$(BIN)/python bench/price_check.py
	$(BIN)/python bench/workspace_bench.py
	$(BIN)/python bench/view_bench.py
	$(BIN)/python bench/view_live_bench.py
	$(BIN)/python bench/scale_bench.py --trials $(SCALE_TRIALS)
	@if $(BIN)/python -c "import ray" 2>/dev/null; then \
	  $(BIN)/python bench/scale_bench.py --trials $(SCALE_TRIALS) --executor ray; \
	else echo "bench: the Ray line needs the ray extra (pip install -e '.[ray]')"; fi

schemas: $(STAMP)
	$(BIN)/python -m proctor.models.schemas docs/schemas

clean:
	rm -rf $(VENV) proctor-results .pytest_cache .mypy_cache .ruff_cache
