# Everything a clean clone needs: `make demo` and `make test` create the venv themselves.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test unit e2e lint typecheck format clean editors bench vscode vscode-test lint-client dist claude-code

CLIENT := vscode-client
NODE_STAMP := $(CLIENT)/node_modules/.installed

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

# The VS Code client: node_modules from the lock file (npm ci also empties it, hence the stamp
# inside), then type-check, bundle and package planmode.vsix.
$(NODE_STAMP): $(CLIENT)/package.json $(CLIENT)/package-lock.json
	@command -v npm >/dev/null || { echo "make vscode needs Node.js 20+ and npm"; exit 1; }
	cd $(CLIENT) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

# The .vsix carries the planmode wheel (server/), which the extension installs into its private
# environment when no Python with planmode is found.
vscode: $(NODE_STAMP) install
	rm -rf $(CLIENT)/server
	$(PY) -m build --wheel --outdir $(CLIENT)/server . >/dev/null
	cd $(CLIENT) && npm run --silent build && npm run --silent package

# Unit tests, then real VS Code end to end (scripts/setup-e2e.sh installs Debian packages and
# code-server into $(CLIENT)/.e2e/ on the first run).
vscode-test: install vscode
	cd $(CLIENT) && npm run --silent test:unit && npm run --silent test:e2e

# The client's eslint (typescript-eslint, type-checked) and prettier --check; `npm run format`
# in vscode-client/ applies prettier.
lint-client: $(NODE_STAMP)
	cd $(CLIENT) && npm run --silent lint

# The wheel and the sdist users install (python -m build: the sdist, then the wheel from it).
dist: install
	rm -rf dist
	$(PY) -m build --outdir dist .

demo: install
	$(VENV)/bin/planmode demo

test: install editors claude-code lint lint-client typecheck vscode-test
	PLANMODE_NO_SKIP=1 $(PY) -m pytest -q

# Real editors the end-to-end tests drive, and bubblewrap for the sandbox tests (Debian
# packages; installed once, as root in CI).
editors:
	@command -v nvim >/dev/null || { apt-get update -qq && apt-get install -y -qq neovim; }
	@command -v bwrap >/dev/null || { apt-get update -qq && apt-get install -y -qq bubblewrap; }
	@command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux; }
	@# Emacs 28 with eglot 1.9, lsp-mode and markdown-mode (tests/e2e/test_emacs.py).
	@command -v dpkg >/dev/null || exit 0; missing=""; \
	for p in emacs-nox elpa-eglot elpa-lsp-mode elpa-markdown-mode; do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	[ -z "$$missing" ] || { apt-get update -qq && apt-get install -y -qq $$missing; }

# The real Claude Code CLI for tests/e2e/test_claude_code.py: each pinned version from npm into
# the e2e cache, once (stamped). A version that cannot be installed is reported here and the
# test for it is skipped with the reason.
E2E_CACHE := $(or $(PLANMODE_E2E_CACHE),$(HOME)/.cache/planmode-e2e)
CLAUDE_CODE_VERSIONS := $(shell cat tests/e2e/claude_code/versions.txt)

claude-code:
	@for v in $(CLAUDE_CODE_VERSIONS); do \
	  dir="$(E2E_CACHE)/claude-code/$$v"; \
	  [ -f "$$dir/.installed" ] && continue; \
	  echo "installing Claude Code $$v into $$dir"; \
	  npm install --prefix "$$dir" --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$$v" \
	  && { "$$dir/node_modules/.bin/claude" --version >/dev/null 2>&1 \
	       || (cd "$$dir/node_modules/@anthropic-ai/claude-code" && node install.cjs); } \
	  && "$$dir/node_modules/.bin/claude" --version \
	  && touch "$$dir/.installed" \
	  || echo "Claude Code $$v could not be installed: its end-to-end test will be skipped"; \
	done

# Speed against a bare pygls server, in one run (not part of make test).
bench: install
	$(PY) benchmarks/run.py

unit: install
	$(PY) -m pytest -q tests/unit

e2e: install
	$(PY) -m pytest -q tests/e2e

lint: install
	$(VENV)/bin/ruff check server tests benchmarks
	$(VENV)/bin/ruff format --check server tests benchmarks

typecheck: install
	$(VENV)/bin/mypy

format: install
	$(VENV)/bin/ruff format server tests
	$(VENV)/bin/ruff check --fix server tests

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis dist build
	rm -rf $(CLIENT)/node_modules $(CLIENT)/out $(CLIENT)/dist $(CLIENT)/server $(CLIENT)/planmode.vsix
