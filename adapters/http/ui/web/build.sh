#!/usr/bin/env bash
# Builds the web page into adapters/http/ui/dist (or into $1), installing
# the npm packages first, exactly as package-lock.json pins them, when
# node_modules does not match it. `make ui` runs it; `make ui-check` builds
# into a temporary folder and compares.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v npm >/dev/null 2>&1; then
	echo "adapters/http/ui/web/build.sh: node and npm (Node >= 20) are needed; on Debian: apt-get install nodejs npm" >&2
	exit 1
fi
stamp=node_modules/.kg-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	# --ignore-scripts: no package's install hook runs on this machine
	# (esbuild finds its binary in its platform package without one).
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	echo "$want" >"$stamp"
fi
node build.mjs "$@"
