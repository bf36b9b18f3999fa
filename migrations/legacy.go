package migrations

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// LegacySource names the files of the oldest layout, which lived beside the
// data of Claude Code rather than in a storage root:
//
//	<Home>/.claude/knowledge/user.json       the user graph
//	<Home>/.claude/knowledge/sessions.json   the sessions
//	<project>/.claude/knowledge/graph.json   one project graph per project
type LegacySource struct {
	// Home is the user's home folder.
	Home string
	// Projects are project folders to import, in addition to every project
	// named by a legacy session. A project without a graph.json is skipped.
	Projects []string
	// Paths makes project paths canonical
	// (docs/design/model.md#levels-and-graphs); nil keeps them cleaned but
	// unresolved.
	Paths ports.PathResolver
}

// ImportLegacy copies the legacy graphs and sessions into dst through its
// ports. It only reads the source, never deletes or changes it, and merges
// instead of overwriting:
//
//   - a node (or edge) dst does not have is added;
//   - a node dst has is replaced only when the legacy version is higher, so
//     an edit made in kg after an earlier import is kept (equal versions:
//     dst wins);
//   - a node dst has deleted comes back only when the legacy version is
//     higher than its tombstone's, so a deletion made in kg is kept;
//   - a session dst has is kept as it is; others are added;
//   - a progress task (_meta.progress) or another _meta key dst has is kept;
//     others are added, so nothing the legacy file held is dropped.
//
// Every item taken from the source gets a fresh seq in dst, so sync reports
// it. Running the import twice changes nothing the second time.
func ImportLegacy(ctx context.Context, src LegacySource, dst Backend, opt Options) (Result, error) {
	log := opt.log()
	var res Result
	sessions, err := readLegacySessions(filepath.Join(legacyKnowledge(src.Home), "sessions.json"), src.canonical)
	if err != nil {
		return res, err
	}
	existing, err := dst.LoadSessions(ctx)
	if err != nil {
		return res, err
	}
	jobs, err := src.jobs(sessions)
	if err != nil {
		return res, err
	}
	total := len(jobs) + 1 // and the sessions
	for i, j := range jobs {
		opt.progress(i, total)
		if err := importGraph(ctx, dst, j, minSeq(existing, j.key), &res, log); err != nil {
			return res, err
		}
	}
	opt.progress(len(jobs), total)
	defer opt.progress(total, total)
	added := map[string]ports.Session{}
	for id, s := range sessions {
		if _, ok := existing[id]; !ok {
			added[id] = s
		}
	}
	if len(added) == 0 {
		res.unchanged("sessions")
		return res, nil
	}
	if err := saveSessions(ctx, dst, added); err != nil {
		return res, err
	}
	res.changed("sessions")
	return res, nil
}

// legacyKnowledge is the folder of the legacy files under dir.
func legacyKnowledge(dir string) string { return filepath.Join(dir, ".claude", "knowledge") }

// legacyJob is one legacy graph file to import, and the graph it goes to.
type legacyJob struct {
	key  domain.GraphKey
	file string
}

// jobs lists the legacy graph files: the user graph's, then one for each
// project listed or named by a session, each project once.
func (src LegacySource) jobs(sessions map[string]ports.Session) ([]legacyJob, error) {
	jobs := []legacyJob{{domain.UserGraph, filepath.Join(legacyKnowledge(src.Home), "user.json")}}
	seen := map[string]bool{}
	projects := slices.Clone(src.Projects)
	for _, s := range slices.Sorted(maps.Keys(sessions)) {
		if p := sessions[s].ProjectPath; p != "" {
			projects = append(projects, p)
		}
	}
	for _, p := range projects {
		key, err := src.canonical(p)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		jobs = append(jobs, legacyJob{domain.ProjectGraph(key), filepath.Join(legacyKnowledge(p), "graph.json")})
	}
	return jobs, nil
}

