package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/filehash"
	"github.com/kg-memory/kg/app/filecheck"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/duplicates"
	"github.com/kg-memory/kg/domain/secretscreen"
)

// What kg doctor looks at in the graphs' content when asked
// (docs/design/operations.md#kg-doctor): stored secrets, possible
// duplicates. Like every check of kg doctor it changes nothing.

// ContentChecks are the checks of what the graphs hold, each asked for by
// its flag.
type ContentChecks struct {
	secrets    bool
	duplicates bool
	stale      bool
}

func (cc *ContentChecks) Bind(c *cobra.Command) {
	c.Flags().BoolVar(&cc.secrets, "secrets", false, "scan every node and edge for credentials (keys, tokens, passwords)")
	c.Flags().BoolVar(&cc.duplicates, "duplicates", false, "list the clusters of active and archived nodes that may say one thing")
	c.Flags().BoolVar(&cc.stale, "stale", false, "read the project files the nodes recorded and list the nodes whose files changed or vanished since")
}

func (cc ContentChecks) Any() bool { return cc.secrets || cc.duplicates || cc.stale }

// GraphSubject names a graph in a finding.
func GraphSubject(key domain.GraphKey) string {
	if key.Level == domain.LevelUser {
		return "user graph"
	}
	return "project " + key.Project
}

// CheckContent makes the asked checks of one graph's data.
func (c *Checkup) CheckContent(ctx context.Context, key domain.GraphKey, d domain.GraphData) {
	if !c.Content.Any() {
		return
	}
	g, _ := domain.Restore(key, d, domain.RestoreOptions{})
	if c.Content.secrets {
		c.checkSecrets(key, g)
	}
	if c.Content.duplicates {
		c.checkDuplicates(key, g)
	}
	if c.Content.stale && key.Level == domain.LevelProject {
		c.checkStale(ctx, key, g)
	}
}

// checkStale reads the files each node of a project graph recorded, in the
// project's folder, and reports each node whose files changed or vanished
// since (docs/design/trust.md#staleness). It reads the project's files, never
// writes anything, and reads nothing of the storage root but what the other
// checks read.
func (c *Checkup) checkStale(ctx context.Context, key domain.GraphKey, g *domain.Graph) {
	subject := GraphSubject(key)
	if !filepath.IsAbs(key.Project) {
		c.Add(LevelInfo, subject, "names no folder: its recorded files are unverifiable", "nothing to do")
		return
	}
	nodes, err := filecheck.Stale(ctx, filehash.OS{}, key.Project, g)
	switch {
	case err != nil:
		c.Add(LevelInfo, subject, "the project's folder cannot be read ("+err.Error()+"): its recorded files are unverifiable, not stale",
			"nothing to do; if the project moved, kg project mv OLD NEW")
		return
	case len(nodes) == 0:
		c.Add(LevelOK, subject, "no recorded file changed or vanished", "")
		return
	}
	for _, n := range nodes {
		files := make([]string, len(n.Files))
		for i, f := range n.Files {
			files[i] = f.Path + " " + string(f.Change)
		}
		c.Add(LevelWarn, subject, fmt.Sprintf("node %s is possibly stale: %s", n.ID, strings.Join(files, ", ")),
			fmt.Sprintf("read the files and node %s; write it again with what is true now (kg_put_node, which records the files anew), or delete it", n.ID))
	}
}

// checkDuplicates reports each cluster of possible duplicates
// (docs/design/trust.md#duplicates): its nodes and the links that joined
// them. Merging is a person's call, so it is information, not a fault.
func (c *Checkup) checkDuplicates(key domain.GraphKey, g *domain.Graph) {
	clusters := duplicates.Clusters(g)
	if len(clusters) == 0 {
		c.Add(LevelOK, GraphSubject(key), "no possible duplicates", "")
		return
	}
	for _, cl := range clusters {
		links := make([]string, len(cl.Pairs))
		for i, p := range cl.Pairs {
			how := fmt.Sprintf("gists %.2f alike", p.Score)
			if p.ByID {
				how = "same id"
			}
			links[i] = fmt.Sprintf("%s ~ %s: %s", p.A, p.B, how)
		}
		c.Add(LevelInfo, GraphSubject(key),
			fmt.Sprintf("possible duplicates: %s (%s)", strings.Join(cl.IDs, ", "), strings.Join(links, "; ")),
			"if they say one thing, keep one and merge the others into it: on the web page, Merge… on a node "+
				"(POST /api/nodes/merge unites the notes, rewires the edges and deletes the other in one write); if not, nothing to do")
	}
}

// checkSecrets reports each credential a graph holds, by its node or edge,
// field, kind and position; never the credential itself.
func (c *Checkup) checkSecrets(key domain.GraphKey, g *domain.Graph) {
	found := secretscreen.Scan(g)
	if len(found) == 0 {
		c.Add(LevelOK, GraphSubject(key), "no secret found", "")
		return
	}
	for _, f := range found {
		item, fix := "node "+f.Node, fmt.Sprintf("write node %s again with the secret replaced by where it lives "+
			"(kg_put_node, or the web page), or delete it; then rotate the credential: it has been in memory", f.Node)
		if f.Edge != nil {
			item = "edge " + f.Edge.String()
			fix = "write the edge again with the secret replaced by where it lives (kg_put_edge), or delete it " +
				"(kg_delete_edge); then rotate the credential: it has been in memory"
		}
		c.Add(LevelWarn, GraphSubject(key), item+" "+f.Message(), fix)
	}
}
