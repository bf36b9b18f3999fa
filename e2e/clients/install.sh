#!/usr/bin/env bash
# Installs the real agent CLIs of the client harness (e2e/clients) into
# e2e/clients/node_modules (git-ignored), exactly as package-lock.json pins
# them, and Node 22 to run the two that are Node programs (e2e/node22).
# Skips the install when node_modules already matches the lock file.
#
# --ignore-scripts: no package's install hook runs here. Claude Code's
# postinstall would only link its native binary; the harness runs that
# binary from @anthropic-ai/claude-code-linux-x64 (or the package for this
# platform) directly. Codex's native binary is in @openai/codex-linux-x64,
# found by its own bin/codex.js.
set -euo pipefail
cd "$(dirname "$0")"
../node22/install.sh

stamp=node_modules/.kg-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
echo "$want" >"$stamp"
