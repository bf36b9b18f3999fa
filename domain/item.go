package domain

import (
	"strconv"

	"github.com/kg-memory/kg/domain/render"
)

// Tier is where a node stands in compaction.
type Tier uint8

// The tiers, from most to least visible.
const (
	// Active nodes are listed with their gist in the full read and count
	// toward the token budget.
	Active Tier = iota
	// Archived nodes are listed by id only; reading one by id makes it
	// active again.
	Archived
	// Orphaned nodes are invisible in the full read; search still finds
	// them, and reading one by id makes it active again.
	Orphaned
)

func (t Tier) String() string {
	switch t {
	case Active:
		return "active"
	case Archived:
		return "archived"
	case Orphaned:
		return "orphaned"
	}
	return "tier(" + strconv.Itoa(int(t)) + ")"
}

// RawJSON is a JSON value the domain keeps without interpreting it: unknown
// fields of stored items, unknown metadata, progress states.
type RawJSON []byte

// Version is the version entry of a node or an edge: the number of committed
// changes, and when, by whom and at which seq the last one was made.
type Version struct {
	V       uint64
	TS      Micros // time of the last change; the node's last write time
	Session string // the session that made it; empty for none (REST, system)
	Seq     uint64 // the change sequence number of the last change; 0 = none (schema 1)
	// Principal is who made it, in team mode (docs/design/team.md#who-wrote-what);
	// empty otherwise. Only the team backend stores it.
	Principal string
}

// Tombstone records a deleted node or edge: the version it had, and the
// change that deleted it. Re-creating the item continues from V.
type Tombstone struct {
	V       uint64
	TS      Micros
	Session string
	Seq     uint64
	Pruned  bool // deleted by pruning (compaction), not by a client
}

// Node is one distilled insight.
type Node struct {
	ID      string
	Gist    string
	Notes   []string
	Touches []string

	Tier       Tier
	Created    Micros // 0 = unknown (counts as old)
	LastRead   Micros // 0 = never read
	OrphanedAt Micros // meaningful only when Tier == Orphaned
	TierSeq    uint64 // seq of the last tier change by compaction or rescue; 0 = none
	Use        Use    // the use count (docs/design/compaction.md#the-use-count): no version, no seq

	// Files are the content hashes of the project files the node names,
	// recorded when it or the edge naming the file was written, sorted by
	// path (docs/design/trust.md#staleness): stored, but no version and no
	// seq of their own.
	Files []FileStamp
	// Stale are the recorded files the last check found changed or
	// vanished, sorted by path: derived from the files, never stored, found
	// again by the check after a restart.
	Stale []StaleFile

	Version Version

	// Extra holds fields of the stored node that kg does not know, kept
	// untouched, by name.
	Extra map[string]RawJSON
}

// LastWrite is the time of the node's last committed change.
func (n *Node) LastWrite() Micros { return n.Version.TS }

// Recency is the later of the last write and the last read.
func (n *Node) Recency() Micros { return max(n.Version.TS, n.LastRead) }

// clone returns a copy of n that can be changed without touching n. Slices
// and maps are shared: the graph never changes them in place either.
func (n *Node) clone() *Node {
	c := *n
	return &c
}

// EdgeKey is the identity of an edge.
type EdgeKey struct {
	From, To, Rel string
}

// Less orders edge keys by (from, rel, to), the order of every listing.
func (k EdgeKey) Less(o EdgeKey) bool {
	if k.From != o.From {
		return k.From < o.From
	}
	if k.Rel != o.Rel {
		return k.Rel < o.Rel
	}
	return k.To < o.To
}

// String renders the key as the full read shows it: "from --rel--> to".
func (k EdgeKey) String() string { return render.EdgeKey(k.From, k.Rel, k.To) }

// Edge is a typed relationship between two ends, each a node id or a
// reference.
type Edge struct {
	From, To, Rel string
	Notes         []string
	Version       Version
	Extra         map[string]RawJSON
}

// Key returns the identity of e.
func (e *Edge) Key() EdgeKey { return EdgeKey{e.From, e.To, e.Rel} }

func (e *Edge) clone() *Edge {
	c := *e
	return &c
}
