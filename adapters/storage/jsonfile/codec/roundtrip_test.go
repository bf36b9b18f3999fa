package codec

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/kg-memory/kg/domain"
)

// Strings are drawn from pieces that exercise escaping (quotes, backslashes,
// control characters, HTML characters, non-ASCII, U+2028) and the edge-key
// syntax ("->", ":", "#").
var rtPieces = []string{"a", "b", "node", "-", "->", ":", "#2", "#", " ", `"`, `\`, "\n", "\t", "\r", "\x01", "\x1f",
	"<", ">", "&", "é", "日本", "\u2028", "\u2029", "😀", "\x7f", "/", "_"}

func rtString(t *rapid.T, label string, minPieces int) string {
	var b bytes.Buffer
	for range rapid.IntRange(minPieces, 4).Draw(t, label+"-n") {
		b.WriteString(rapid.SampledFrom(rtPieces).Draw(t, label))
	}
	return b.String()
}

func rtStrings(t *rapid.T, label string) []string {
	switch rapid.IntRange(0, 2).Draw(t, label+"-kind") {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	out := make([]string, rapid.IntRange(1, 3).Draw(t, label+"-len"))
	for i := range out {
		out[i] = rtString(t, label, 0)
	}
	return out
}

// Compact JSON values, as decoding stores unknown fields.
var rtRaw = []string{`null`, `1`, `-2.5e3`, `true`, `"s\u003c\n"`, `[]`, `{}`, `[1,{"a":null,"b":["x"]}]`, `{"z":1,"a":{"k":"v"}}`, `"é"`}

func rtExtra(t *rapid.T, label string, names []string) map[string]domain.RawJSON {
	n := rapid.IntRange(0, 3).Draw(t, label+"-n")
	if n == 0 {
		return nil
	}
	m := map[string]domain.RawJSON{}
	for range n {
		m[rapid.SampledFrom(names).Draw(t, label+"-name")] = domain.RawJSON(rapid.SampledFrom(rtRaw).Draw(t, label+"-value"))
	}
	return m
}

func rtMicros(t *rapid.T, label string) domain.Micros {
	if rapid.Bool().Draw(t, label+"-zero") {
		return 0
	}
	return domain.Micros(rapid.Int64Range(-1e15, 1e17).Draw(t, label))
}

func rtVersion(t *rapid.T, label string) domain.Version {
	return domain.Version{V: rapid.Uint64().Draw(t, label+"-v"), TS: rtMicros(t, label+"-ts"),
		Session: rapid.SampledFrom([]string{"", "s1", "s\"2"}).Draw(t, label+"-session"), Seq: rapid.Uint64().Draw(t, label+"-seq")}
}

func rtTomb(t *rapid.T, label string) domain.Tombstone {
	v := rtVersion(t, label)
	return domain.Tombstone{V: v.V, TS: v.TS, Session: v.Session, Seq: v.Seq, Pruned: rapid.Bool().Draw(t, label+"-pruned")}
}

// Unknown field names; those of known fields are left out, since a decoded
// graph never has them (they would be read back as the known field).
var (
	rtNodeExtra = []string{"_useful_ts", "a", "zz", "_", "gista", "id2", "~"}
	rtEdgeExtra = []string{"a", "weight", "tos", "~", "_x"}
	rtMetaExtra = []string{"a", "compaction_stats", "zz", "projects", "seqs"}
)

// rtData draws a graph as kg stores it: unique non-empty node ids, unique
// edge identities with non-empty ends, valid UTF-8.
func rtData(t *rapid.T) domain.GraphData {
	d := domain.GraphData{Schema: domain.SchemaVersion, Seq: rapid.Uint64().Draw(t, "seq"),
		NodeTombstones: map[string]domain.Tombstone{}, EdgeTombstones: map[domain.EdgeKey]domain.Tombstone{},
		Progress: map[string]domain.RawJSON{}, Meta: rtExtra(t, "meta", rtMetaExtra)}
	if rapid.Bool().Draw(t, "project") {
		d.ProjectPath = "/home/" + rtString(t, "path", 1)
	}
	seen := map[string]bool{}
	for range rapid.IntRange(0, 8).Draw(t, "nodes") {
		id := rtString(t, "id", 1)
		if seen[id] {
			continue
		}
		seen[id] = true
		n := domain.Node{ID: id, Gist: rtString(t, "gist", 0), Notes: rtStrings(t, "notes"), Touches: rtStrings(t, "touches"),
			Tier: domain.Tier(rapid.IntRange(0, 2).Draw(t, "tier")), Created: rtMicros(t, "created"), LastRead: rtMicros(t, "read"),
			TierSeq: rapid.Uint64Range(0, 1<<40).Draw(t, "tierseq"), Version: rtVersion(t, "nv"), Extra: rtExtra(t, "nx", rtNodeExtra)}
		if n.Tier == domain.Orphaned {
			n.OrphanedAt = rtMicros(t, "orphaned")
		}
		d.Nodes = append(d.Nodes, n)
	}
	seenE := map[domain.EdgeKey]bool{}
	for range rapid.IntRange(0, 8).Draw(t, "edges") {
		e := domain.Edge{From: rtString(t, "from", 1), To: rtString(t, "to", 1), Rel: rapid.SampledFrom([]string{"uses", "r", "a-b", "x:y", "r#2"}).Draw(t, "rel"),
			Notes: rtStrings(t, "enotes"), Version: rtVersion(t, "ev"), Extra: rtExtra(t, "ex", rtEdgeExtra)}
		if seenE[e.Key()] {
			continue
		}
		seenE[e.Key()] = true
		d.Edges = append(d.Edges, e)
	}
	for range rapid.IntRange(0, 3).Draw(t, "ntombs") {
		d.NodeTombstones[rtString(t, "tid", 1)] = rtTomb(t, "nt")
	}
	for range rapid.IntRange(0, 3).Draw(t, "etombs") {
		k := domain.EdgeKey{From: rtString(t, "tfrom", 1), To: rtString(t, "tto", 1), Rel: rapid.SampledFrom([]string{"uses", "r", "r#2"}).Draw(t, "trel")}
		d.EdgeTombstones[k] = rtTomb(t, "et")
	}
	for range rapid.IntRange(0, 2).Draw(t, "progress") {
		d.Progress[rtString(t, "task", 1)] = domain.RawJSON(rapid.SampledFrom(rtRaw).Draw(t, "state"))
	}
	return d
}

// TestRoundTripByteIdentical checks that a file kg writes reads back to a
// graph that writes the very same bytes: nothing is lost, reordered or
// re-escaped by a load and a save.
func TestRoundTripByteIdentical(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rtData(t)
		b1 := EncodeGraph(d)
		d2, notes, err := DecodeGraph(b1)
		if err != nil || len(notes) > 0 {
			t.Fatalf("decode: %v %q\n%s", err, notes, b1)
		}
		if b2 := EncodeGraph(d2); !bytes.Equal(b1, b2) {
			t.Fatalf("re-encoded file differs:\n%s\n---\n%s", b1, b2)
		}
		// Commit writes from the graph, not its data: the same bytes.
		g, _ := domain.Restore(domain.UserGraph, d2, domain.RestoreOptions{})
		var w bytes.Buffer
		if err := WriteGraph(&w, SourceOfGraph(g)); err != nil {
			t.Fatal(err)
		}
		if b3 := EncodeGraph(g.Data()); !bytes.Equal(w.Bytes(), b3) {
			t.Fatalf("streamed file differs from the encoded data:\n%s\n---\n%s", w.Bytes(), b3)
		}
	})
}

// TestStringEscaping pins how strings are written: only what JSON requires
// is escaped, as in the files already on disk; a change here would rewrite
// stored strings at their next save.
func TestStringEscaping(t *testing.T) {
	e := &enc{}
	e.str("a\"b\\c/\n\t\r\x01\x08\x0c\x1f\x7f<>&\u2028\u2029é😀\xff")
	want := `"a\"b\\c/\n\t\r\u0001\u0008\u000c\u001f` + "\x7f<>&\u2028\u2029é😀" + `\ufffd"`
	if string(e.b) != want {
		t.Errorf("str = %s\nwant  %s", e.b, want)
	}
}
