package domain

// ChangeSet names what changed since the last checkpoint, so a backend that
// stores items one by one writes only those. An entry names an item whose
// current value (or absence) must be stored.
type ChangeSet struct {
	Nodes          map[string]struct{}
	Edges          map[EdgeKey]struct{}
	NodeTombstones map[string]struct{}
	EdgeTombstones map[EdgeKey]struct{}
	Progress       map[string]struct{}
	Meta           bool // seq, project path or unknown metadata
}

// NewChangeSet returns a change set that names nothing yet.
func NewChangeSet() ChangeSet {
	var c ChangeSet
	c.reset()
	return c
}

func (c *ChangeSet) reset() {
	c.Nodes = map[string]struct{}{}
	c.Edges = map[EdgeKey]struct{}{}
	c.NodeTombstones = map[string]struct{}{}
	c.EdgeTombstones = map[EdgeKey]struct{}{}
	c.Progress = map[string]struct{}{}
	c.Meta = false
}

// Empty reports whether nothing changed.
func (c ChangeSet) Empty() bool {
	return len(c.Nodes) == 0 && len(c.Edges) == 0 && len(c.NodeTombstones) == 0 &&
		len(c.EdgeTombstones) == 0 && len(c.Progress) == 0 && !c.Meta
}

// Everything names every item of the graph and its metadata. Committing it
// writes the whole graph on any backend, as a migration or a copy between
// backends must; a per-item backend otherwise writes only what Pending names.
func (g *Graph) Everything() ChangeSet {
	var c ChangeSet
	c.reset()
	c.Meta = true
	for id := range g.allNodes() {
		c.Nodes[id] = struct{}{}
	}
	for k := range g.edges {
		c.Edges[k] = struct{}{}
	}
	for id := range g.nodeTombs {
		c.NodeTombstones[id] = struct{}{}
	}
	for k := range g.edgeTombs {
		c.EdgeTombstones[k] = struct{}{}
	}
	for task := range g.progress {
		c.Progress[task] = struct{}{}
	}
	return c
}

// Items names every item of d, as Everything does for a graph: a copy that
// replaces d names them so that a per-item backend deletes those it lacks.
func (d GraphData) Items() ChangeSet {
	var c ChangeSet
	c.reset()
	c.Meta = true
	for i := range d.Nodes {
		c.Nodes[d.Nodes[i].ID] = struct{}{}
	}
	for i := range d.Edges {
		c.Edges[d.Edges[i].Key()] = struct{}{}
	}
	for id := range d.NodeTombstones {
		c.NodeTombstones[id] = struct{}{}
	}
	for k := range d.EdgeTombstones {
		c.EdgeTombstones[k] = struct{}{}
	}
	for task := range d.Progress {
		c.Progress[task] = struct{}{}
	}
	return c
}

// Merge adds every item named by o to c.
func (c ChangeSet) Merge(o ChangeSet) {
	for id := range o.Nodes {
		c.Nodes[id] = struct{}{}
	}
	for k := range o.Edges {
		c.Edges[k] = struct{}{}
	}
	for id := range o.NodeTombstones {
		c.NodeTombstones[id] = struct{}{}
	}
	for k := range o.EdgeTombstones {
		c.EdgeTombstones[k] = struct{}{}
	}
	for task := range o.Progress {
		c.Progress[task] = struct{}{}
	}
}

// Size returns the number of items named.
func (c ChangeSet) Size() int {
	n := len(c.Nodes) + len(c.Edges) + len(c.NodeTombstones) + len(c.EdgeTombstones) + len(c.Progress)
	if c.Meta {
		n++
	}
	return n
}

// Pending returns what changed since the last checkpoint. The sets belong to
// the graph and are valid until the next Checkpoint or Rollback.
func (g *Graph) Pending() ChangeSet { return g.pending }
