package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/fullread"
	"github.com/kg-memory/kg/domain/render"
	"github.com/kg-memory/kg/domain/stale"
)

// kgRead starts or continues a session and reads memory: the full read of the
// user graph and the session's project graph, or nodes by id
// (docs/design/mcp.md#kg_read).
var kgRead = tool[readArgs]{
	name: "kg_read",
	description: "Start or continue a session and read your memory. Call it first in every " +
		"conversation with cwd (the absolute project root) to get a session_id and the full read: the user " +
		"graph (cross-project knowledge) and this project's graph, as active nodes with their gists, archived " +
		"ids, edges and a health line. With id or ids, returns those nodes in full (notes, touches, edges in " +
		"and out) and restores an archived or orphaned node to active.",
	hints: hints{title: "Read memory"},
	args: []mcpgo.ToolOption{
		mcpgo.WithString("cwd", mcpgo.Description("Absolute path of the project root; starts a session bound to that project when no session_id is given.")),
		mcpgo.WithString("project_key", mcpgo.Description("The project's key on a team server (e.g. github.com/acme/api: the contents of .kg/project, else the normalised git origin plus the sub-folder); there it names the project, before cwd. kg mcp sends it. A server of one person uses cwd.")),
		sessionArg(false),
		mcpgo.WithString("id", mcpgo.Description("Read this node in full instead of the full read.")),
		mcpgo.WithArray("ids", mcpgo.WithStringItems(), mcpgo.Description("Read these nodes in full.")),
		levelArg(false, "Look the id up only in this graph; without it both graphs are searched."),
	},
	run: read,
}

type readArgs struct {
	CWD        str     `arg:"cwd"`
	ProjectKey str     `arg:"project_key"`
	SessionID  str     `arg:"session_id"`
	ID         str     `arg:"id"`
	IDs        strList `arg:"ids"`
	Level      level   `arg:"level"`
}

func read(ctx context.Context, svc Service, a readArgs) (string, error) {
	req := app.ReadRequest{CWD: string(a.CWD), ProjectKey: string(a.ProjectKey), SessionID: string(a.SessionID), Level: domain.Level(a.Level)}
	if a.ID != "" {
		req.IDs = append(req.IDs, string(a.ID))
	}
	req.IDs = append(req.IDs, a.IDs...)
	res, err := svc.Read(ctx, req)
	if err != nil {
		return "", err
	}
	if res.Full != nil {
		gs := fitFullRead(*res.Full, res.SessionID, maxReadChars)
		return staleLine(res.Stale) + renderFullRead(gs, res.SessionID), nil
	}
	return staleLine(res.Stale) + renderNodeReads(res.Nodes, res.SessionID), nil
}

// staleLine heads a read served from memory while the database cannot be
// reached (team mode, docs/design/team.md#when-the-database-is-away); ""
// otherwise.
func staleLine(stale bool) string {
	if !stale {
		return ""
	}
	return "HEALTH: the database cannot be reached; this memory may be behind what other servers committed\n"
}

// The full read.

// maxReadChars caps the text of a full read (docs/design/mcp.md#full-read).
const maxReadChars = 40_000

// shownGraph is one graph of a full read as it is shown: the view, maybe
// trimmed to fit maxReadChars, and how much the trimming left out.
type shownGraph struct {
	level           domain.Level
	project, name   string
	view            fullread.View
	archivedOmitted int
	edgesOmitted    int
	unavailable     string // why the graph cannot be read; the view is then empty
}

