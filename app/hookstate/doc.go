// Package hookstate holds what the hooks remember between calls, as plain
// data with its own locks or none: a session's seen set, flags and nudge
// counters (State, the live form of ports.HookState), and the tool-event
// counts per project (ToolEvents), and the check of a hook's string fields
// (CheckString). The session table, kg_useful and the hooks use them; they
// import nothing of app
// (docs/decisions/0099-app-leaf-packages.md).
package hookstate