// importGraph merges the legacy file of j into its graph in dst; a missing
// file changes nothing. minSeq is the lowest seq the graph may restore to.
func importGraph(ctx context.Context, dst Backend, j legacyJob, minSeq uint64, res *Result, log *slog.Logger) error {
	lg, err := readLegacyGraph(j.file)
	if errors.Is(err, fs.ErrNotExist) {
		res.unchanged(j.key.String())
		return nil
	}
	if err != nil {
		return err
	}
	res.note(log, j.key.String(), lg.notes...)
	cur, err := dst.Load(ctx, j.key)
	if err != nil {
		return err
	}
	merged, cs := merge(cur, lg.data)
	if cs.Size() == 0 {
		res.unchanged(j.key.String())
		return nil
	}
	g, notes := domain.Restore(j.key, merged, domain.RestoreOptions{MinSeq: minSeq})
	res.note(log, j.key.String(), notes...)
	cs.Meta = true
	if err := commit(ctx, dst, j.key, g, cs, "imported from "+j.file, nil); err != nil {
		return err
	}
	log.Info("migrations: legacy graph imported", "graph", j.key.String(), "file", j.file, "items", cs.Size()-1)
	res.changed(j.key.String())
	return nil
}

func (src LegacySource) canonical(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", domain.Invalidf("project", "%q: must be an absolute path", p)
	}
	if src.Paths == nil {
		return filepath.Clean(p), nil
	}
	return src.Paths.Canonical(p)
}

// merge returns cur with the legacy items merged in by the rules of
// ImportLegacy, and the items that changed. Taken items have seq 0, which
// Restore turns into fresh seqs.
func merge(cur, legacy domain.GraphData) (domain.GraphData, domain.ChangeSet) {
	cs := domain.NewChangeSet()
	out := cur
	out.Nodes = slices.Clone(cur.Nodes)
	out.Edges = slices.Clone(cur.Edges)
	out.NodeTombstones = maps.Clone(cur.NodeTombstones)
	out.EdgeTombstones = maps.Clone(cur.EdgeTombstones)
	out.Progress = maps.Clone(cur.Progress)
	out.Meta = maps.Clone(cur.Meta)
	mergeNodes(&out, legacy.Nodes, cs)
	mergeEdges(&out, legacy.Edges, cs)
	mergeUnknown(&out, legacy, &cs)
	return out, cs
}

// mergeNodes takes into out each legacy node it lacks, or holds at a lower
// version, unless out deleted it at the legacy version or later.
func mergeNodes(out *domain.GraphData, legacy []domain.Node, cs domain.ChangeSet) {
	nodeAt := map[string]int{}
	for i, n := range out.Nodes {
		nodeAt[n.ID] = i
	}
	for _, n := range legacy {
		n.Version.Seq, n.Version.Session = 0, ""
		if i, ok := nodeAt[n.ID]; ok {
			if n.Version.V > out.Nodes[i].Version.V {
				out.Nodes[i] = n
				cs.Nodes[n.ID] = struct{}{}
			}
			continue
		}
		if t, ok := out.NodeTombstones[n.ID]; ok {
			if n.Version.V <= t.V {
				continue
			}
			delete(out.NodeTombstones, n.ID)
			cs.NodeTombstones[n.ID] = struct{}{}
		}
		nodeAt[n.ID] = len(out.Nodes)
		out.Nodes = append(out.Nodes, n)
		cs.Nodes[n.ID] = struct{}{}
	}
}

// mergeEdges is mergeNodes for edges.
func mergeEdges(out *domain.GraphData, legacy []domain.Edge, cs domain.ChangeSet) {
	edgeAt := map[domain.EdgeKey]int{}
	for i, e := range out.Edges {
		edgeAt[e.Key()] = i
	}
	for _, e := range legacy {
		e.Version.Seq, e.Version.Session = 0, ""
		k := e.Key()
		if i, ok := edgeAt[k]; ok {
			if e.Version.V > out.Edges[i].Version.V {
				out.Edges[i] = e
				cs.Edges[k] = struct{}{}
			}
			continue
		}
		if t, ok := out.EdgeTombstones[k]; ok {
			if e.Version.V <= t.V {
				continue
			}
			delete(out.EdgeTombstones, k)
			cs.EdgeTombstones[k] = struct{}{}
		}
		edgeAt[k] = len(out.Edges)
		out.Edges = append(out.Edges, e)
		cs.Edges[k] = struct{}{}
	}
}

