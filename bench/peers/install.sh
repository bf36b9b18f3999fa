#!/usr/bin/env bash
# Installs bench/peers' npm packages (the official MCP TypeScript SDK and
# the peer @modelcontextprotocol/server-memory) into bench/peers/node_modules
# (git-ignored), exactly as package-lock.json pins them. Skips the install
# when node_modules already matches the lock file.
set -euo pipefail
cd "$(dirname "$0")"

need_major=20
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "bench/peers/install.sh: node and npm (Node >= $need_major) are needed; on Debian: apt-get install nodejs npm" >&2
	exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt "$need_major" ]; then
	echo "bench/peers/install.sh: Node $(node --version) is too old; the MCP SDK needs Node >= $need_major" >&2
	exit 1
fi

# npm ci writes node_modules/.package-lock.json; a stamp of the lock file's
# hash beside it says which lock file that install came from.
stamp=node_modules/.kg-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi
# --ignore-scripts: no package's install hook runs on this machine.
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
echo "$want" >"$stamp"
