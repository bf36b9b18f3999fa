package record

import (
	"encoding/json"
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/stale"
)

// The records below are the stored form of one item each: bolt's values and
// postgres's jsonb bodies. They belong to the storage adapters, not to the
// domain, so that a change of a domain type never changes a stored format by
// accident. Times are integer Unix microseconds. Notes and touches have no
// omitempty: null and [] both round-trip, so a loaded item is equal to the
// committed one. Unknown fields are kept under "extra"; bolt writes them
// byte for byte, postgres as jsonb values.

// Version is an item's version entry.
type Version struct {
	V         uint64 `json:"v"`
	TS        int64  `json:"ts"`
	Session   string `json:"session,omitempty"`
	Seq       uint64 `json:"seq,omitempty"`
	Principal string `json:"principal,omitempty"`
}

// Node is a node's record.
type Node struct {
	ID         string   `json:"id"`
	Gist       string   `json:"gist"`
	Notes      []string `json:"notes"`
	Touches    []string `json:"touches"`
	Tier       string   `json:"tier"`
	Created    int64    `json:"created,omitempty"`
	LastRead   int64    `json:"last_read,omitempty"`
	OrphanedAt int64    `json:"orphaned_at,omitempty"`
	TierSeq    uint64   `json:"tier_seq,omitempty"`
	// Use and UseDay are the use count (docs/design/compaction.md#the-use-count);
	// absent in records written before it, which then read as a node
	// without one.
	Use    *uint64 `json:"use,omitempty"`
	UseDay *uint64 `json:"use_day,omitempty"`
	// Files are the node's file stamps, path to hash
	// (docs/design/trust.md#staleness); absent in records written before
	// them, and one that does not read as such is no stamps.
	Files   json.RawMessage            `json:"files,omitempty"`
	Version Version                    `json:"version"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"`
}

// Edge is an edge's record.
type Edge struct {
	From    string                     `json:"from"`
	To      string                     `json:"to"`
	Rel     string                     `json:"rel"`
	Notes   []string                   `json:"notes"`
	Version Version                    `json:"version"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"`
}

// Tombstone is a node or edge tombstone. From, To and Rel are set by bolt
// for edges only, because its edge keys are not meant to be parsed back;
// postgres keeps the ends in columns and leaves them empty.
type Tombstone struct {
	V       uint64 `json:"v"`
	TS      int64  `json:"ts"`
	Session string `json:"session,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	Pruned  bool   `json:"pruned,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Rel     string `json:"rel,omitempty"`
}

var tierNames = [...]string{domain.Active: "active", domain.Archived: "archived", domain.Orphaned: "orphaned"}

func tierName(t domain.Tier) (string, error) {
	if int(t) < len(tierNames) {
		return tierNames[t], nil
	}
	return "", fmt.Errorf("unknown tier %d", t)
}

func tierOf(s string) (domain.Tier, error) {
	for t, name := range tierNames {
		if name == s {
			return domain.Tier(t), nil
		}
	}
	return 0, fmt.Errorf("unknown tier %q", s)
}

// VersionOf is v's record.
func VersionOf(v domain.Version) Version {
	return Version{V: v.V, TS: int64(v.TS), Session: v.Session, Seq: v.Seq, Principal: v.Principal}
}

// Domain is the version r records.
func (r Version) Domain() domain.Version {
	return domain.Version{V: r.V, TS: domain.Micros(r.TS), Session: r.Session, Seq: r.Seq, Principal: r.Principal}
}

// NodeOf is n's record, its unknown fields under Extra. It fails only on a
// tier it cannot name.
func NodeOf(n *domain.Node) (Node, error) {
	tier, err := tierName(n.Tier)
	if err != nil {
		return Node{}, fmt.Errorf("node %q: %w", n.ID, err)
	}
	r := Node{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches, Tier: tier,
		Created: int64(n.Created), LastRead: int64(n.LastRead), OrphanedAt: int64(n.OrphanedAt),
		TierSeq: n.TierSeq, Version: VersionOf(n.Version), Extra: RawMessages(n.Extra)}
	if n.Use.Known {
		day := uint64(max(n.Use.Day, 0))
		r.Use, r.UseDay = &n.Use.Count, &day
	}
	if m := stale.FileStampMap(n.Files); m != nil {
		r.Files, _ = json.Marshal(m) // a map of strings always marshals
	}
	return r, nil
}

// Domain is the node r records.
func (r Node) Domain() (domain.Node, error) {
	tier, err := tierOf(r.Tier)
	if err != nil {
		return domain.Node{}, err
	}
	var use domain.Use
	if r.Use != nil && r.UseDay != nil {
		use = domain.StoredUse(*r.Use, *r.UseDay, true)
	}
	return domain.Node{ID: r.ID, Gist: r.Gist, Notes: r.Notes, Touches: r.Touches, Tier: tier,
		Created: domain.Micros(r.Created), LastRead: domain.Micros(r.LastRead), OrphanedAt: domain.Micros(r.OrphanedAt),
		TierSeq: r.TierSeq, Use: use, Files: stale.ParseFileStamps(r.Files), Version: r.Version.Domain(), Extra: RawJSONs(r.Extra)}, nil
}

// EdgeOf is e's record, its unknown fields under Extra.
func EdgeOf(e *domain.Edge) Edge {
	return Edge{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes, Version: VersionOf(e.Version), Extra: RawMessages(e.Extra)}
}

// Domain is the edge r records.
func (r Edge) Domain() domain.Edge {
	return domain.Edge{From: r.From, To: r.To, Rel: r.Rel, Notes: r.Notes, Version: r.Version.Domain(), Extra: RawJSONs(r.Extra)}
}

// TombstoneOf is t's record, without an edge's ends.
func TombstoneOf(t domain.Tombstone) Tombstone {
	return Tombstone{V: t.V, TS: int64(t.TS), Session: t.Session, Seq: t.Seq, Pruned: t.Pruned}
}

// Domain is the tombstone r records.
func (r Tombstone) Domain() domain.Tombstone {
	return domain.Tombstone{V: r.V, TS: domain.Micros(r.TS), Session: r.Session, Seq: r.Seq, Pruned: r.Pruned}
}

// RawMessages is m as encoding/json's raw values; nil stays nil.
func RawMessages(m map[string]domain.RawJSON) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = json.RawMessage(v)
	}
	return out
}

// RawJSONs is m as the domain's raw values; nil stays nil, and an empty
// map stays empty.
func RawJSONs(m map[string]json.RawMessage) map[string]domain.RawJSON {
	if m == nil {
		return nil
	}
	out := make(map[string]domain.RawJSON, len(m))
	for k, v := range m {
		out[k] = domain.RawJSON(v)
	}
	return out
}
