#!/usr/bin/env bash
# Runs the MCP conformance suite against running kg servers and holds the
# result to docs/conformance.md (conformance.mjs does the work, on the Node 22
# that node22/install.sh installs; the suite needs Node >= 22).
#
# Usage: e2e/conformance.sh [label=]URL...
#   e.g. e2e/conformance.sh http://127.0.0.1:8765/
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "$#" -eq 0 ]; then
	echo "usage: e2e/conformance.sh [label=]URL... (e.g. http://127.0.0.1:8765/)" >&2
	exit 2
fi

"$here/node22/install.sh"

results=$(mktemp -d "${TMPDIR:-/tmp}/kg-conformance.XXXXXX")
trap 'rm -rf "$results"' EXIT
trap 'exit 130' INT TERM

# node_modules/.bin first: `node` is Node 22 there.
PATH="$here/node22/node_modules/.bin:$PATH" node "$here/conformance.mjs" "$results" "$@"
