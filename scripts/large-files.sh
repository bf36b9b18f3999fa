#!/usr/bin/env bash
# Fails when git tracks a file over 1 MiB that is not allowed to be one: a
# built binary, a data set or a dump committed by mistake stays in the
# history for ever (make lint). The size is that of the staged blob, so a
# file added but not yet committed is caught too.
#
# Allowed: the web page's built bundle (adapters/http/ui/dist/, committed so
# that the binary embeds it without npm; make ui-check keeps it fresh) and
# the screenshot docs/ui.png. Add a path here only with a reason.
#
# Usage: scripts/large-files.sh [limit-in-bytes]   (run from anywhere in the repository)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
limit=${1:-1048576}

allowed() {
	case "$1" in
	adapters/http/ui/dist/*) return 0 ;;
	docs/ui.png) return 0 ;;
	esac
	return 1
}

status=0
while read -r size path; do
	if [ "$size" -gt "$limit" ] && ! allowed "$path"; then
		echo "$path: $size bytes, over the limit of $limit for a tracked file; remove it (git rm --cached), ignore it in .gitignore, or allow it in scripts/large-files.sh with a reason" >&2
		status=1
	fi
done < <(git ls-files --format='%(objectname) %(path)' | git cat-file --batch-check='%(objectsize) %(rest)')
exit $status