// mergeUnknown adds the progress tasks and other _meta keys of legacy that
// out lacks; those out has are kept.
func mergeUnknown(out *domain.GraphData, legacy domain.GraphData, cs *domain.ChangeSet) {
	for _, task := range slices.Sorted(maps.Keys(legacy.Progress)) {
		if _, ok := out.Progress[task]; ok {
			continue
		}
		if out.Progress == nil {
			out.Progress = map[string]domain.RawJSON{}
		}
		out.Progress[task] = legacy.Progress[task]
		cs.Progress[task] = struct{}{}
	}
	for _, k := range slices.Sorted(maps.Keys(legacy.Meta)) {
		if _, ok := out.Meta[k]; ok {
			continue
		}
		if out.Meta == nil {
			out.Meta = map[string]domain.RawJSON{}
		}
		out.Meta[k] = legacy.Meta[k]
		cs.Meta = true
	}
}

// legacyGraph is a decoded legacy graph file.
type legacyGraph struct {
	data  domain.GraphData
	notes []string
}

// legacyFile is the oldest graph format: nodes by id and edges by key, with
// a _meta that may hold version entries, the progress of tasks and keys of
// its own (compaction statistics, ...). The versions number the items; the
// progress becomes the graph's; every other key is kept as it is, as the
// JSON backend keeps the _meta keys it does not know.
type legacyFile struct {
	Nodes map[string]json.RawMessage `json:"nodes"`
	Edges json.RawMessage            `json:"edges"` // an object by key, or a list
	Meta  map[string]json.RawMessage `json:"_meta"`
}

// kgMetaKeys are the _meta keys of kg's own format, which a legacy file
// cannot mean as kg does: it is numbered afresh, so they are not carried.
var kgMetaKeys = []string{"schema", "seq", "tombstones", "project_path"}

type legacyVersion struct {
	V       uint64          `json:"v"`
	TS      json.RawMessage `json:"ts"`
	Session *string         `json:"session"`
}

func readLegacyGraph(file string) (legacyGraph, error) {
	var lg legacyGraph
	b, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return lg, err
		}
		return lg, domain.Unavailable(err, "read %s", file)
	}
	var f legacyFile
	if err := json.Unmarshal(b, &f); err != nil {
		return lg, domain.Unavailable(err, "%s: not a legacy graph file: %v", file, err)
	}
	versions, err := lg.readMeta(file, f.Meta)
	if err != nil {
		return lg, err
	}
	if err := lg.readNodes(file, f.Nodes, versions); err != nil {
		return lg, err
	}
	edges, err := legacyEdgeValues(f.Edges)
	if err != nil {
		return lg, legacyDamage(file, "edges", err)
	}
	if err := lg.readEdges(file, edges, versions); err != nil {
		return lg, err
	}
	return lg, nil
}

// legacyDamage is the error for an item of the legacy file that does not
// decode.
func legacyDamage(file, item string, err error) error {
	return domain.Unavailable(err, "%s: %s: %v", file, item, err)
}

// readMeta takes the progress and the keys of its own from the file's
// _meta, notes the keys of kg's format it drops, and returns the version
// entries.
func (lg *legacyGraph) readMeta(file string, meta map[string]json.RawMessage) (map[string]legacyVersion, error) {
	var versions map[string]legacyVersion
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		raw := meta[k]
		switch {
		case k == "versions":
			if err := json.Unmarshal(raw, &versions); err != nil {
				return nil, legacyDamage(file, "_meta.versions", err)
			}
		case k == "progress":
			var tasks map[string]json.RawMessage
			if err := json.Unmarshal(raw, &tasks); err != nil {
				return nil, legacyDamage(file, "_meta.progress", err)
			}
			for task, state := range tasks {
				if lg.data.Progress == nil {
					lg.data.Progress = map[string]domain.RawJSON{}
				}
				lg.data.Progress[task] = compactJSON(state)
			}
		case slices.Contains(kgMetaKeys, k):
			lg.notes = append(lg.notes, fmt.Sprintf("%s: _meta.%s not carried over: kg numbers the imported graph itself", file, k))
		default:
			if lg.data.Meta == nil {
				lg.data.Meta = map[string]domain.RawJSON{}
			}
			lg.data.Meta[k] = compactJSON(raw)
		}
	}
	return versions, nil
}

