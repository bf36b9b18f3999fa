// Package ws is the WebSocket of kg at /ws (docs/design/http.md#websocket):
// live events of the graphs a socket watches, as
// docs/design/sync.md#live-events lists them, one JSON object per text frame.
//
// A socket watches the user graph, plus one project named by ?session_id
// (its session's project) or ?project_path; both naming different projects
// is a 400, and any other bad query gets its REST error, before the
// upgrade. The first frame is {"type":"connected","session_id":S or null};
// a text "ping" is answered {"type":"pong"}. A socket never receives the
// events its own session caused.
//
// ?scope=all watches every graph instead, for a page that shows what
// changed anywhere.
//
// Each socket is fed by its own subscription to the events hub, whose
// bounded queue (events.Backlog) is what makes a slow socket visible: the
// events of one write that do not fit come as one graph_replaced frame (the
// client re-reads the graph), and a subscriber whose queue is full is
// dropped, its socket closed with 1008 (policy violation); the client
// reconnects and re-reads. At shutdown every socket is closed with 1001.
// Every write has a timeout. The server pings every PingInterval and drops
// a socket whose pong does not come within PingTimeout. At most MaxClients
// sockets are open at once; one more is refused with 503 before the
// upgrade.
//
// Caveats: events are published after their write is durable (app, the
// write path), so a socket never hears of a change that a crash could
// take back; but a socket hears only of changes made after it subscribed.
// A client that must miss nothing opens the socket first, then reads the
// graph (GET /api/graph/read), then applies the events whose seq is above
// that graph's durable_seq; an event carries the item's whole content, so
// applying one the read already showed is harmless.
package ws
