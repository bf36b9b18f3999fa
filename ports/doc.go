// Package ports declares what the core of kg needs from the outside world —
// storage of graphs and sessions, a clock, an event sink — as interfaces the
// adapters implement. Each method documents what it returns when. The
// contract suites every adapter must pass live in porttest.
package ports
