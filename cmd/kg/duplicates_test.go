package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/cmd/kg/internal/doctor"
)

// kg doctor --duplicates lists each cluster of possible duplicates with the
// links that joined it, as information: it does not fail the check.
func TestDoctorListsDuplicateClusters(t *testing.T) {
	t.Parallel()
	doc := `{"format":"kg-graph","version":1,"level":"user","exported_ts":1716400000,"progress":{},"edges":[],"nodes":[
	 {"id":"auth-token-refresh","gist":"JWT refresh uses a sliding window of 30 days","tier":"active","version":1},
	 {"id":"jwt-refresh","gist":"jwt refresh uses a sliding-window of 30 days.","tier":"archived","version":1},
	 {"id":"Auth_Token_Refreshs","gist":"rotate the signing key monthly","tier":"active","version":1},
	 {"id":"cache-keys","gist":"cache keys hold the tenant id","tier":"active","version":1},
	 {"id":"cache-key-old","gist":"cache keys hold the tenant id","tier":"orphaned","version":1}]}`
	file := filepath.Join(t.TempDir(), "doc.json")
	writeFile(t, file, doc)
	root := t.TempDir()
	if code, out, stderr := runKG(t, nil, "import", file, "--storage-root", root); code != 0 {
		t.Fatalf("import: exit %d %s%s", code, out, stderr)
	}
	code, out, stderr := runKG(t, nil, "doctor", "--duplicates", "--json", "--storage-root", root)
	if code != 0 {
		t.Fatalf("doctor: exit %d %s%s", code, out, stderr)
	}
	var got struct{ Findings []doctor.Finding }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var dups []doctor.Finding
	for _, f := range got.Findings {
		if strings.HasPrefix(f.Problem, "possible duplicates: ") {
			dups = append(dups, f)
		}
	}
	want := "possible duplicates: Auth_Token_Refreshs, auth-token-refresh, jwt-refresh " +
		"(Auth_Token_Refreshs ~ auth-token-refresh: same id; auth-token-refresh ~ jwt-refresh: gists 1.00 alike)"
	if len(dups) != 1 || dups[0].Problem != want || dups[0].Level != doctor.LevelInfo || dups[0].Subject != "user graph" ||
		!strings.Contains(dups[0].Fix, "keep one") || !strings.Contains(dups[0].Fix, "POST /api/nodes/merge") {
		t.Fatalf("findings = %+v\nwant one: %s", dups, want)
	}
	// Without the flag, nothing is said about duplicates.
	if _, out, _ := runKG(t, nil, "doctor", "--storage-root", root); strings.Contains(out, "possible duplicates") {
		t.Fatalf("doctor without --duplicates: %s", out)
	}
}
