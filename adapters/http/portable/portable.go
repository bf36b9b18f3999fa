// Package portable is the export document of one graph: what GET /api/export
// writes and POST /api/import reads (docs/design/http.md#export-and-import),
// and what the kg export and kg import commands use. It is defined here once,
// so the REST API and the commands cannot drift apart.
//
// The document holds a graph's content, not its bookkeeping:
//
//	{"format": "kg-graph", "version": 1, "level": "project", "project_path": "/work/app",
//	 "exported_ts": 1740830400.5,
//	 "nodes": [{"id": "a", "gist": "…", "notes": ["…"], "touches": ["src/a.go"], "tier": "archived",
//	            "created_ts": 1740000000, "last_read_ts": 1740500000, "last_write_ts": 1740400000,
//	            "version": 3}],
//	 "edges": [{"from": "a", "to": "src/auth/refresh.py", "rel": "touches", "notes": [],
//	            "last_write_ts": 1740400000, "version": 1}],
//	 "progress": {"task-1": {"step": 2}}}
//
// Times are Unix seconds with a microsecond fraction; an unknown time is
// left out. Tiers and times are kept, so a graph moved to another machine
// ranks and compacts as it did. Seqs, sessions, tombstones and unknown
// stored fields are not exported: they are the sync bookkeeping of the
// graph the document came from, meaningless in another. The version of each
// item is informative: an import writes each changed item as a new version
// of the target graph.
package portable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/stale"
)

// Format and Version identify the document. A reader refuses another
// format, and a version newer than the one it knows.
const (
	Format  = "kg-graph"
	Version = 1
)

// document is the JSON of the whole document.
type document struct {
	Format      string                     `json:"format"`
	Version     int                        `json:"version"`
	Level       string                     `json:"level"`
	ProjectPath string                     `json:"project_path,omitempty"`
	ExportedTS  float64                    `json:"exported_ts"`
	Nodes       []node                     `json:"nodes"`
	Edges       []edge                     `json:"edges"`
	Progress    map[string]json.RawMessage `json:"progress"`
}

type node struct {
	ID          string   `json:"id"`
	Gist        string   `json:"gist"`
	Notes       []string `json:"notes"`
	Touches     []string `json:"touches"`
	Tier        string   `json:"tier,omitempty"` // absent: active
	CreatedTS   float64  `json:"created_ts,omitempty"`
	LastReadTS  float64  `json:"last_read_ts,omitempty"`
	LastWriteTS float64  `json:"last_write_ts,omitempty"`
	OrphanedTS  float64  `json:"orphaned_ts,omitempty"`
	Version     uint64   `json:"version,omitempty"`
	WrittenBy   string   `json:"written_by,omitempty"` // team mode: the principal of the last write (docs/design/team.md#who-wrote-what)
	// Use and UseDay are the use count (docs/design/compaction.md#the-use-count),
	// kept raw: a pair that is not two integer literals reads as no count,
	// never as an error, like a stored one.
	Use    json.RawMessage `json:"use,omitempty"`
	UseDay json.RawMessage `json:"use_day,omitempty"`
	// Files are the node's file stamps, path to hash
	// (docs/design/trust.md#staleness), kept raw like the use count: a
	// value that is not an object of strings reads as none.
	Files json.RawMessage `json:"files,omitempty"`
}

type edge struct {
	From        string   `json:"from"`
	To          string   `json:"to"`
	Rel         string   `json:"rel"`
	Notes       []string `json:"notes"`
	LastWriteTS float64  `json:"last_write_ts,omitempty"`
	Version     uint64   `json:"version,omitempty"`
	WrittenBy   string   `json:"written_by,omitempty"`
}

