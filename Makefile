# Everything a clean clone needs: `make demo` and `make test` create the venv themselves.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help install demo check test unit unit-client e2e lint typecheck format schema clean editors bench vscode vscode-test lint-client dist claude-code claude-code-latest gemini gemini-latest opencode opencode-latest codex codex-latest agents-latest

CLIENT := vscode-client
NODE_STAMP := $(CLIENT)/node_modules/.installed

# A target's `## ` line above it is its entry in `make help`, the default goal.
## help: this list
help:
	@sed -n 's/^## \([a-z-]*\): /\1\t/p' $(MAKEFILE_LIST) | awk -F'\t' '{ printf "  make %-12s %s\n", $$1, $$2 }'

# The package (editable) and the dev tools of pyproject's [dependency-groups]: `--group` needs
# pip 25.1 or newer, hence the upgrade first.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade "pip>=25.1"
	$(PY) -m pip install --quiet -e . --group dev
	touch $(STAMP)

## install: .venv with planmode (editable) and the dev tools
install: $(STAMP)

# The VS Code client: node_modules from the lock file (npm ci also empties it, hence the stamp
# inside), then type-check, bundle and package planmode.vsix.
$(NODE_STAMP): $(CLIENT)/package.json $(CLIENT)/package-lock.json
	@command -v npm >/dev/null || { echo "make vscode needs Node.js 20+ and npm"; exit 1; }
	cd $(CLIENT) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

## vscode: build and package the VS Code client (vscode-client/planmode.vsix)
# The .vsix carries the planmode wheel (server/), which the extension installs into its private
# environment when no Python with planmode is found.
vscode: $(NODE_STAMP) install
	rm -rf $(CLIENT)/server
	$(PY) -m build --wheel --outdir $(CLIENT)/server . >/dev/null
	cd $(CLIENT) && npm run --silent build && npm run --silent package

## vscode-test: the client's unit tests, then real VS Code (code-server) end to end
# Unit tests, then real VS Code end to end (scripts/setup-e2e.sh installs Debian packages and
# code-server into $(CLIENT)/.e2e/ on the first run).
vscode-test: install vscode unit-client
	cd $(CLIENT) && npm run --silent test:e2e

## unit-client: the client's unit tests (node --test; its types against the wire's schema)
unit-client: $(NODE_STAMP)
	cd $(CLIENT) && npm run --silent test:unit

## lint-client: the client's eslint and prettier --check
# The client's eslint (typescript-eslint, type-checked) and prettier --check; `npm run format`
# in vscode-client/ applies prettier.
lint-client: $(NODE_STAMP)
	cd $(CLIENT) && npm run --silent lint

## dist: the wheel and the sdist users install, into dist/
# python -m build: the sdist, then the wheel from it.
dist: install
	rm -rf dist
	$(PY) -m build --outdir dist .

## demo: play agent and editor against the real server in a temp workspace
demo: install
	$(VENV)/bin/planmode demo

## check: lint (Python and client), types and unit tests: the fast loop (no editors)
# Installs only .venv and the client's node_modules.
check: lint lint-client typecheck unit unit-client

## test: everything CI runs: lint, types, the client, every Python test with real editors
test: install editors claude-code gemini opencode codex lint lint-client typecheck vscode-test
	PLANMODE_NO_SKIP=1 $(PY) -m pytest -q

## editors: Neovim, Emacs, tmux, bubblewrap and iproute2 for the end-to-end tests (apt-get, once)
# Real editors the end-to-end tests drive, bubblewrap for the sandbox tests, and iproute2's
# `ip` and `ss`, which the sandbox tests run inside it (Debian packages; installed once, as
# root in CI).
editors:
	@command -v nvim >/dev/null || { apt-get update -qq && apt-get install -y -qq neovim; }
	@command -v bwrap >/dev/null || { apt-get update -qq && apt-get install -y -qq bubblewrap; }
	@command -v ip >/dev/null && command -v ss >/dev/null || \
	  { apt-get update -qq && apt-get install -y -qq iproute2; }
	@command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux; }
	@# Emacs 28 with eglot 1.9, lsp-mode and markdown-mode (tests/e2e/test_emacs.py).
	@command -v dpkg >/dev/null || exit 0; missing=""; \
	for p in emacs-nox elpa-eglot elpa-lsp-mode elpa-markdown-mode; do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	[ -z "$$missing" ] || { apt-get update -qq && apt-get install -y -qq $$missing; }

## claude-code: the pinned Claude Code CLI versions for the end-to-end tests (npm, once)
# The real Claude Code CLI for tests/e2e/test_claude_code.py: each pinned version from npm into
# the e2e cache, once (stamped). A version that cannot be installed is reported here and the
# test for it is skipped with the reason.
E2E_CACHE := $(or $(PLANMODE_E2E_CACHE),$(HOME)/.cache/planmode-e2e)
CLAUDE_CODE_VERSIONS := $(shell cat tests/e2e/claude_code/versions.txt)

