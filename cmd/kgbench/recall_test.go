package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A conversation in LoCoMo's layout, made up here: the benchmark's real
// data lives outside the repository (docs/design/benchmarks.md#search-quality).
const fakeLoCoMo = `[{"sample_id": "conv-x",
 "conversation": {"speaker_a": "Ann", "speaker_b": "Bob",
  "session_1_date_time": "1 May 2023",
  "session_1": [
   {"speaker": "Ann", "dia_id": "D1:1", "text": "I started pottery classes last week!"},
   {"speaker": "Bob", "dia_id": "D1:2", "text": "Nice. I   went hiking", "blip_caption": "a photo of a mountain"}],
  "session_2_date_time": "3 May 2023",
  "session_2": [
   {"speaker": "Ann", "dia_id": "D2:1", "text": "My dog Rex loves the beach."}]},
 "qa": [
  {"question": "What classes did Ann start?", "answer": "pottery", "evidence": ["D1:1"], "category": 1},
  {"question": "Where did Bob go?", "answer": "a mountain", "evidence": ["D9:9; D1:2"], "category": 2},
  {"question": "What is the dog's name?", "answer": "Rex", "evidence": ["D2:1"], "category": 5},
  {"question": "Who is Carl?", "answer": "nobody", "evidence": ["D7:7"], "category": 4},
  {"question": "What did Carl eat?", "answer": "nothing", "evidence": ["D2:1"], "category": 4}]}]`

func TestLoadLoCoMo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locomo.json")
	if err := os.WriteFile(path, []byte(fakeLoCoMo), 0o644); err != nil {
		t.Fatal(err)
	}
	convs, err := loadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 {
		t.Fatalf("%d conversations", len(convs))
	}
	c := convs[0]
	wantTurns := []turnNode{
		{"d1-1", "Ann: I started pottery classes last week!"},
		{"d1-2", "Bob: Nice. I went hiking [image: a photo of a mountain]"},
		{"d2-1", "Ann: My dog Rex loves the beach."},
	}
	if diff := cmp.Diff(wantTurns, c.turns, cmp.AllowUnexported(turnNode{})); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	// Category 5 is left out, and so is a question whose evidence names no turn.
	wantQs := []question{{"What classes did Ann start?", []string{"d1-1"}}, {"Where did Bob go?", []string{"d1-2"}},
		{"What did Carl eat?", []string{"d2-1"}}}
	if diff := cmp.Diff(wantQs, c.questions, cmp.AllowUnexported(question{})); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
}

func TestWithTypo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	again := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		q := "When did Caroline go to the pottery class?"
		got := withTypo(r, q)
		if got != withTypo(again, q) {
			t.Fatal("the same seed gave another typo")
		}
		a, b := strings.Fields(q), strings.Fields(got)
		if len(a) != len(b) {
			t.Fatalf("%q: words changed in number", got)
		}
		changed := 0
		for i := range a {
			if a[i] != b[i] {
				changed++
				if len([]rune(strings.Trim(a[i], "?"))) < 5 {
					t.Errorf("%q: a typo in the short word %q", got, a[i])
				}
			}
		}
		if changed != 1 {
			t.Errorf("%q: %d words changed, want 1", got, changed)
		}
	}
	if got := withTypo(r, "Who is he?"); got != "Who is he?" {
		t.Errorf("no word of 5 letters: %q", got)
	}
}

func TestParseFloors(t *testing.T) {
	f, err := parseFloors("r5=61, r20=73.5,typo-r5=58")
	if err != nil {
		t.Fatal(err)
	}
	if f.clean != [4]float64{0, 61, 0, 73.5} || f.typo != [4]float64{0, 58, 0, 0} {
		t.Errorf("floors %+v", f)
	}
	for _, bad := range []string{"r3=50", "r5", "r5=x", "r5=101", "typo-r7=1"} {
		if _, err := parseFloors(bad); err == nil {
			t.Errorf("parseFloors(%q): no error", bad)
		}
	}
}

// TestRecallThroughServer loads the conversation into a real in-process
// server and asks its questions through MCP: the figures and the floors.
func TestRecallThroughServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locomo.json")
	if err := os.WriteFile(path, []byte(fakeLoCoMo), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"--recall", path, "--cwd", t.TempDir(), "--floor", "r1=60,typo-r20=50"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errs.String())
	}
	// Two of the three questions find their turn first; Carl is nowhere.
	for _, want := range []string{"1 conversations as 1 projects, 3 turns as nodes", "clean 66.7 66.7 66.7 66.7 (3 questions)", "floor clean R@1 >= 60.0: met"} {
		if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run(context.Background(), []string{"--recall", path, "--cwd", t.TempDir(), "--floor", "r20=90"}, &out, &errs); code != 1 || !strings.Contains(out.String(), "floor clean R@20 >= 90.0: NOT MET") {
		t.Errorf("a floor not met: exit %d\n%s", code, out.String())
	}
}
