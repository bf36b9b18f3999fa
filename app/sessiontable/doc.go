// Package sessiontable is the table of live sessions that app's use cases,
// hooks and maintenance tick share (docs/design/sync.md#sessions): their
// watermarks and counters, saved by what changed at most once per tick
// (docs/design/storage.md#sessions-file); the hook state beside each, the
// binding to a Claude session and the dormant sessions it keeps
// (docs/design/hooks.md#session-binding); the nodes each counted for the use
// count; and, in team mode, the lookups, pulls and pushes of sessions other
// servers share (docs/design/team.md#sessions-across-servers).
//
// It imports domain, ports and app/hookstate, nothing of app
// (docs/decisions/0102-graph-store-package.md).
package sessiontable