// readNodes decodes the nodes in id order, each numbered by its version
// entry when it has one.
func (lg *legacyGraph) readNodes(file string, nodes map[string]json.RawMessage, versions map[string]legacyVersion) error {
	for _, key := range slices.Sorted(maps.Keys(nodes)) {
		n, err := decodeLegacyNode(key, nodes[key])
		if err != nil {
			return legacyDamage(file, fmt.Sprintf("node %q", key), err)
		}
		if v, ok := versions["node:"+n.ID]; ok && v.V > 0 {
			n.Version.V = v.V
			if ts, err := parseSeconds(v.TS); err == nil && ts != 0 {
				n.Version.TS = ts
			}
		}
		lg.data.Nodes = append(lg.data.Nodes, n)
	}
	return nil
}

// legacyEdgeValues lists the edges of the file, written as a list or as an
// object by key (then in key order).
func legacyEdgeValues(raw json.RawMessage) ([]json.RawMessage, error) {
	var edges []json.RawMessage
	switch t := bytes.TrimSpace(raw); {
	case len(t) == 0 || string(t) == "null":
	case t[0] == '[':
		if err := json.Unmarshal(t, &edges); err != nil {
			return nil, err
		}
	default:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(t, &m); err != nil {
			return nil, err
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			edges = append(edges, m[k])
		}
	}
	return edges, nil
}

// readEdges decodes the edges, each numbered by its version entry when it
// has one.
func (lg *legacyGraph) readEdges(file string, edges []json.RawMessage, versions map[string]legacyVersion) error {
	for i, raw := range edges {
		e, err := decodeLegacyEdge(raw)
		if err != nil {
			return legacyDamage(file, fmt.Sprintf("edge %d", i), err)
		}
		if v, ok := versions["edge:"+e.From+"->"+e.To+":"+e.Rel]; ok && v.V > 0 {
			e.Version.V = v.V
			if ts, err := parseSeconds(v.TS); err == nil {
				e.Version.TS = ts
			}
		}
		lg.data.Edges = append(lg.data.Edges, e)
	}
	return nil
}

// decodeLegacyNode reads one node; fields kg does not know are kept as they
// are (compacted), as the JSON backend keeps them.
func decodeLegacyNode(key string, raw json.RawMessage) (domain.Node, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return domain.Node{}, err
	}
	n := domain.Node{ID: key, Version: domain.Version{V: 1}}
	var archived bool
	var orphaned, lastWrite *domain.Micros
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		var err error
		switch k {
		case "id":
			var id string
			if err = json.Unmarshal(v, &id); err == nil && id != "" {
				n.ID = id
			}
		case "gist":
			err = json.Unmarshal(v, &n.Gist)
		case "notes":
			err = json.Unmarshal(v, &n.Notes)
		case "touches":
			err = json.Unmarshal(v, &n.Touches)
		case "_created_ts":
			n.Created, err = parseSeconds(v)
		case "_last_read_ts":
			n.LastRead, err = parseSeconds(v)
		case "_archived":
			err = json.Unmarshal(v, &archived)
		case "_orphaned_ts":
			var t domain.Micros
			if t, err = parseSeconds(v); err == nil && string(v) != "null" {
				orphaned = &t
			}
		case "_last_write":
			var t domain.Micros
			if t, err = parseSeconds(v); err == nil {
				lastWrite = &t
			}
		default:
			if n.Extra == nil {
				n.Extra = map[string]domain.RawJSON{}
			}
			var c bytes.Buffer
			if err = json.Compact(&c, v); err == nil {
				n.Extra[k] = domain.RawJSON(c.Bytes())
			}
		}
		if err != nil {
			return n, fmt.Errorf("field %s: %w", k, err)
		}
	}
	switch {
	case orphaned != nil:
		n.Tier, n.OrphanedAt = domain.Orphaned, *orphaned
	case archived:
		n.Tier = domain.Archived
	}
	n.Version.TS = n.Created
	if lastWrite != nil {
		n.Version.TS = *lastWrite
	}
	return n, nil
}

