#!/usr/bin/env bash
# UserPromptSubmit: GET /api/session_state for the project (the plugin logs
# whether memory was read), then POST the hook input to /api/prompt_context
# and print its answer as it is.
set -u
KG_URL="${KG_URL:-http://127.0.0.1:8765}"
input="$(cat)"
cwd="$(printf '%s' "$input" | python3 -c 'import json,sys,urllib.parse; print(urllib.parse.quote(json.load(sys.stdin).get("cwd",""), safe=""))')" || exit 0
state="$(curl -sf --max-time 1 "$KG_URL/api/session_state?project_path=$cwd")" || exit 0
printf '%s' "$state" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert set(d) >= {"found", "session_id", "full_read_done", "preloaded_count"}
' || exit 0
if [ -n "${KG_PLUGIN_LOG:-}" ]; then printf '%s\n' "$state" >> "$KG_PLUGIN_LOG"; fi
curl -sf --max-time 2 -X POST -H 'Content-Type: application/json' --data-binary "$input" "$KG_URL/api/prompt_context" || exit 0
