package jsonfile

import (
	"encoding/json"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/domain"
)

// replayGraph applies the records of a journal to d, the data of the graph
// file: every record whose last seq is at or above the file's seq, in
// order. A record at the file's seq may already be in the file (a
// checkpoint stopped before it emptied the journal); applying it again
// changes nothing, since a record holds the whole content of each item it
// names and every later change is in a later record. It returns how many
// records it applied.
//
// A record that does not decode is damage: a *JournalDamage naming its
// line.
func replayGraph(d *domain.GraphData, records []journalRecord) (int, error) {
	r := codec.NewReplay()
	if err := addFrom(r, d.Seq, records); err != nil {
		return 0, err
	}
	if r.Records() == 0 {
		return 0, nil
	}
	r.ApplyTo(d)
	return r.Records(), nil
}

// addFrom adds to r the records whose last seq is at or above seq, in
// order.
func addFrom(r *codec.Replay, seq uint64, records []journalRecord) error {
	for i, rec := range records {
		var head struct {
			Seq [2]uint64 `json:"seq"`
		}
		err := json.Unmarshal(rec.payload, &head)
		if err == nil && head.Seq[1] < seq {
			continue
		}
		if err == nil {
			err = r.Add(rec.payload)
		}
		if err != nil {
			return &JournalDamage{Line: rec.line, Offset: rec.offset, Reason: "it does not decode: " + err.Error(),
				Last: i == len(records)-1}
		}
	}
	return nil
}

// journalOwner returns the project the records of a journal name: the
// latest record's "project_path", or its "meta" one (records of an older kg
// carry it only there, and only when the batch took a seq). It reports
// whether the journal holds any record at all. A damaged journal gives what
// its records before the damage say.
func journalOwner(b []byte) (owner string, records bool) {
	recs, _, _ := scanJournal(b)
	for i := len(recs) - 1; i >= 0; i-- {
		var head struct {
			ProjectPath string `json:"project_path"`
			Meta        *struct {
				ProjectPath string `json:"project_path"`
			} `json:"meta"`
		}
		if json.Unmarshal(recs[i].payload, &head) != nil {
			continue
		}
		if head.ProjectPath != "" {
			return head.ProjectPath, true
		}
		if head.Meta != nil && head.Meta.ProjectPath != "" {
			return head.Meta.ProjectPath, true
		}
	}
	return "", len(recs) > 0
}
