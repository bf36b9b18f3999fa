// Package hookstate holds what the hooks remember between calls, as plain
// data with its own locks or none: a session's seen set, flags and nudge
// counters (State, the live form of ports.HookState), and the tool-event
// counts per project (ToolEvents). The session table and the hooks in
// package app use them; they import nothing of app
// (docs/decisions/0099-app-leaf-packages.md).
package hookstate
