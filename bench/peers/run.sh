#!/usr/bin/env bash
# bench/peers: the workload of docs/design/benchmarks.md#workload through
# the official MCP TypeScript client against kg on json, kg on bolt and
# the peer @modelcontextprotocol/server-memory; see bench/peers/README.md.
#
# Usage: bench/peers/run.sh [peers.mjs options]   (or: make peers ARGS='...')
#
# From a clean clone it builds bin/kg and bin/kgbench, installs the npm
# packages from the lock file into bench/peers/node_modules, runs the
# harness, writes the results to bench/peers/results/ (git-ignored) and
# draws the chart of that run beside them. It takes long (about an hour at
# the default sizes on 2 cores); it is not part of `make test` or `make e2e`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
GO=${GO:-go}

"$here/install.sh"
# The harness's own logic first (percentiles, checks, targets, chart): a
# second, not an hour.
node --test --test-reporter=dot "$here/harness.test.mjs"
(cd "$repo" && "$GO" build -trimpath -o bin/kg ./cmd/kg && "$GO" build -trimpath -o bin/kgbench ./cmd/kgbench)

out=${KG_PEERS_OUT:-$here/results/peers-$(date -u +%Y%m%dT%H%M%SZ).json}
status=0
node "$here/peers.mjs" --kg "$repo/bin/kg" --kgbench "$repo/bin/kgbench" --out "$out" "$@" || status=$?
if [ -f "$out" ]; then
	node "$here/chart.mjs" "$out" "${out%.json}.svg"
	echo "chart: ${out%.json}.svg"
fi
exit "$status"
