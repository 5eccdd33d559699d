#!/bin/sh
# Install one version of Gemini CLI (@google/gemini-cli) into the end-to-end cache, once:
#   tests/e2e/gemini/install.sh VERSION
# into ${PLANMODE_E2E_CACHE:-~/.cache/planmode-e2e}/gemini/VERSION, stamped with .installed
# when `gemini --version` answers VERSION (as the Makefile's install-claude-code recipe). A
# version that cannot be installed is reported and the install exits 1; its test then skips.
#
# Nothing is fetched when the CLI runs: it is a bundled JS program (bundle/gemini.js) whose
# start-up traffic (update check, telemetry, usage statistics, IDE companion) the test's
# settings turn off (tests/e2e/gemini/tui.py, docs/gemini.md). npm skips node-pty's install
# script here, which the CLI does not need: without it, shell commands run through
# child_process.
set -u
version="${1:?usage: install.sh VERSION}"
cache="${PLANMODE_E2E_CACHE:-$HOME/.cache/planmode-e2e}"
dir="$cache/gemini/$version"
binary="$dir/node_modules/.bin/gemini"

if [ -f "$dir/.installed" ] && "$binary" --version >/dev/null 2>&1; then
  exit 0
fi
command -v npm >/dev/null || { echo "installing Gemini CLI $version needs npm (Node.js 20+)"; exit 1; }
echo "installing Gemini CLI $version into $dir"
rm -f "$dir/.installed"
# `gemini --version` writes ~/.gemini/: give it a throw-away HOME.
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
if npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@google/gemini-cli@$version" \
  && said=$(HOME="$scratch" NO_UPDATE_NOTIFIER=1 "$binary" --version 2>/dev/null) \
  && [ "$said" = "$version" ]; then
  echo "Gemini CLI $said"
  touch "$dir/.installed"
else
  echo "Gemini CLI $version could not be installed: its end-to-end test will be skipped"
  exit 1
fi
