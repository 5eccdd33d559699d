# Everything a clean clone needs: `make demo` and `make test` create the venv themselves.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test unit e2e lint typecheck format clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(VENV)/bin/planmode demo

test: install lint typecheck
	$(PY) -m pytest -q

unit: install
	$(PY) -m pytest -q tests/unit

e2e: install
	$(PY) -m pytest -q tests/e2e

lint: install
	$(VENV)/bin/ruff check server tests
	$(VENV)/bin/ruff format --check server tests

typecheck: install
	$(VENV)/bin/mypy

format: install
	$(VENV)/bin/ruff format server tests
	$(VENV)/bin/ruff check --fix server tests

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
