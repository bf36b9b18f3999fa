package porttest

import (
	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// testListSummaries: a listed graph's summary, where the backend keeps
// one, is the graph as committed — its counts per tier and token costs —
// after a whole commit, after incremental ones (deletes, re-creations,
// tombstones) and after a reopen; its last change is the newest change
// time any commit recorded (it never goes back, though the item that bore
// it may be gone, as a tombstone is when its node is made again). A
// backend with Summaries set keeps one for every listed graph.
func testListSummaries(h *harness) {
	k := domain.ProjectGraph("/home/dev/summary")
	g := restore(h.t, k, RichData(k.Project))
	h.commit(k, g, g.Everything())
	last := map[domain.GraphKey]domain.Micros{}
	h.checkSummaries(last)
	h.mutate(k, g, true)
	h.checkSummaries(last)
	h.reopen()
	h.checkSummaries(last)
}

// checkSummaries compares each listed graph's summary with the graph as
// loaded and the newest last change seen before, last, which it updates.
func (h *harness) checkSummaries(last map[domain.GraphKey]domain.Micros) {
	h.t.Helper()
	list, err := h.o.Graphs.List(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(list) == 0 {
		h.t.Fatal("List gives no graph")
	}
	for _, sg := range list {
		if sg.Summary == nil {
			if h.b.Summaries {
				h.t.Errorf("%s listed without a summary", sg.Key)
			}
			continue
		}
		data := h.load(sg.Key)
		last[sg.Key] = max(last[sg.Key], data.LastChange())
		want := ports.GraphSummary{Stats: restore(h.t, sg.Key, data).Stats(), LastChange: last[sg.Key]}
		if diff := cmp.Diff(want, *sg.Summary); diff != "" {
			h.t.Errorf("%s: listed summary differs from the graph (-graph +listed):\n%s", sg.Key, diff)
		}
	}
}
