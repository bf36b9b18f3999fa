package metrics_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// BenchmarkRecord is what each recording point costs once its series
// exist: a request, a tool call, a batch.
func BenchmarkRecord(b *testing.B) {
	m := metrics.New()
	b.Run("request", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Request(http.MethodPost, "/", 200, time.Millisecond)
		}
	})
	b.Run("request/parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Request(http.MethodGet, "/api/nodes/{level}/{id}", 404, time.Millisecond)
			}
		})
	})
	tool := m.Tool("kg_put_node")
	b.Run("tool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tool.Observe(metrics.ToolOK, time.Millisecond)
		}
	})
	b.Run("batch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.BatchCommitted(ports.Batch{Level: domain.LevelUser, Writes: 4, Saved: true, SaveTime: time.Millisecond})
		}
	})
}
