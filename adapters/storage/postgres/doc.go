// Package postgres is the storage backend of team mode: several kg servers
// share one PostgreSQL database (docs/design/team.md). Graphs, their items
// (kg's item JSON in jsonb bodies, so unknown fields survive), a change log
// of every committed batch, and the sessions are rows; the schema is
// migrated at Open under an advisory lock.
//
// The Store implements ports.SharedGraphRepository: a server writes a graph
// under the graph's row lock (SELECT … FOR UPDATE, lock_timeout), catching
// its copy up from the change log first, and each commit notifies the
// other servers (pg_notify) with a pointer to its batch; Watch listens on a
// connection of its own. It also implements the plain GraphRepository and
// ports.SharedSessionRepository, and passes the contract and crash suites
// of ports/porttest.
package postgres
