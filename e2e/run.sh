#!/usr/bin/env bash
# End-to-end: starts the kg binary once per storage backend (json, bolt), on
# a free port with a temporary root each, and runs the MCP tests of
# mcp.test.mjs (Streamable HTTP) and mcp-stdio.test.mjs (`kg mcp`) against
# both with Node's test runner. The servers are always stopped (trap), and
# each must exit 0 on SIGTERM. Then the unit tests of the web page's modules
# (adapters/http/ui/web/test) and its browser tests (browser/ui.test.mjs, and
# browser/team.test.mjs on a throwaway PostgreSQL),
# which start servers of their own.
#
# Usage: e2e/run.sh [path/to/kg]   (default: bin/kg, as `make build` makes it)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
kg=${1:-$repo/bin/kg}
case $kg in /*) ;; *) kg=$PWD/$kg ;; esac
if [ ! -x "$kg" ]; then
	echo "e2e/run.sh: no kg binary at $kg; run 'make build' first (or 'make e2e')" >&2
	exit 1
fi

"$here/install.sh"
"$here/node22/install.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/kg-e2e.XXXXXX")
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		fi
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start BACKEND: runs kg on a free port (--port 0) and sets $url once the
# server has logged the address it listens on.
start() {
	local backend=$1 log="$work/$1.log"
	env -u KG_AUTH_TOKEN -u KG_HTTP_HOST -u KG_HTTP_PORT \
		"$kg" serve --port 0 --storage "$backend" --storage-root "$work/root-$backend" \
		--log-format json >"$log" 2>&1 &
	pids+=("$!")
	local pid=$! addr=""
	# Wait for the "listening" line, or for the server to die. 30 s is far
	# more than a start takes; it only bounds a hang.
	for _ in $(seq 300); do
		addr=$(sed -n 's/.*"msg":"listening".*"addr":"\([^"]*\)".*/\1/p' "$log" | head -n1)
		[ -n "$addr" ] && break
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "e2e: kg ($backend) exited before listening:" >&2
			cat "$log" >&2
			exit 1
		fi
		sleep 0.1
	done
	if [ -z "$addr" ]; then
		echo "e2e: kg ($backend) did not start listening:" >&2
		cat "$log" >&2
		exit 1
	fi
	url="http://$addr/"
	echo "e2e: kg ($backend storage) on $url"
}

start json
servers="json=$url"
start bolt
servers="$servers,bolt=$url"

status=0
# mcp-stdio.test.mjs drives `kg mcp` against the same servers, found through their roots.
KG_E2E_SERVERS=$servers KG_E2E_KG=$kg KG_E2E_ROOTS="json=$work/root-json,bolt=$work/root-bolt" \
	node --test --test-reporter=spec "$here/mcp.test.mjs" "$here/mcp-stdio.test.mjs" "$here/inspector.test.mjs" || status=$?

# The MCP conformance suite, each scenario held to docs/conformance.md.
IFS=, read -ra targets <<<"$servers"
"$here/conformance.sh" "${targets[@]}" || status=$?

# Each server must shut down cleanly on SIGTERM: exit 0.
i=0
for backend in json bolt; do
	pid=${pids[$i]}
	kill -TERM "$pid"
	code=0
	wait "$pid" || code=$?
	if [ "$code" -ne 0 ]; then
		echo "e2e: kg ($backend) exited $code on SIGTERM:" >&2
		cat "$work/$backend.log" >&2
		status=1
	fi
	i=$((i + 1))
done
if [ "$status" -ne 0 ]; then
	for backend in json bolt; do
		echo "--- kg ($backend) log" >&2
		cat "$work/$backend.log" >&2
	done
fi

# The web page's own modules (the graph store, labels, errors, the latest
# changes, notices, merging, the change log), in Node; then the page in
# Debian's chromium (ui.test.mjs, trust.test.mjs, page.test.mjs, team.test.mjs): the tests start their
# own servers (they stop and restart one) from the same binary.
node --test --test-reporter=spec "$repo"/adapters/http/ui/web/test/*.test.mjs || status=$?
KG_BIN=$kg node --test --test-reporter=spec "$here/browser/ui.test.mjs" "$here/browser/trust.test.mjs" \
	"$here/browser/page.test.mjs" "$here/browser/team.test.mjs" || status=$?
exit "$status"
