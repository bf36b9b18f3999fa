// Package team holds the multi-instance tests of team mode
// (docs/design/team.md#tests): two or three kg servers, each with its own
// pool, on one throwaway PostgreSQL database, driven through REST and the
// WebSocket; and the faults — a server killed mid-batch, the database
// restarted mid-batch, the listener's connection killed, a lock held past
// the lock timeout. Every test is bounded in time.
package team
