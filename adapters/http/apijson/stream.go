package apijson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain/compaction"
)

// WriteImportResult answers an import with the JSON of ImportResultOf(r),
// the compaction's moves streamed one at a time. An import of 500,000
// nodes moves nearly as many: encoded whole, its answer was a 251 MB buffer
// beside a copy of every move in the API shape, the largest part of the
// import's peak (docs/performance.md#import-memory). The bytes are those
// json.Marshal gives the same value.
func WriteImportResult(w http.ResponseWriter, r app.ImportResult) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	// The client may have gone; there is nobody left to tell.
	_ = EncodeImportResult(bw, r)
	_ = bw.Flush()
}

// EncodeImportResult writes the JSON of ImportResultOf(r) and a newline, as
// json.Encoder does, streaming the moves.
func EncodeImportResult(w io.Writer, r app.ImportResult) error {
	out := ImportResultOf(app.ImportResult{Level: r.Level, Project: r.Project, Mode: r.Mode, ImportResult: r.ImportResult, Redacted: r.Redacted})
	head, err := json.Marshal(out)
	if err != nil {
		return err
	}
	if r.Compaction.Empty() {
		_, err = w.Write(append(head, '\n'))
		return err
	}
	// compaction is the last member: its null makes room for the moves.
	const last = `"compaction":null}`
	if !bytes.HasSuffix(head, []byte(last)) {
		panic("apijson: ImportResult no longer ends with its compaction")
	}
	if _, err := w.Write(head[:len(head)-len("null}")]); err != nil {
		return err
	}
	if err := encodeMoves(w, r.Compaction); err != nil {
		return err
	}
	_, err = io.WriteString(w, "}\n")
	return err
}

// encodeMoves writes the JSON of MovesOf(m) one move at a time.
func encodeMoves(w io.Writer, m compaction.Moves) error {
	empty := MovesOf(compaction.Moves{Archived: m.Archived, Restored: m.Restored, Orphaned: m.Orphaned, Pruned: m.Pruned,
		EstimateBefore: m.EstimateBefore, EstimateAfter: m.EstimateAfter, OverBudget: m.OverBudget, Unlisted: m.Unlisted})
	head, err := json.Marshal(empty) // {"archived":[…],…,"moves":[],"estimate_before":…}
	if err != nil {
		return err
	}
	i := bytes.Index(head, []byte(`"moves":[]`))
	if i < 0 {
		panic("apijson: Moves has no moves")
	}
	i += len(`"moves":[`)
	if _, err := w.Write(head[:i]); err != nil {
		return err
	}
	for k := range m.Steps {
		one := MovesOf(compaction.Moves{Steps: m.Steps[k : k+1]}).Moves[0]
		b, err := json.Marshal(one)
		if err != nil {
			return err
		}
		if k > 0 {
			b = append([]byte{','}, b...)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err = w.Write(head[i:])
	return err
}
