package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Fsync is the fsync latency of the json backend: every File.Sync and
// SyncDir its file-system layer makes, timed by jsonfile.TimeSyncs. It is
// a collector of its own because the storage opens before the server's
// Metrics exist; Register adds it to them.
type Fsync struct {
	vec       *prometheus.HistogramVec
	file, dir prometheus.Observer
}

var _ prometheus.Collector = (*Fsync)(nil)

// NewFsync returns the fsync histogram, its two series at zero.
func NewFsync() *Fsync {
	vec := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "kg_storage_fsync_duration_seconds",
		Help:    "Time each fsync of the json backend took, by target: file (a journal append, a checkpoint's temporary file, a graph or the sessions) or dir (the folder after a rename or creation).",
		Buckets: latencyBuckets,
	}, []string{"target"})
	return &Fsync{vec: vec, file: vec.WithLabelValues("file"), dir: vec.WithLabelValues("dir")}
}

// FileSynced records the fsync of a file.
func (f *Fsync) FileSynced(took time.Duration) { f.file.Observe(took.Seconds()) }

// DirSynced records the fsync of a folder.
func (f *Fsync) DirSynced(took time.Duration) { f.dir.Observe(took.Seconds()) }

// Describe implements prometheus.Collector.
func (f *Fsync) Describe(ch chan<- *prometheus.Desc) { f.vec.Describe(ch) }

// Collect implements prometheus.Collector.
func (f *Fsync) Collect(ch chan<- prometheus.Metric) { f.vec.Collect(ch) }

// NewBoltWrites returns the collector of the bolt backend's write time:
// bbolt times each write transaction's page writes and fdatasyncs together
// (TxStats.WriteTime) and keeps the sum, but not the fsync alone nor each
// transaction's share. So bolt exports this counter; the latency of each
// save is kg_save_duration_seconds. read returns the sum since the store
// opened.
func NewBoltWrites(read func() time.Duration) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "kg_bolt_write_seconds_total",
		Help: "Time bbolt spent writing pages and syncing (fdatasync) the database file, summed over every write transaction (graphs and sessions).",
	}, func() float64 { return read().Seconds() })
}
