package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kg-memory/kg/domain"
)

// State is what the server holds at one moment, read at each scrape.
type State struct {
	Sessions   int          // live sessions
	WebSockets int          // open WebSocket clients
	Graphs     []GraphState // the loaded graphs
}

// GraphState is the size of one loaded graph.
type GraphState struct {
	Key   domain.GraphKey
	Stats domain.Stats
}

// ReadState registers the gauges of what the server holds now — live
// sessions, WebSocket clients, loaded graphs and their nodes per tier and
// edges — read from read at each scrape, so they are exact when scraped
// and cost nothing between scrapes. Call it once per Metrics.
func (m *Metrics) ReadState(read func() State) error {
	return m.reg.Register(&stateCollector{read: read})
}

var (
	sessionsDesc = prometheus.NewDesc("kg_sessions_active",
		"Live sessions: started and not yet expired.", nil, nil)
	webSocketsDesc = prometheus.NewDesc("kg_websocket_clients",
		"Open WebSocket connections on /ws.", nil, nil)
	graphsDesc = prometheus.NewDesc("kg_graphs_loaded",
		"Graphs held in memory: the user graph and the project graphs used recently (an idle project graph is unloaded).", nil, nil)
	nodesDesc = prometheus.NewDesc("kg_graph_nodes",
		`Nodes of each loaded graph by tier (active, archived, orphaned). graph is "user" or the project's path; a graph unloaded when idle has no series until it is loaded again.`,
		[]string{"level", "graph", "tier"}, nil)
	edgesDesc = prometheus.NewDesc("kg_graph_edges",
		`Edges of each loaded graph. graph is "user" or the project's path.`,
		[]string{"level", "graph"}, nil)
)

// stateCollector turns a State into gauges at scrape time.
type stateCollector struct {
	read func() State
}

// Describe implements prometheus.Collector.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{sessionsDesc, webSocketsDesc, graphsDesc, nodesDesc, edgesDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.read()
	ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(s.Sessions))
	ch <- prometheus.MustNewConstMetric(webSocketsDesc, prometheus.GaugeValue, float64(s.WebSockets))
	ch <- prometheus.MustNewConstMetric(graphsDesc, prometheus.GaugeValue, float64(len(s.Graphs)))
	for _, g := range s.Graphs {
		level, name := string(g.Key.Level), GraphLabel(g.Key)
		for _, t := range []struct {
			tier  domain.Tier
			count int
		}{{domain.Active, g.Stats.Active}, {domain.Archived, g.Stats.Archived}, {domain.Orphaned, g.Stats.Orphaned}} {
			ch <- prometheus.MustNewConstMetric(nodesDesc, prometheus.GaugeValue, float64(t.count), level, name, t.tier.String())
		}
		ch <- prometheus.MustNewConstMetric(edgesDesc, prometheus.GaugeValue, float64(g.Stats.Edges), level, name)
	}
}

// GraphLabel is the graph label of a graph's series: "user", or the
// project's canonical path. A path names the project for a person better
// than its storage slug, and cannot be "user" (it is absolute).
func GraphLabel(k domain.GraphKey) string {
	if k.Level == domain.LevelUser {
		return "user"
	}
	return k.Project
}