// fitFullRead returns the graphs of a full read trimmed so that its text
// stays within limit characters: archived id lines go first, from the last
// graph backwards, then edges to archived nodes; active gists and edges
// between active nodes never go (and edge notes are never printed, so they
// cannot push the read past the cap). A read that fits is returned whole.
// The app's view is never changed.
func fitFullRead(fr app.FullRead, session string, limit int) []shownGraph {
	gs := []shownGraph{{level: domain.LevelUser, view: fr.User.View, unavailable: fr.User.Unavailable}}
	if fr.Project != nil {
		gs = append(gs, shownGraph{level: domain.LevelProject, project: fr.Project.Key.Project,
			name: fr.Project.Name, view: fr.Project.View, unavailable: fr.Project.Unavailable})
	}
	excess := utf8.RuneCountInString(renderFullRead(gs, session)) - limit
	if excess <= 0 {
		return gs
	}
	// Room for the line that says what was left out, in each graph.
	excess += len(gs) * utf8.RuneCountInString(omittedLine(maxInt, maxInt))
	for i := len(gs) - 1; i >= 0 && excess > 0; i-- {
		g := &gs[i]
		for len(g.view.Archived) > 0 && excess > 0 {
			last := g.view.Archived[len(g.view.Archived)-1]
			excess -= utf8.RuneCountInString(last) + 3 // two spaces and the newline
			g.view.Archived = g.view.Archived[:len(g.view.Archived)-1]
			g.archivedOmitted++
		}
	}
	for i := len(gs) - 1; i >= 0 && excess > 0; i-- {
		g := &gs[i]
		archived := map[string]bool{}
		for _, id := range fullArchived(fr, g.level) {
			archived[id] = true
		}
		keep := make([]bool, len(g.view.Edges))
		for j := range keep {
			keep[j] = true
		}
		for j := len(g.view.Edges) - 1; j >= 0 && excess > 0; j-- {
			e := g.view.Edges[j]
			if archived[e.From] || archived[e.To] {
				keep[j] = false
				excess -= utf8.RuneCountInString(fullReadEdgeLine(e)) + 3
				g.edgesOmitted++
			}
		}
		edges := make([]*domain.Edge, 0, len(g.view.Edges)-g.edgesOmitted)
		for j, e := range g.view.Edges {
			if keep[j] {
				edges = append(edges, e)
			}
		}
		g.view.Edges = edges
	}
	return gs
}

// fullReadEdgeLine is an edge as the full read shows it: its key and how
// many notes it has, never the notes (render.CountedEdge; the preload lists
// it alike).
func fullReadEdgeLine(e *domain.Edge) string {
	return render.CountedEdge(e.Key().String(), len(e.Notes))
}

const maxInt = int(^uint(0) >> 1)

// fullArchived returns the untrimmed archived ids of the graph at level.
func fullArchived(fr app.FullRead, level domain.Level) []string {
	if level == domain.LevelProject && fr.Project != nil {
		return fr.Project.View.Archived
	}
	return fr.User.View.Archived
}

// renderFullRead is the text of a full read.
func renderFullRead(gs []shownGraph, session string) string {
	var b strings.Builder
	for _, g := range gs {
		if g.unavailable != "" {
			b.WriteString(render.UnavailableHeader(graphTitle(g.level, g.name), g.unavailable))
			continue
		}
		v := g.view
		b.WriteString(render.GraphHeader(graphTitle(g.level, g.name), v.Health.Active, v.Health.Archived))
		if len(v.Active) > 0 {
			b.WriteString(render.ActiveHeader)
			for _, n := range v.Active {
				render.Node{ID: n.ID, Mark: stale.Mark(n.Stale), Gist: n.Gist}.Write(&b)
			}
		}
		if len(v.Archived) > 0 {
			b.WriteString(render.ArchivedHeader)
			for _, id := range v.Archived {
				fmt.Fprintf(&b, "  %s\n", id)
			}
		}
		if len(v.Edges) > 0 {
			b.WriteString(render.EdgesHeader)
			for _, e := range v.Edges {
				b.WriteString(render.Indent + fullReadEdgeLine(e) + "\n")
			}
		}
		b.WriteString(healthLine(v.Health))
		b.WriteByte('\n')
		if g.archivedOmitted > 0 || g.edgesOmitted > 0 {
			b.WriteString(omittedLine(g.archivedOmitted, g.edgesOmitted))
			b.WriteByte('\n')
		}
	}
	b.WriteString(render.SessionLine(session))
	return b.String()
}

