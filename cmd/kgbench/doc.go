// Command kgbench is a load tool for kg: it drives a kg server through a real
// MCP Streamable HTTP client (mcp-go's) with the workload of
// docs/design/benchmarks.md#workload and reports, per operation kind, ops/s,
// p50 and p99 latency, and whether every write arrived.
//
// # Usage
//
//	kgbench [--url http://127.0.0.1:8765/] [--nodes 1000] [--clients 4] [--ops 200] [--seed 2024] [--cwd /abs/project]
//	kgbench --inproc json|bolt [--cpuprofile dir] [flags]
//	kgbench --print-workload [--nodes 1000] [--ops 200] [--seed 2024]
//	kgbench --recall locomo.json [--floor r5=61,r20=73,typo-r5=59] [--inproc json|bolt | --url URL]
//
// Without --inproc it drives the server at --url (start one with `kg
// serve`; a server with --auth-token is not supported). With --inproc json
// or --inproc bolt it starts a kg server in this process, on a temporary
// storage root removed at exit, with KG_GRACE_PERIOD_DAYS=0 and the default
// token budget, so compaction is active as in a mature memory; no separate
// process is needed.
//
// # What a run does
//
// Every one of --clients concurrent clients has its own MCP client and
// starts its own session with kg_read and --cwd (default: a fresh
// /tmp/kgbench-<time>, which need not exist), so the writes go to that
// project's graph and never to the user graph. The clients then share out,
// phase by phase:
//
//   - create: kg_put_node of nodes n000001…n<--nodes>, each with a 60-char
//     gist and two 40-char notes made of words drawn from a Zipf
//     distribution over 5,000 words (bench/workload) with --seed (the data
//     of the package benchmarks);
//   - edge: kg_put_edge n_i --relates-to--> n_{i+1};
//   - search: --ops kg_search calls of two drawn words each;
//   - full_read: --ops kg_read calls without id (the full read);
//   - floor: --ops kg_progress calls for a task never saved: a call that
//     writes nothing, what any call costs through the client.
//
// ops/s is the phase's operations over its wall time; p50 and p99 are
// nearest-rank percentiles of the per-call latency. Then a final check
// reads the project graph back whole through GET /api/export (every node,
// whatever its tier; unlike a kg_read by id it restores nothing) and
// compares every node's gist and notes and every chain edge with what was
// written. The exit status is 0 when every write arrived, 1 when the run
// failed or a write is missing, 2 for a bad command line.
//
// Example (the machine is shared: compare figures of one run only):
//
//	go run ./cmd/kgbench --inproc json --nodes 1000 --clients 16 --ops 200
//
// With --cpuprofile dir, each phase runs under a CPU profile of its own,
// written to dir/<phase>.pprof (create, edge, search, full_read, floor). With
// --inproc the profile holds the server's whole MCP path (HTTP, MCP, app,
// storage) beside the mcp-go client's share; keep the server's with
//
//	go tool pprof -top -focus 'net/http.\(\*conn\).serve' dir/create.pprof
//
// docs/performance.md keeps the summary of the profiles at 5,000 nodes.
//
// With --recall it runs the search-quality benchmark of
// docs/design/benchmarks.md#search-quality instead (make bench-search): it
// reads LoCoMo's JSON file, loads each conversation into the server (an
// in-process json one unless --inproc or --url says otherwise) as a
// project graph of its own through POST /api/import, one node per turn,
// asks each question of categories 1–4 through kg_search (limit 20), as
// written and with one seeded typo, and prints recall@1, 5, 10 and 20. With
// --floor it exits 1 when a figure is under its floor (r<k>=<percent> for
// clean questions, typo-r<k>=<percent> for those with a typo).
//
// With --print-workload it prints the workload as one JSON document
// ({"seed", "nodes": [{"id", "gist", "notes"}], "edges": [{"from", "to",
// "rel"}], "queries"}) and exits: bench/peers replays that document
// through the official TypeScript MCP client, so this package is the one
// definition of the workload for both harnesses.
//
// # Other servers
//
// The workload is a value (Workload, from NewWorkload) and the server sits
// behind the Driver and Conn interfaces (driver.go). kgDriver speaks kg's
// tools; a driver for the peer memory server
// (@modelcontextprotocol/server-memory: create_entities, create_relations,
// search_nodes, read_graph; see docs/design/benchmarks.md#workload) implements
// the same two interfaces and replays the same Workload, so the figures of both
// servers describe the same data.
//
// # Go benchmarks
//
// The *_test.go files hold the benchmarks `make bench` runs:
//
//   - BenchmarkGroupCommit: PutNode through app.Service on the json and
//     bolt backends (real files in b.TempDir()), on a user graph of 1k
//     nodes, with 1 and 16 concurrent writers; reports ops/s, p50-ms,
//     p99-ms and commits/op (commits reaching the backend per write,
//     counted by a wrapper around the GraphRepository).
//   - BenchmarkDurablePutNode: one durable PutNode through app.Service
//     (no HTTP) on a user graph of 1k, 20k and 100k nodes, json and bolt,
//     with p50-ms and p99-ms, next to fsync-1KiB (append 1 KiB and fsync
//     in the same process and file system), the floor that
//     docs/design/benchmarks.md#targets compares it with. Each
//     store=…/nodes=… sub-benchmark also times the floor itself, one
//     untimed fsync after each write: floor-p50-ms, and x-floor, the
//     write's p50 over it.
//   - BenchmarkHTTP: through a real HTTP server and mcp-go's client: the
//     full read of a 1k-node project graph at the default budget (p50-ms,
//     p99-ms), and kg_put_node with 1 and 16 concurrent clients, on json
//     and on bolt.
//
// Run them alone with
//
//	go test -run '^$' -bench . -benchmem -count 3 ./cmd/kgbench/
//
// They are benchmarks only: nothing fails on a duration or a ratio.
package main
