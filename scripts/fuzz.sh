#!/usr/bin/env bash
# Runs every fuzz target of the module (each func Fuzz… in a _test.go file),
# one after another, since `go test -fuzz` takes one target per run, each
# for FUZZTIME (default 30s), then prints the executions of each. A failing
# input is written by go test under <package>/testdata/fuzz/<target>/; commit
# it with the fix, as a regression seed. FUZZFLAGS go to go test
# (e.g. FUZZFLAGS=-parallel=1 on a shared machine).
#
# go test spends up to a minute shrinking each new interesting input, during
# which nothing else runs: with large seeds (a journal, a graph file) a
# 60-second run did 14 executions. FUZZMINIMIZETIME (default 5s) bounds it.
#
# Usage: scripts/fuzz.sh   (or make fuzz FUZZTIME=60s)
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
fuzztime=${FUZZTIME:-30s}
minimize=${FUZZMINIMIZETIME:-5s}

summary=()
out=$(mktemp)
trap 'rm -f "$out"' EXIT
while IFS= read -r file; do
	pkg=./$(dirname "$file")
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
		echo "== $target ($pkg), $fuzztime"
		corpus="$pkg/testdata/fuzz/$target"
		before=$(ls "$corpus" 2>/dev/null | sort || true)
		status=0
		# shellcheck disable=SC2086 # FUZZFLAGS is a list of flags
		"$go" test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" ${FUZZFLAGS:-} "$pkg" 2>&1 | tee "$out" || status=$?
		execs=$(grep -o 'execs: [0-9]*' "$out" | tail -n1 | cut -d' ' -f2 || true)
		note=""
		if [ "$status" -ne 0 ]; then
			after=$(ls "$corpus" 2>/dev/null | sort || true)
			# Go 1.26's fuzz coordinator can report its own -fuzztime deadline
			# as a failure when a loaded machine leaves a worker mid-input
			# (go.dev/issue/75804, fixed in Go 1.27). That failure writes no
			# input; a real one always does, so only a new file fails the run.
			if [ "$before" = "$after" ] && grep -q '^    context deadline exceeded$' "$out"; then
				note="  (stopped by Go's fuzztime race, go.dev/issue/75804; no failing input)"
			else
				echo "fuzz: $target found a failing input; see $corpus/" >&2
				exit 1
			fi
		fi
		summary+=("$(printf '%-22s %-36s %12s execs%s' "$target" "$pkg" "${execs:-?}" "$note")")
	done
done < <(git grep -l '^func Fuzz' -- '*_test.go')

echo
echo "fuzz: every target ran $fuzztime"
printf '%s\n' "${summary[@]}"
