#!/usr/bin/env bash
# Installs what the browser tests need, each only when missing:
#  - Debian's chromium at /usr/bin/chromium (apt-get; root, or sudo);
#  - playwright-core into e2e/browser/node_modules, exactly as
#    package-lock.json pins it. playwright-core never downloads a browser
#    of its own; the tests drive /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -x /usr/bin/chromium ]; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "e2e/browser/install.sh: /usr/bin/chromium is missing; as root: apt-get update && apt-get install -y chromium" >&2
			exit 1
		fi
		sudo=sudo
	fi
	echo "e2e/browser/install.sh: installing Debian's chromium (apt-get)"
	$sudo apt-get update -qq
	# fonts-liberation: metric-compatible fonts, so that screenshots read
	# the same on every machine.
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
fi

stamp=node_modules/.kg-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi
# --ignore-scripts: no package's install hook runs on this machine.
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
echo "$want" >"$stamp"
