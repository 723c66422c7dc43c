# Set-up and everyday commands. Each target creates the local environment (.venv) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint audit bench clean

$(BIN)/table-controller: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

## run: the controller on the embedded default (a simulated roulette wheel); Ctrl-C stops it
run: $(BIN)/table-controller
	$(BIN)/table-controller run

## test: lint, type-check and the whole test suite
test: $(BIN)/table-controller lint
	$(BIN)/python -m pytest -q

lint: $(BIN)/table-controller
	$(BIN)/ruff check controller drivers sim feed tests bench
	$(BIN)/mypy

## audit: the article tests of each seed (tests/articles) and the inspector's table of articles;
## make audit ARGS=--verbose lists each article's tests and notes
audit: $(BIN)/table-controller
	$(BIN)/python tests/articles/audit.py $(ARGS)

## bench: print throughput, latency and memory figures for this machine
bench: $(BIN)/table-controller
	$(BIN)/python bench/bench.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