// omittedLine says what the cap left out of one graph.
func omittedLine(archived, edges int) string {
	return render.OmittedLine(archived, edges, maxReadChars)
}

// healthLine is a graph's HEALTH line (render.HealthLine).
func healthLine(h fullread.Health) string {
	return render.HealthLine(render.Health{
		Nodes: h.Nodes, Edges: h.Edges, Unconnected: h.Unconnected, AvgEdgesPerNode: h.AvgEdgesPerNode,
		Estimate: h.Estimate, MaxTokens: h.MaxTokens, OverBudget: h.OverBudget,
	})
}

// The read by id.

// renderNodeReads is the text of a read by id.
func renderNodeReads(nodes []app.NodeRead, session string) string {
	var b strings.Builder
	for i, r := range nodes {
		if i > 0 {
			b.WriteByte('\n')
		}
		renderNodeRead(&b, r)
	}
	b.WriteString(render.SessionLine(session))
	return b.String()
}

func renderNodeRead(b *strings.Builder, r app.NodeRead) {
	n := r.Node
	v := render.NodeRead{
		ID: n.ID, Mark: stale.Mark(n.Stale), Graph: graphLabel(r.Level, r.Project), Tier: n.Tier.String(),
		Gist: n.Gist, Notes: n.Notes, Touches: n.Touches,
		Version: n.Version.V, Created: formatTime(n.Created), LastWritten: formatTime(n.LastWrite()),
		UseSessions: useSessions(n.Use.Count), LastCounted: lastCounted(n.Use),
		Out: edgeEnds(r.Out, r.Level), In: edgeEnds(r.In, r.Level),
		Rescued: r.Rescued, NotSaved: r.RecallNotSaved, WasTier: r.WasTier.String(),
	}
	if r.WasTier != domain.Active && r.RecallNotSaved == "" {
		v.RestoredFrom = r.WasTier.String()
	}
	render.WriteNodeRead(b, v)
}

// edgeEnds are the ends of a node of the graph at level as the read by id
// shows them: the other end's graph named when it is another.
func edgeEnds(ends []app.EdgeEnd, level domain.Level) []render.EdgeEnd {
	out := make([]render.EdgeEnd, len(ends))
	for i, e := range ends {
		out[i] = render.EdgeEnd{Key: e.Edge.Key().String(), Notes: e.Edge.Notes}
		if e.OtherTier != nil {
			out[i].Other = e.OtherTier.String()
			if e.OtherLevel != "" && e.OtherLevel != level {
				out[i].Other += ", " + string(e.OtherLevel) + " graph"
			}
		}
	}
	return out
}

// graphLabel names a graph in a sentence: "user graph", "project graph
// (my-app)".
func graphLabel(level domain.Level, project string) string {
	if level == domain.LevelProject && project != "" {
		return "project graph (" + filepath.Base(project) + ")"
	}
	return string(level) + " graph"
}

// useSessions renders a use count in sessions with two decimals, truncated:
// 98303 is "1.49" (docs/design/compaction.md#the-use-count).
func useSessions(u uint64) string {
	h := u * 100 / domain.UseUnit // a count is at most 2^48: no overflow
	return fmt.Sprintf("%d.%02d", h/100, h%100)
}

// lastCounted renders the day a use count was last counted, 2006-01-02;
// "" for a node never counted.
func lastCounted(u domain.Use) string {
	if u.Count == 0 && u.Day == 0 {
		return ""
	}
	return time.UnixMicro(int64(u.Day) * int64(domain.Day)).UTC().Format(time.DateOnly)
}

// formatTime renders a time as RFC 3339 in UTC; "" for none.
func formatTime(t domain.Micros) string {
	if t == 0 {
		return ""
	}
	return time.UnixMicro(int64(t)).UTC().Format(time.RFC3339)
}
