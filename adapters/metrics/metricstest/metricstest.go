// Package metricstest reads a Prometheus text-format scrape for tests: it
// parses what GET /metrics served with the Prometheus parser and looks up
// series by name and labels.
package metricstest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape is one parsed scrape: the metric families by name.
type Scrape map[string]*dto.MetricFamily

// Parse parses a scrape in the Prometheus text format; a body that does
// not parse fails the test.
func Parse(t testing.TB, body io.Reader) Scrape {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(body)
	if err != nil {
		t.Fatalf("the scrape is not the Prometheus text format: %v", err)
	}
	return fams
}

// Get scrapes url (a server's /metrics) with header pairs ("Authorization",
// "Bearer …") and parses the answer; a status other than 200 or a body in
// another format fails the test.
func Get(t testing.TB, url string, header ...string) Scrape {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("GET %s: Content-Type %q, want the Prometheus text format", url, ct)
	}
	return Parse(t, resp.Body)
}

// Has reports whether the scrape has the family name with at least one
// series.
func (s Scrape) Has(name string) bool {
	f, ok := s[name]
	return ok && len(f.GetMetric()) > 0
}

// Value sums over the series of name whose labels include the pairs
// ("level", "user", …): the value of a counter or gauge, the number of
// observations of a histogram.
func (s Scrape) Value(name string, pairs ...string) float64 {
	var v float64
	for _, m := range s.series(name, pairs) {
		switch {
		case m.GetCounter() != nil:
			v += m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			v += m.GetGauge().GetValue()
		case m.GetHistogram() != nil:
			v += float64(m.GetHistogram().GetSampleCount())
		case m.GetUntyped() != nil:
			v += m.GetUntyped().GetValue()
		}
	}
	return v
}

// Sum sums the observed values (the _sum) of the histogram series of name
// whose labels include the pairs.
func (s Scrape) Sum(name string, pairs ...string) float64 {
	var v float64
	for _, m := range s.series(name, pairs) {
		v += m.GetHistogram().GetSampleSum()
	}
	return v
}

// Labels returns the labels of each series of name.
func (s Scrape) Labels(name string) []map[string]string {
	var out []map[string]string
	for _, m := range s[name].GetMetric() {
		ls := map[string]string{}
		for _, l := range m.GetLabel() {
			ls[l.GetName()] = l.GetValue()
		}
		out = append(out, ls)
	}
	return out
}

func (s Scrape) series(name string, pairs []string) []*dto.Metric {
	var out []*dto.Metric
next:
	for _, m := range s[name].GetMetric() {
		for i := 0; i+1 < len(pairs); i += 2 {
			if !hasLabel(m, pairs[i], pairs[i+1]) {
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue() == value
		}
	}
	return false
}