// Encode writes the document of graph key, taken at time at, holding d's
// nodes, edges and progress.
func Encode(w io.Writer, key domain.GraphKey, at domain.Micros, d domain.GraphData) error {
	doc := document{
		Format: Format, Version: Version, Level: string(key.Level), ProjectPath: key.Project,
		ExportedTS: seconds(at),
		Nodes:      make([]node, 0, len(d.Nodes)),
		Edges:      make([]edge, 0, len(d.Edges)),
		Progress:   make(map[string]json.RawMessage, len(d.Progress)),
	}
	for i := range d.Nodes {
		n := &d.Nodes[i]
		out := node{
			ID: n.ID, Gist: n.Gist, Notes: nonNil(n.Notes), Touches: nonNil(n.Touches), Tier: n.Tier.String(),
			CreatedTS: seconds(n.Created), LastReadTS: seconds(n.LastRead), LastWriteTS: seconds(n.Version.TS),
			Version: n.Version.V, WrittenBy: n.Version.Principal,
		}
		if n.Tier == domain.Orphaned {
			out.OrphanedTS = seconds(n.OrphanedAt)
		}
		if n.Use.Known {
			out.Use = strconv.AppendUint(nil, n.Use.Count, 10)
			out.UseDay = strconv.AppendInt(nil, int64(n.Use.Day), 10)
		}
		if m := stale.FileStampMap(n.Files); m != nil {
			out.Files, _ = json.Marshal(m) // a map of strings always marshals
		}
		doc.Nodes = append(doc.Nodes, out)
	}
	for i := range d.Edges {
		e := &d.Edges[i]
		doc.Edges = append(doc.Edges, edge{From: e.From, To: e.To, Rel: e.Rel, Notes: nonNil(e.Notes),
			LastWriteTS: seconds(e.Version.TS), Version: e.Version.V, WrittenBy: e.Version.Principal})
	}
	for task, state := range d.Progress {
		doc.Progress[task] = json.RawMessage(state)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write the export document: %w", err)
	}
	return nil
}

// Document is a decoded document: the graph it came from, and its content
// in the form importing.Import takes.
type Document struct {
	Level       domain.Level
	ProjectPath string // empty for the user graph
	Data        domain.GraphData
}

// Decode reads a document. It checks the document's shape — format, version,
// types, tiers, times — and names the item and field at fault in an
// invalid-argument error; the limits of
// docs/design/model.md#identifiers-and-limits are checked by the import itself
// (importing.Validate), with the same field names.
func Decode(r io.Reader) (Document, error) {
	raw, err := readRawDocument(r)
	if err != nil {
		return Document{}, err
	}
	doc, err := raw.header()
	if err != nil {
		return doc, err
	}
	if doc.Data.Nodes, err = decodeNodes(raw.Nodes); err != nil {
		return doc, err
	}
	if doc.Data.Edges, err = decodeEdges(raw.Edges); err != nil {
		return doc, err
	}
	doc.Data.Progress = make(map[string]domain.RawJSON, len(raw.Progress))
	for task, state := range raw.Progress {
		// Encode indents the states with the document; they are stored
		// compact. json.Compact cannot fail on what Decode just parsed.
		var c bytes.Buffer
		_ = json.Compact(&c, state)
		doc.Data.Progress[task] = domain.RawJSON(c.Bytes())
	}
	return doc, nil
}

// rawDocument is a document parsed as JSON, its items not yet decoded.
type rawDocument struct {
	Format      *string                    `json:"format"`
	Version     *int                       `json:"version"`
	Level       string                     `json:"level"`
	ProjectPath string                     `json:"project_path"`
	Nodes       []json.RawMessage          `json:"nodes"`
	Edges       []json.RawMessage          `json:"edges"`
	Progress    map[string]json.RawMessage `json:"progress"`
}

