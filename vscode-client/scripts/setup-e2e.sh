#!/bin/sh
# Prepares what the end-to-end test needs, once: system packages (Debian), and code-server
# (real VS Code 1.100.3 in a browser) cached per user (PLANMODE_E2E_CACHE, default
# ~/.cache/planmode-e2e), so fresh clones on the same machine reuse it. A second run only checks.
set -eu
cd "$(dirname "$0")/.."

CODE_SERVER_VERSION=4.100.3
CACHE="${PLANMODE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/planmode-e2e}"
mkdir -p "$CACHE"
PACKAGES="chromium ripgrep pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev"

missing=""
for pkg in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    echo "e2e: installing system packages:$missing"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

bin="$CACHE/code-server/node_modules/.bin/code-server"
if [ -x "$bin" ] && grep -q "\"version\": \"$CODE_SERVER_VERSION\"" "$CACHE/code-server/node_modules/code-server/package.json"; then
    exit 0
fi

echo "e2e: installing code-server $CODE_SERVER_VERSION into $CACHE/code-server (a few minutes, once)"
rm -rf "$CACHE/code-server"
mkdir -p "$CACHE/code-server" "$CACHE/tmp"
tmp="$(cd "$CACHE/tmp" && pwd)"
# code-server's ripgrep dependency downloads a binary at install time; give it Debian's
# rg in the cache it looks in first.
rgcache="$tmp/vscode-ripgrep-cache-1.15.11"
mkdir -p "$rgcache" "$tmp/rg"
cp "$(command -v rg)" "$tmp/rg/rg"
tar -C "$tmp/rg" -czf "$rgcache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg
echo '{"private": true}' >"$CACHE/code-server/package.json"
(
    cd "$CACHE/code-server"
    # unsafe_perm: code-server's postinstall refuses to run as root without it.
    TMPDIR="$tmp" npm_config_nodedir=/usr npm_config_unsafe_perm=true npm_config_yes=true \
        npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION"
)
rm -rf "$tmp"
test -x "$bin"
