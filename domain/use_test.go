package domain

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// The golden values of docs/design/compaction.md#the-use-count.

func TestUseDecayTable(t *testing.T) {
	for k, want := range map[int]uint64{0: 65536, 1: 59358, 7: 32767, 14: 16382, 93: 1, 94: 0} {
		if useDecay[k] != want {
			t.Errorf("T[%d] = %d, want %d", k, useDecay[k], want)
		}
	}
	for _, c := range []struct {
		v    uint64
		k    int64
		want uint64
	}{
		{65536, -3, 65536}, {65536, 0, 65536}, {65536, 7, 32767}, {2 * 65536, 7, 65534},
		{UseMax, 1, UseMax * 59358 >> 16}, {UseMax, 93, UseMax >> 16}, {UseMax, 94, 0}, {UseMax, 1000, 0},
	} {
		if got := decayUse(c.v, c.k); got != c.want {
			t.Errorf("decay(%d, %d) = %d, want %d", c.v, c.k, got, c.want)
		}
	}
}

func TestUseDay(t *testing.T) {
	for _, c := range []struct {
		t    Micros
		want int32
	}{{0, 0}, {Day - 1, 0}, {Day, 1}, {19865*Day + Day/2, 19865}, {-1, -1}, {math.MaxInt64, MaxUseDay}} {
		if got := UseDay(c.t); got != c.want {
			t.Errorf("day(%d) = %d, want %d", c.t, got, c.want)
		}
	}
	if MaxUseDay != 106_751_991 {
		t.Errorf("MaxUseDay = %d", MaxUseDay)
	}
}

func TestUseGoldenValues(t *testing.T) {
	now := 19872*Day + 3*Second
	weekAgo := now - 7*Day
	t.Run("a use 7 days ago plus one now is 98,303", func(t *testing.T) {
		u := Use{Known: true}.Add(weekAgo).Add(now)
		if want := (Use{Count: 98_303, Day: UseDay(now), Known: true}); u != want {
			t.Errorf("got %+v, want %+v", u, want)
		}
	})
	t.Run("a node's creator gives it one session", func(t *testing.T) {
		if u := (Use{Known: true}).Add(now); u.Count != UseUnit || u.Day != UseDay(now) {
			t.Errorf("got %+v", u)
		}
	})
	t.Run("a count saturates at 2^48 - 1", func(t *testing.T) {
		u := Use{Count: UseMax - 10, Day: UseDay(now), Known: true}.Add(now)
		if u.Count != UseMax {
			t.Errorf("got %d, want %d", u.Count, UseMax)
		}
		if StoredUse(math.MaxUint64, 5, true).Count != UseMax {
			t.Error("a stored value above 2^48 - 1 does not read as 2^48 - 1")
		}
	})
	t.Run("a count made at an earlier time keeps the later day", func(t *testing.T) {
		u := Use{Count: 10 * UseUnit, Day: UseDay(now), Known: true}.Add(weekAgo)
		if want := (Use{Count: 11 * UseUnit, Day: UseDay(now), Known: true}); u != want {
			t.Errorf("got %+v, want %+v", u, want)
		}
	})
}

// TestUseCountNeverLowers: a count never lowers the value, on the day it is
// made and (below 2^32) on any later day, whatever the count and its day,
// and whatever day the count is made on.
func TestUseCountNeverLowers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		u := Use{
			Count: rapid.Uint64Range(0, UseMax).Draw(t, "count"),
			Day:   rapid.Int32Range(0, 400).Draw(t, "day"),
			Known: true,
		}
		at := Micros(rapid.Int64Range(0, int64(400*Day)).Draw(t, "at"))
		after := u.Add(at)
		d := UseDay(at)
		if after.At(d) < u.At(d) || after.At(d) == u.At(d) && u.At(d) != UseMax {
			t.Fatalf("on day %d: %d before the count, %d after", d, u.At(d), after.At(d))
		}
		if u.Count >= 1<<32 {
			return
		}
		for later := d; later < d+100; later++ {
			if after.At(later) < u.At(later) {
				t.Fatalf("on day %d: %d without the count of day %d, %d with it", later, u.At(later), d, after.At(later))
			}
		}
	})
}

