# Everything a clean clone needs: `make demo` and `make test` create the venv themselves.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test unit e2e lint typecheck format clean editors

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(VENV)/bin/planmode demo

test: install editors lint typecheck
	$(PY) -m pytest -q

# Real editors the end-to-end tests drive (Debian packages; installed once, as root in CI).
editors:
	@command -v nvim >/dev/null || { apt-get update -qq && apt-get install -y -qq neovim; }

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
