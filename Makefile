# `make run` and `make test` each create .venv when it is missing and install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export SDL_AUDIODRIVER ?= dummy

.PHONY: run test test-all test-slow lint bench clean

$(VENV)/.run-installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@ $(VENV)/.run-installed

run: $(VENV)/.run-installed
	$(PY) main.py

# The everyday suite: every behaviour, without the runs that compile from an empty cache.
test: $(VENV)/.dev-installed
	SDL_VIDEODRIVER=dummy $(PY) -m pytest -q -n auto --maxprocesses=4 -m "not slow"
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Everything, the slow runs too (first starts from an empty cache, the installed wheel).
test-all: $(VENV)/.dev-installed
	SDL_VIDEODRIVER=dummy $(PY) -m pytest -q -n auto --maxprocesses=4
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

test-slow: $(VENV)/.dev-installed
	SDL_VIDEODRIVER=dummy $(PY) -m pytest -q -n auto --maxprocesses=4 -m slow

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Benchmarks run on the three Moving AI maps in tests/data; for the whole suite:
# make bench MAPS=path/to/movingai
MAPS ?= tests/data
bench: $(VENV)/.dev-installed
	$(PY) -m bench.kernel --maps $(MAPS)
	$(PY) -m bench.demo
	$(PY) -m bench.soak --steps 20000
	$(PY) -m bench.yaml_load

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