# $(call install-claude-code,VERSION): that version into the cache, unless it is there.
define install-claude-code
dir="$(E2E_CACHE)/claude-code/$(1)"; \
[ -f "$$dir/.installed" ] || { \
  echo "installing Claude Code $(1) into $$dir"; \
  npm install --prefix "$$dir" --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$(1)" \
  && { "$$dir/node_modules/.bin/claude" --version >/dev/null 2>&1 \
       || (cd "$$dir/node_modules/@anthropic-ai/claude-code" && node install.cjs); } \
  && "$$dir/node_modules/.bin/claude" --version \
  && touch "$$dir/.installed" \
  || echo "Claude Code $(1) could not be installed: its end-to-end test will be skipped"; }
endef

claude-code:
	@for v in $(CLAUDE_CODE_VERSIONS); do $(call install-claude-code,$$v); done

## claude-code-latest: the real Claude Code test against npm's newest release (not in make test)
# A new release's drift shows in one command: the same end-to-end test as the pinned versions.
claude-code-latest: install editors
	@v=$$(npm view @anthropic-ai/claude-code version) \
	  || { echo "npm cannot tell the newest Claude Code"; exit 1; }; \
	echo "npm's newest Claude Code: $$v"; \
	$(call install-claude-code,$$v); \
	PLANMODE_CLAUDE_CODE_VERSION=$$v PLANMODE_NO_SKIP=1 $(PY) -m pytest -q tests/e2e/test_claude_code.py

## gemini: the pinned Gemini CLI for the end-to-end tests (npm, once)
# The real Gemini CLI for tests/e2e/test_gemini*.py: the version tests/e2e/gemini/tui.py pins,
# from npm into the e2e cache, once (install.sh stamps it as the Claude Code recipe does). One
# that cannot be installed is reported here and its tests are skipped with the reason.
GEMINI_VERSION := $(shell sed -n 's/^VERSION = "\(.*\)"$$/\1/p' tests/e2e/gemini/tui.py)

gemini:
	@tests/e2e/gemini/install.sh $(GEMINI_VERSION) || true

## gemini-latest: the real Gemini CLI tests against npm's newest release (not in make test)
gemini-latest: install editors
	@v=$$(npm view @google/gemini-cli version) \
	  || { echo "npm cannot tell the newest Gemini CLI"; exit 1; }; \
	echo "npm's newest Gemini CLI: $$v"; \
	tests/e2e/gemini/install.sh $$v || exit 1; \
	PLANMODE_GEMINI_VERSION=$$v PLANMODE_NO_SKIP=1 $(PY) -m pytest -q \
	  tests/e2e/test_gemini.py tests/e2e/test_gemini_cli.py

## opencode: the pinned OpenCode CLI for the end-to-end tests (npm, once)
# The real OpenCode for tests/e2e/test_opencode*.py: the version tests/e2e/opencode/versions.txt
# pins and the @opencode-ai/plugin it would fetch at start, from npm into the e2e cache, once
# (install.sh stamps it as the Claude Code recipe does). One that cannot be installed is
# reported here and its tests are skipped with the reason.
OPENCODE_VERSION := $(shell cat tests/e2e/opencode/versions.txt)

opencode:
	@tests/e2e/opencode/install.sh $(OPENCODE_VERSION) || true

## opencode-latest: the real OpenCode tests against npm's newest release (not in make test)
opencode-latest: install editors
	@v=$$(npm view opencode-ai version) \
	  || { echo "npm cannot tell the newest OpenCode"; exit 1; }; \
	echo "npm's newest OpenCode: $$v"; \
	tests/e2e/opencode/install.sh $$v || exit 1; \
	PLANMODE_OPENCODE_VERSION=$$v PLANMODE_NO_SKIP=1 $(PY) -m pytest -q \
	  tests/e2e/test_opencode.py tests/e2e/test_opencode_cli.py

## codex: the pinned Codex CLI for the end-to-end tests (npm, once)
# The real Codex CLI for tests/e2e/test_codex*.py: the version tests/e2e/codex/versions.txt
# pins, from npm into the e2e cache, once (install.sh stamps it as the Claude Code recipe does).
# One that cannot be installed is reported here and its tests are skipped with the reason.
CODEX_VERSION := $(shell cat tests/e2e/codex/versions.txt)

codex:
	@tests/e2e/codex/install.sh $(CODEX_VERSION) || true

## codex-latest: the real Codex CLI tests against npm's newest release (not in make test)
codex-latest: install editors
	@v=$$(npm view @openai/codex version) \
	  || { echo "npm cannot tell the newest Codex CLI"; exit 1; }; \
	echo "npm's newest Codex CLI: $$v"; \
	tests/e2e/codex/install.sh $$v || exit 1; \
	PLANMODE_CODEX_VERSION=$$v PLANMODE_NO_SKIP=1 $(PY) -m pytest -q \
	  tests/e2e/test_codex.py tests/e2e/test_codex_cli.py

## agents-latest: every agent's real-CLI tests against npm's newest releases (not in make test)
agents-latest: claude-code-latest gemini-latest opencode-latest codex-latest

## bench: speed against a bare pygls server, in one run (not part of make test)
bench: install
	$(PY) benchmarks/run.py

## unit: the Python unit tests (tests/unit)
unit: install
	$(PY) -m pytest -q tests/unit

## e2e: the Python end-to-end tests (tests/e2e)
e2e: install
	$(PY) -m pytest -q tests/e2e

## lint: ruff check and ruff format --check
lint: install
	$(VENV)/bin/ruff check server tests benchmarks
	$(VENV)/bin/ruff format --check server tests benchmarks

## typecheck: mypy --strict
typecheck: install
	$(VENV)/bin/mypy

## format: ruff format and ruff check --fix
format: install
	$(VENV)/bin/ruff format server tests benchmarks
	$(VENV)/bin/ruff check --fix server tests benchmarks

## schema: regenerate the wire's JSON schema for the client's tests (wire-schema.json)
schema: install
	$(PY) -m planmode.lsp.schema

## clean: remove the venv, caches and build output
clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis dist build
	rm -rf $(CLIENT)/node_modules $(CLIENT)/out $(CLIENT)/dist $(CLIENT)/server $(CLIENT)/planmode.vsix
