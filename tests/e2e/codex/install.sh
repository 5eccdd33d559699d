#!/bin/sh
# Install Codex CLI (@openai/codex) VERSION into the end-to-end cache, once (stamped), as the
# Makefile's install-claude-code recipe does for Claude Code:
#
#   tests/e2e/codex/install.sh 0.169.0
#
# into ${PLANMODE_E2E_CACHE:-~/.cache/planmode-e2e}/codex/VERSION. The npm package is a small
# launcher (bin/codex.js) whose native binary comes as an optional dependency
# (@openai/codex-linux-x64 and the like); `codex --version` must answer VERSION before the
# install is stamped. Nothing else is fetched: at run time the tests start Codex offline (no
# update check, no analytics, no models list from the network: docs/codex.md). Exits 0 when
# the version is there, 1 (saying why) when it cannot be installed.
set -u
version="${1:?usage: install.sh VERSION}"
cache="${PLANMODE_E2E_CACHE:-$HOME/.cache/planmode-e2e}"
dir="$cache/codex/$version"
codex="$dir/node_modules/.bin/codex"

if [ -f "$dir/.installed" ] && "$codex" --version 2>/dev/null | grep -qF "$version"; then
  exit 0
fi
echo "installing Codex CLI $version into $dir"
if npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@openai/codex@$version" \
  && "$codex" --version | grep -qF "$version"; then
  "$codex" --version
  touch "$dir/.installed"
else
  echo "Codex CLI $version could not be installed: its end-to-end test will be skipped"
  exit 1
fi
