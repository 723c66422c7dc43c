# Set-up and everyday commands. Each target creates the local environment (.venv) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint audit bench clean

$(BIN)/table-controller: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

## run: the controller on the embedded default (a simulated roulette wheel), its screen
## (table-display) and the floor (a local Mosquitto and PostgreSQL, table-feed, table-floor:
## python -m feed.local) beside it; the banners say where; Ctrl-C stops them all (it
## reaches all three, once: a second would make the display's server force its exit;
## the recipe's shell outlives it and waits for them)
run: $(BIN)/table-controller
	@$(BIN)/table-display & display=$$!; \
	$(BIN)/python -m feed.local & floor=$$!; \
	trap 'int=1' INT; trap 'kill $$display $$floor 2>/dev/null' TERM HUP; \
	$(BIN)/table-controller run; code=$$?; \
	[ -n "$$int" ] || kill $$display $$floor 2>/dev/null; \
	wait $$display $$floor; exit $$code

## test: lint, type-check and the whole test suite: spread over the cores (tests/scheduling.py),
## then the tests judged against wall time, alone
test: $(BIN)/table-controller lint
	$(BIN)/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder -m 'not realtime'
	$(BIN)/python -m pytest -q -m realtime

lint: $(BIN)/table-controller
	$(BIN)/ruff check controller drivers sim display feed tests bench
	$(BIN)/mypy

## audit: the article tests of each seed (tests/articles) and the inspector's table of articles;
## make audit ARGS=--verbose lists each article's tests and notes
audit: $(BIN)/table-controller
	$(BIN)/python tests/articles/audit.py $(ARGS)

## bench: print throughput, latency, memory and write figures for this machine, each with
## its goal; make bench ARGS='--only replay,pi --json figures.json'
bench: $(BIN)/table-controller
	$(BIN)/python bench/bench.py $(ARGS)

## clean: the environment, var/ and make run's cluster when root kept it outside
## (feed/local.py's outside_folder: /var/tmp/tc-floor- and 8 hex of var/floor's path)
clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info \
	  /var/tmp/tc-floor-$$(printf '%s' "$$(pwd -P)/var/floor" | sha256sum | cut -c1-8)
