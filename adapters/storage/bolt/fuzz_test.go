package bolt

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
	"github.com/kg-memory/kg/ports/porttest"
)

// richRecords returns the stored record of every item of porttest's rich
// graph, and of a session with watermarks and unknown fields: the seeds of
// FuzzDecodeRecords beside its committed corpus.
func richRecords(f *testing.F) [][]byte {
	f.Helper()
	d := porttest.RichData("/home/dev/kg")
	var out [][]byte
	add := func(b []byte, err error) {
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	for i := range d.Nodes {
		add(encodeNode(&d.Nodes[i]))
	}
	for i := range d.Edges {
		add(encodeEdge(&d.Edges[i]))
	}
	for _, t := range d.NodeTombstones {
		add(encodeTomb(t, nil))
	}
	for k, t := range d.EdgeTombstones {
		add(encodeTomb(t, &k))
	}
	add(encodeSession(ports.Session{ID: "s", ProjectPath: "/p", Start: 1, LastActivity: 2, OpCount: 3,
		Synced: map[domain.GraphKey]uint64{domain.UserGraph: 4, domain.ProjectGraph("/p"): 5},
		Extra:  map[string]domain.RawJSON{"client": domain.RawJSON(`{"name":"x"}`)}}))
	return out
}

// FuzzDecodeRecords feeds any bytes to the decoder of every kind of bolt
// record (node, edge, tombstone, session), as a damaged or hand-edited
// kg.db could hold them. Whatever the bytes, no decoder panics, and what
// one accepts is a fixed point: encoding it and decoding the result gives
// the same item, and encoding that gives the same bytes, so a graph loaded
// from a record is saved back unchanged and loads again as it was.
func FuzzDecodeRecords(f *testing.F) {
	for _, b := range richRecords(f) {
		f.Add(b)
	}
	for _, s := range []string{`{}`, `null`, `{"tier":"active"}`, `{"tier":"bogus"}`, `{"tier":"orphaned","extra":{}}`,
		`{"tier":"active","extra":{"k":[1, {"x" : null}]},"notes":null,"touches":[]}`, `{"synced":[]}`, `{"synced":null}`,
		`{"synced":[{"level":"user","seq":1},{"level":"user","seq":2}]}`, `{"from":"a->b","to":":","rel":"#2"}`,
		`{"id":"\u00e9\ud800","gist":"\xff"}`, `{"version":{"v":18446744073709551615,"ts":-9223372036854775808}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := decodeNode(b); err == nil {
			roundTrip(t, "node", n, encodeNode, decodeNode)
		}
		if e, err := decodeEdge(b); err == nil {
			roundTrip(t, "edge", e, encodeEdge, decodeEdge)
		}
		if tomb, k, err := decodeTomb(b); err == nil {
			type kt struct {
				T domain.Tombstone
				K domain.EdgeKey
			}
			enc := func(v *kt) ([]byte, error) { return encodeTomb(v.T, &v.K) }
			dec := func(b []byte) (kt, error) {
				t, k, err := decodeTomb(b)
				return kt{t, k}, err
			}
			roundTrip(t, "tombstone", kt{tomb, k}, enc, dec)
		}
		if s, err := decodeSession("id", b); err == nil {
			enc := func(s *ports.Session) ([]byte, error) { return encodeSession(*s) }
			dec := func(b []byte) (ports.Session, error) { return decodeSession("id", b) }
			roundTrip(t, "session", s, enc, dec)
		}
	})
}

// roundTrip checks that v, decoded from a record, encodes without error to
// a record that decodes to v, and that re-encoding gives the same bytes.
func roundTrip[T any](t *testing.T, kind string, v T, enc func(*T) ([]byte, error), dec func([]byte) (T, error)) {
	t.Helper()
	b, err := enc(&v)
	if err != nil {
		t.Fatalf("%s %+v decoded but does not encode: %v", kind, v, err)
	}
	back, err := dec(b)
	if err != nil {
		t.Fatalf("%s record %q, written by kg, does not decode: %v", kind, b, err)
	}
	if diff := cmp.Diff(v, back); diff != "" {
		t.Fatalf("%s: decode → encode → decode changed it (-first +second):\n%s", kind, diff)
	}
	again, err := enc(&back)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("%s: encoding is not stable: %q then %q (%v)", kind, b, again, err)
	}
}

// FuzzEdgeBucketKey checks the key edges and edge tombstones are stored
// under: two edges get the same key if and only if they are the same edge,
// whatever bytes their ends hold (legacy files hold any), so that no edge
// can overwrite another.
func FuzzEdgeBucketKey(f *testing.F) {
	f.Add("a", "b", "r", "a", "b", "r")
	f.Add("a", "bc", "r", "ab", "c", "r")
	f.Add("a", "b", "cr", "a", "bc", "r")
	f.Add("", "", "", "", "", "")
	f.Add("\x01a", "", "r", "", "a", "r")
	f.Add("src/a.go", "https://x/y", "touches", "src/a.go", "https://x/y", "touches")
	f.Fuzz(func(t *testing.T, f1, t1, r1, f2, t2, r2 string) {
		a, b := domain.EdgeKey{From: f1, To: t1, Rel: r1}, domain.EdgeKey{From: f2, To: t2, Rel: r2}
		if same := bytes.Equal(edgeKey(a), edgeKey(b)); same != (a == b) {
			t.Fatalf("edgeKey(%q) and edgeKey(%q) equal: %v", a, b, same)
		}
	})
}