func decodeLegacyEdge(raw json.RawMessage) (domain.Edge, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return domain.Edge{}, err
	}
	e := domain.Edge{Version: domain.Version{V: 1}}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		var err error
		switch k {
		case "from":
			err = json.Unmarshal(v, &e.From)
		case "to":
			err = json.Unmarshal(v, &e.To)
		case "rel":
			err = json.Unmarshal(v, &e.Rel)
		case "notes":
			err = json.Unmarshal(v, &e.Notes)
		default:
			if e.Extra == nil {
				e.Extra = map[string]domain.RawJSON{}
			}
			var c bytes.Buffer
			if err = json.Compact(&c, v); err == nil {
				e.Extra[k] = domain.RawJSON(c.Bytes())
			}
		}
		if err != nil {
			return e, fmt.Errorf("field %s: %w", k, err)
		}
	}
	if e.From == "" || e.To == "" || e.Rel == "" {
		return e, errors.New("from, to and rel are required")
	}
	return e, nil
}

// legacySession is a session of sessions.json; times are seconds.
type legacySession struct {
	StartTS      json.RawMessage `json:"start_ts"`
	ProjectPath  string          `json:"project_path"`
	LastActivity json.RawMessage `json:"last_activity"`
	OpCount      int64           `json:"op_count"`
	LastSyncedTS json.RawMessage `json:"last_synced_ts"`
}

var legacySessionFields = []string{"start_ts", "project_path", "last_activity", "op_count", "last_synced_ts"}

func readLegacySessions(file string, canonical func(string) (string, error)) (map[string]ports.Session, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, domain.Unavailable(err, "read %s", file)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, domain.Unavailable(err, "%s: not a legacy sessions file: %v", file, err)
	}
	out := make(map[string]ports.Session, len(raw))
	for id, r := range raw {
		bad := func(err error) error { return domain.Unavailable(err, "%s: session %q: %v", file, id, err) }
		var ls legacySession
		if err := json.Unmarshal(r, &ls); err != nil {
			return nil, bad(err)
		}
		s := ports.Session{ID: id, OpCount: ls.OpCount}
		for _, t := range []struct {
			dst *domain.Micros
			raw json.RawMessage
		}{{&s.Start, ls.StartTS}, {&s.LastActivity, ls.LastActivity}, {&s.LastSyncedTS, ls.LastSyncedTS}} {
			if *t.dst, err = parseSeconds(t.raw); err != nil {
				return nil, bad(err)
			}
		}
		if ls.ProjectPath != "" {
			if s.ProjectPath, err = canonical(ls.ProjectPath); err != nil {
				return nil, bad(err)
			}
		}
		var all map[string]json.RawMessage
		if err := json.Unmarshal(r, &all); err != nil {
			return nil, bad(err)
		}
		for _, k := range legacySessionFields {
			delete(all, k)
		}
		for k, v := range all {
			if s.Extra == nil {
				s.Extra = map[string]domain.RawJSON{}
			}
			var c bytes.Buffer
			if err := json.Compact(&c, v); err != nil {
				return nil, bad(err)
			}
			s.Extra[k] = domain.RawJSON(c.Bytes())
		}
		out[id] = s
	}
	return out, nil
}

// parseSeconds reads a time in seconds (a JSON number, or null / absent for
// none) as microseconds, rounded to the nearest. Plain decimals are read
// digit by digit, so no float rounding moves a stored microsecond.
func parseSeconds(raw json.RawMessage) (domain.Micros, error) {
	s := string(bytes.TrimSpace(raw))
	if s == "" || s == "null" {
		return 0, nil
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f*1e6, 0) {
			return 0, fmt.Errorf("time %s: not a number of seconds", s)
		}
		return domain.Micros(math.Round(f * 1e6)), nil
	}
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || (frac != "" && strings.Trim(frac, "0123456789") != "") {
		return 0, fmt.Errorf("time %s: not a number of seconds", s)
	}
	frac += "0000000"
	us, _ := strconv.ParseInt(frac[:6], 10, 64)
	if frac[6] >= '5' { // round half up on the seventh digit
		us++
	}
	m := domain.Micros(sec)*domain.Second + domain.Micros(us)
	if neg {
		m = -m
	}
	return m, nil
}

// compactJSON is raw without its white space, as the stores keep JSON they
// carry unread; raw that does not compact (it decoded, so it will) is kept
// as it is.
func compactJSON(raw json.RawMessage) domain.RawJSON {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return domain.RawJSON(raw)
	}
	return domain.RawJSON(b.Bytes())
}
