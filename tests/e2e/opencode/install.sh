#!/bin/sh
# Installs OpenCode (npm's opencode-ai) VERSION into the end-to-end cache, once (stamped):
#   tests/e2e/opencode/install.sh 1.18.33
# into ${PLANMODE_E2E_CACHE:-~/.cache/planmode-e2e}/opencode/VERSION:
#   node_modules/.bin/opencode   the CLI (its native binary comes as an optional dependency)
#   plugin-deps/                 npm's install of @opencode-ai/plugin@VERSION, which OpenCode
#                                would otherwise install from the registry into every config
#                                directory before it loads a plugin; the tests copy its
#                                package.json and package-lock.json there and link its
#                                node_modules (tests/e2e/opencode/tui.py, seed_plugin_deps)
#   .installed                   the stamp: present only when both answered
# Everything else OpenCode would fetch on its first start (update check, models.dev, sharing,
# LSP servers, default plugins) is turned off by the tests' settings and environment
# (docs/opencode.md, "Starting offline"). A version that cannot be installed is reported and
# the script exits 1; its end-to-end test then skips with the reason.
set -eu

version=${1:?usage: install.sh VERSION}
cache=${PLANMODE_E2E_CACHE:-$HOME/.cache/planmode-e2e}
dir=$cache/opencode/$version

if [ -f "$dir/.installed" ]; then
  exit 0
fi
command -v npm >/dev/null || { echo "OpenCode $version needs npm (Node.js 20+)" >&2; exit 1; }
echo "installing OpenCode $version into $dir"
npm_install() {
  npm install --prefix "$1" --no-audit --no-fund --loglevel=error "$2"
}
if npm_install "$dir" "opencode-ai@$version" \
  && "$dir/node_modules/.bin/opencode" --version | grep -qx "$version" \
  && npm_install "$dir/plugin-deps" "@opencode-ai/plugin@$version" \
  && [ -f "$dir/plugin-deps/package-lock.json" ] \
  && [ -d "$dir/plugin-deps/node_modules/@opencode-ai/plugin" ]; then
  touch "$dir/.installed"
  echo "OpenCode $("$dir/node_modules/.bin/opencode" --version) installed"
else
  echo "OpenCode $version could not be installed: its end-to-end test will be skipped" >&2
  exit 1
fi