// readRawDocument reads r whole: valid UTF-8 holding one JSON object.
func readRawDocument(r io.Reader) (rawDocument, error) {
	var raw rawDocument
	b, err := io.ReadAll(r)
	if err != nil {
		return raw, domain.Invalidf("body", "could not be read: %v", err)
	}
	// The JSON decoder would quietly turn bad bytes into U+FFFD;
	// docs/design/model.md#identifiers-and-limits wants invalid UTF-8 refused.
	if !utf8.Valid(b) {
		return raw, domain.Invalidf("body", "must be valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil {
		return raw, apijson.DecodeError("", err)
	}
	// dec.More is false before a stray '}' or ']': look at the bytes.
	if len(bytes.TrimSpace(b[dec.InputOffset():])) > 0 {
		return raw, domain.Invalidf("body", "holds more than one JSON value, or text after its object")
	}
	return raw, nil
}

// header checks the format and version and reads the graph the document
// came from.
func (raw rawDocument) header() (Document, error) {
	var doc Document
	switch {
	case raw.Format == nil:
		return doc, domain.Invalidf("format", "missing; an export document says \"format\": %q", Format)
	case *raw.Format != Format:
		return doc, domain.Invalidf("format", "%q is not %q, the format of kg's export documents", *raw.Format, Format)
	case raw.Version == nil:
		return doc, domain.Invalidf("version", "missing; this kg reads version %d", Version)
	case *raw.Version < 1 || *raw.Version > Version:
		return doc, domain.Invalidf("version", "%d is not a version this kg reads (1 to %d); a newer kg wrote it", *raw.Version, Version)
	}
	if raw.Level != "" {
		l, err := domain.ParseLevel("level", raw.Level)
		if err != nil {
			return doc, err
		}
		doc.Level = l
	}
	doc.ProjectPath = raw.ProjectPath
	return doc, nil
}

func decodeNodes(raw []json.RawMessage) ([]domain.Node, error) {
	nodes := make([]domain.Node, 0, len(raw))
	for i, b := range raw {
		at := "nodes[" + strconv.Itoa(i) + "]"
		var n node
		if err := json.Unmarshal(b, &n); err != nil {
			return nodes, apijson.DecodeError(at, err)
		}
		dn, err := n.domain(at)
		if err != nil {
			return nodes, err
		}
		nodes = append(nodes, dn)
	}
	return nodes, nil
}

func decodeEdges(raw []json.RawMessage) ([]domain.Edge, error) {
	edges := make([]domain.Edge, 0, len(raw))
	for i, b := range raw {
		at := "edges[" + strconv.Itoa(i) + "]"
		var e edge
		if err := json.Unmarshal(b, &e); err != nil {
			return edges, apijson.DecodeError(at, err)
		}
		written, err := micros(at+".last_write_ts", e.LastWriteTS)
		if err != nil {
			return edges, err
		}
		edges = append(edges, domain.Edge{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes,
			Version: domain.Version{V: e.Version, TS: written}})
	}
	return edges, nil
}

// domain converts a decoded node, checking its tier and times.
func (n node) domain(at string) (domain.Node, error) {
	out := domain.Node{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches, Version: domain.Version{V: n.Version},
		Use: domain.ParseUseJSON(n.Use, n.UseDay), Files: stale.ParseFileStamps(n.Files)}
	switch n.Tier {
	case "", "active":
		out.Tier = domain.Active
	case "archived":
		out.Tier = domain.Archived
	case "orphaned":
		out.Tier = domain.Orphaned
	default:
		return out, domain.Invalidf(at+".tier", "%q is not one of active, archived, orphaned", n.Tier)
	}
	for _, t := range []struct {
		field string
		s     float64
		to    *domain.Micros
	}{
		{"created_ts", n.CreatedTS, &out.Created}, {"last_read_ts", n.LastReadTS, &out.LastRead},
		{"last_write_ts", n.LastWriteTS, &out.Version.TS}, {"orphaned_ts", n.OrphanedTS, &out.OrphanedAt},
	} {
		m, err := micros(at+"."+t.field, t.s)
		if err != nil {
			return out, err
		}
		*t.to = m
	}
	if out.OrphanedAt != 0 && out.Tier != domain.Orphaned {
		// Encode writes it for orphaned nodes only, and a node with an orphaned
		// time is orphaned (docs/design/model.md#tiers): the two fields
		// disagree.
		return out, domain.Invalidf(at+".orphaned_ts", "is given, but the tier is %s; only an orphaned node has one", out.Tier)
	}
	return out, nil
}

// maxSeconds bounds a time so that its microseconds fit an int64 with room
// to spare (the year 2286).
const maxSeconds = 1e10

// micros converts a time in seconds to microseconds, rounding to the
// nearest: the decimal a document holds is the one Encode wrote.
func micros(field string, s float64) (domain.Micros, error) {
	if s < 0 || s > maxSeconds || math.IsNaN(s) {
		return 0, domain.Invalidf(field, "%v is not a time in Unix seconds (0 to %.0f)", s, float64(maxSeconds))
	}
	return domain.Micros(math.Round(s * float64(domain.Second))), nil
}

func seconds(t domain.Micros) float64 { return float64(t) / float64(domain.Second) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
