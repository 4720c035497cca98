# `make test` and `make run` work on a fresh machine: the first run creates .venv
# and installs the project (editable) with its test extra.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test lint run bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
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
