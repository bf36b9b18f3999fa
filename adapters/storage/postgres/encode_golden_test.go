package postgres

import (
	"encoding/json"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
)

// The records are the jsonb bodies of every team database's rows: a node
// (with a use count, file stamps, a principal and unknown fields), an edge
// and a tombstone encode exactly as they did before the records moved to
// adapters/storage/record (docs/decisions/0085-one-record-encoding.md).
func TestRecordsEncodeAsBefore(t *testing.T) {
	v := domain.Version{V: 3, TS: 1_700_000_000_000_123, Session: "0b912bef252c4300", Seq: 42, Principal: "alice"}
	n := &domain.Node{ID: "auth-refresh", Gist: "refresh tokens <rotate> & \"expire\"", Notes: []string{"é", ""}, Touches: nil,
		Tier: domain.Orphaned, Created: 5, LastRead: 6, OrphanedAt: 7, TierSeq: 8, Use: domain.StoredUse(4, 19_700, true),
		Files: []domain.FileStamp{{Path: "src/auth.py", Hash: "9f1c0b3e1d2a4c5b6a7980a1b2c3d4e5f6a7b8c9"}}, Version: v,
		Extra: map[string]domain.RawJSON{"zeta": domain.RawJSON(`{ "b" : 1 }`), "alpha": domain.RawJSON(`"x\u00e9"`)}}
	e := &domain.Edge{From: "auth-refresh", To: "retry", Rel: "uses", Notes: []string{}, Version: v,
		Extra: map[string]domain.RawJSON{}}
	tomb := domain.Tombstone{V: 4, TS: 1_700_000_000_000_200, Session: "0b912bef252c4300", Seq: 43, Pruned: true}
	node, err := record.NodeOf(n)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		rec  any
		want string
	}{
		{"node", node, `{"id":"auth-refresh","gist":"refresh tokens \u003crotate\u003e \u0026 \"expire\"","notes":["é",""],"touches":null,"tier":"orphaned","created":5,"last_read":6,"orphaned_at":7,"tier_seq":8,"use":4,"use_day":19700,"files":{"src/auth.py":"9f1c0b3e1d2a4c5b6a7980a1b2c3d4e5f6a7b8c9"},"version":{"v":3,"ts":1700000000000123,"session":"0b912bef252c4300","seq":42,"principal":"alice"},"extra":{"alpha":"x\u00e9","zeta":{"b":1}}}`},
		{"edge", record.EdgeOf(e), `{"from":"auth-refresh","to":"retry","rel":"uses","notes":[],"version":{"v":3,"ts":1700000000000123,"session":"0b912bef252c4300","seq":42,"principal":"alice"}}`},
		{"tombstone", record.TombstoneOf(tomb), `{"v":4,"ts":1700000000000200,"session":"0b912bef252c4300","seq":43,"pruned":true}`},
	} {
		b, err := json.Marshal(c.rec)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(b) != c.want {
			t.Errorf("%s encodes as\n%s\nwant\n%s", c.name, b, c.want)
		}
	}
}