func TestStoredUse(t *testing.T) {
	for _, c := range []struct {
		name       string
		count, day string
		want       Use
	}{
		{"both integers", "98303", "19865", Use{Count: 98_303, Day: 19865, Known: true}},
		{"zero", "0", "0", Use{Known: true}},
		{"count above 2^48 - 1", "18446744073709551615", "3", Use{Count: UseMax, Day: 3, Known: true}},
		{"count beyond 64 bits", "18446744073709551616", "3", Use{}},
		{"day past the last", "1", "106751992", Use{}},
		{"last day", "1", "106751991", Use{Count: 1, Day: MaxUseDay, Known: true}},
		{"negative count", "-1", "3", Use{}},
		{"fraction", "1.5", "3", Use{}},
		{"exponent", "1e3", "3", Use{}},
		{"leading zero", "01", "3", Use{}},
		{"string", `"1"`, "3", Use{}},
		{"missing count", "", "3", Use{}},
		{"missing day", "1", "", Use{}},
		{"null", "null", "3", Use{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var count, day []byte
			if c.count != "" {
				count = []byte(c.count)
			}
			if c.day != "" {
				day = []byte(c.day)
			}
			if got := ParseUseJSON(count, day); got != c.want {
				t.Errorf("ParseUseJSON(%s, %s) = %+v, want %+v", c.count, c.day, got, c.want)
			}
		})
	}
}

func TestDefaultUse(t *testing.T) {
	if got := DefaultUse(0); got != (Use{Known: true}) {
		t.Errorf("no recency: %+v", got)
	}
	if got := DefaultUse(3*Day + 1); got != (Use{Count: UseUnit, Day: 3, Known: true}) {
		t.Errorf("recency on day 3: %+v", got)
	}
}

// TestRestoreGivesTheDefaultUse: a node stored without a use count (or an
// unreadable one) is given one session on the day of its recency, or none
// without one, and is pending so that the default is saved; a node stored
// with one keeps it, and a graph with only those has nothing to save.
func TestRestoreGivesTheDefaultUse(t *testing.T) {
	kept := Use{Count: 7, Day: 2, Known: true}
	d := GraphData{Schema: SchemaVersion, Seq: 3, Nodes: []Node{
		{ID: "read", LastRead: 10 * Day, Version: Version{V: 1, TS: 4 * Day, Seq: 1}},
		{ID: "never", Version: Version{V: 1, Seq: 2}},
		{ID: "counted", Use: kept, Version: Version{V: 1, TS: 9 * Day, Seq: 3}},
	}}
	g, _ := Restore(UserGraph, d, RestoreOptions{})
	want := map[string]Use{"read": {Count: UseUnit, Day: 10, Known: true}, "never": {Known: true}, "counted": kept}
	for id, w := range want {
		if n, _ := g.Node(id); n.Use != w {
			t.Errorf("%s: use %+v, want %+v", id, n.Use, w)
		}
	}
	if diff := cmp.Diff(map[string]struct{}{"read": {}, "never": {}}, g.Pending().Nodes); diff != "" {
		t.Errorf("pending nodes (-want +got):\n%s", diff)
	}
	d.Nodes = d.Nodes[2:]
	d.Seq = 3
	if g, _ := Restore(UserGraph, d, RestoreOptions{}); !g.Pending().Empty() {
		t.Errorf("a graph whose nodes all have a use count has pending %+v", g.Pending())
	}
}

// TestCountUse: a count changes the node's use and nothing else — no
// version, no seq — is pending like a read stamp, and is undone by a
// rollback.
func TestCountUse(t *testing.T) {
	g := NewGraph(UserGraph)
	corePutAt(t, g, coreAt(Day, "A"), "n", "gist", nil, nil)
	g.Checkpoint()
	before, _ := g.Node("n")
	seq := g.Seq()
	u, ok := g.CountUse("n", 8*Day)
	if !ok || u != (Use{Count: UseUnit, Day: 8, Known: true}) {
		t.Fatalf("CountUse = %+v, %v", u, ok)
	}
	after, _ := g.Node("n")
	want := *before
	want.Use = u
	if diff := cmp.Diff(want, *after); diff != "" {
		t.Errorf("node (-want +got):\n%s", diff)
	}
	if g.Seq() != seq {
		t.Errorf("seq %d → %d", seq, g.Seq())
	}
	if _, pending := g.Pending().Nodes["n"]; !pending {
		t.Error("the count is not pending")
	}
	g.Rollback()
	if n, _ := g.Node("n"); n.Use != before.Use {
		t.Errorf("after rollback: %+v", n.Use)
	}
	if _, ok := g.CountUse("missing", 8*Day); ok {
		t.Error("counted a missing node")
	}
}
