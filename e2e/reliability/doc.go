// Package reliability holds kg's standing reliability suites that drive the
// built binary as a child process, as a user would run it: the kill -9
// test under load from concurrent MCP clients (kill_test.go), file-system
// faults and damaged files of every kind on both backends (faults_test.go,
// damage_test.go), and the soak of a -race build (soak_test.go).
//
// The package has tests only; docs/reliability.md lists every suite, what it
// proves and how to run it at each length.
package reliability
