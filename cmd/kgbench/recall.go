package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The search-quality benchmark of docs/design/benchmarks.md#search-quality:
// LoCoMo's conversations (snap-research/LoCoMo, CC BY-NC 4.0), read at run
// time from the file named on the command line and never copied, each
// loaded into a kg server through POST /api/import as a project graph of its
// own, one node per turn; each question of categories 1–4 is then asked
// through kg_search (MCP, limit 20) in its conversation's project, and
// recall@k is the share of questions with an evidence turn among the first k
// hits. The questions are asked as written, then each with one seeded typo.

// recallKs are the k of recall@k.
var recallKs = [...]int{1, 5, 10, 20}

// recallSeed seeds the typos: the same file gives the same questions.
const recallSeed = 2024

// conversation is one LoCoMo conversation as kg holds it.
type conversation struct {
	sample    string
	turns     []turnNode
	questions []question
}

type turnNode struct{ id, gist string }

type question struct {
	text     string
	evidence []string // node ids
}

// turnID is the node id of a dia_id: lower-cased, ':' made '-' ("D1:3" is
// "d1-3"), an id that carries no word of the turn.
func turnID(dia string) string { return strings.ToLower(strings.ReplaceAll(dia, ":", "-")) }

// evidenceSplit splits an evidence entry that names several turns
// ("D8:6; D9:17").
var evidenceSplit = regexp.MustCompile(`[;\s]+`)

// loadLoCoMo reads LoCoMo's JSON: per conversation its turns (session_N
// lists) and its questions of categories 1–4 whose evidence names a turn.
func loadLoCoMo(path string) ([]conversation, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string   `json:"question"`
			Evidence []string `json:"evidence"`
			Category int      `json:"category"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var convs []conversation
	for _, d := range doc {
		c := conversation{sample: d.SampleID}
		sessions := make([]int, 0, len(d.Conversation))
		for k := range d.Conversation {
			if n, ok := strings.CutPrefix(k, "session_"); ok {
				if i, err := strconv.Atoi(n); err == nil {
					sessions = append(sessions, i)
				}
			}
		}
		slices.Sort(sessions)
		ids := map[string]bool{}
		for _, s := range sessions {
			var turns []struct {
				Speaker string `json:"speaker"`
				DiaID   string `json:"dia_id"`
				Text    string `json:"text"`
				Caption string `json:"blip_caption"`
			}
			if err := json.Unmarshal(d.Conversation["session_"+strconv.Itoa(s)], &turns); err != nil {
				return nil, fmt.Errorf("%s: %s session_%d: %w", path, d.SampleID, s, err)
			}
			for _, t := range turns {
				gist := t.Speaker + ": " + t.Text
				if t.Caption != "" {
					gist += " [image: " + t.Caption + "]"
				}
				c.turns = append(c.turns, turnNode{turnID(t.DiaID), strings.Join(strings.Fields(gist), " ")})
				ids[t.DiaID] = true
			}
		}
		for _, q := range d.QA {
			if q.Category < 1 || q.Category > 4 {
				continue
			}
			var ev []string
			for _, e := range q.Evidence {
				for _, dia := range evidenceSplit.Split(e, -1) {
					if ids[dia] {
						ev = append(ev, turnID(dia))
					}
				}
			}
			if len(ev) > 0 {
				c.questions = append(c.questions, question{q.Question, ev})
			}
		}
		convs = append(convs, c)
	}
	return convs, nil
}

// withTypo returns q with one typo: in one of its words of five letters or
// more (the words a correction is for, docs/design/mcp.md#kg_search),
// chosen at random, one edit at a random place: a letter deleted, inserted,
// replaced or swapped with the next. A question with no such word is
// returned as it is.
func withTypo(r *rand.Rand, q string) string {
	words := strings.Fields(q)
	var long []int
	for i, w := range words {
		if utf8.RuneCountInString(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })) >= 5 {
			long = append(long, i)
		}
	}
	if len(long) == 0 {
		return q
	}
	i := long[r.IntN(len(long))]
	w := []rune(words[i])
	var letters []int // positions of letters: the edit stays inside the word
	for j, c := range w {
		if unicode.IsLetter(c) {
			letters = append(letters, j)
		}
	}
	at := letters[r.IntN(len(letters))]
	other := func(not rune) rune {
		for {
			if c := rune('a' + r.IntN(26)); c != unicode.ToLower(not) {
				return c
			}
		}
	}
	switch r.IntN(4) {
	case 0:
		w = slices.Delete(w, at, at+1)
	case 1:
		w = slices.Insert(w, at, other(w[at]))
	case 2:
		w[at] = other(w[at])
	default:
		if at+1 < len(w) && unicode.IsLetter(w[at+1]) && w[at] != w[at+1] {
			w[at], w[at+1] = w[at+1], w[at]
		} else {
			w[at] = other(w[at])
		}
	}
	words[i] = string(w)
	return strings.Join(words, " ")
}

// recall counts, over the questions asked, those with an evidence turn
// among the first k hits, for each k of recallKs.
type recall struct {
	asked int
	found [len(recallKs)]int
}

func (r *recall) add(hits []string, evidence []string) {
	r.asked++
	for ki, k := range recallKs {
		for _, id := range hits[:min(k, len(hits))] {
			if slices.Contains(evidence, id) {
				r.found[ki]++
				break
			}
		}
	}
}

// at returns recall@recallKs[ki] in percent.
func (r recall) at(ki int) float64 {
	if r.asked == 0 {
		return 0
	}
	return 100 * float64(r.found[ki]) / float64(r.asked)
}

// recallResult is what a run measured.
type recallResult struct {
	conversations, turns int
	clean, typo          recall
}

// runRecall loads every conversation into the server at mcpURL (its REST
// API beside it) under root and asks every question, clean and with a typo.
func runRecall(ctx context.Context, mcpURL, root string, convs []conversation) (recallResult, error) {
	res := recallResult{conversations: len(convs)}
	r := rand.New(rand.NewPCG(recallSeed, recallSeed))
	for _, c := range convs {
		project := filepath.Join(root, c.sample)
		d := newKGDriver(mcpURL, project, 1)
		if err := importTurns(ctx, d, project, c.turns); err != nil {
			return res, fmt.Errorf("%s: %w", c.sample, err)
		}
		res.turns += len(c.turns)
		conn, err := d.Connect(ctx)
		if err != nil {
			return res, fmt.Errorf("%s: %w", c.sample, err)
		}
		k := conn.(*kgConn)
		for _, q := range c.questions {
			for _, asked := range []struct {
				text string
				into *recall
			}{{q.text, &res.clean}, {withTypo(r, q.text), &res.typo}} {
				hits, err := k.searchIDs(ctx, asked.text)
				if err != nil {
					_ = conn.Close()
					return res, fmt.Errorf("%s: %q: %w", c.sample, asked.text, err)
				}
				asked.into.add(hits, q.evidence)
			}
		}
		if err := conn.Close(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// searchIDs asks kg_search for query in the session's graphs (limit 20) and
// returns the ids of the hits, best first.
func (k *kgConn) searchIDs(ctx context.Context, query string) ([]string, error) {
	text, err := k.call(ctx, "kg_search", map[string]any{"session_id": k.session, "query": query, "limit": recallKs[len(recallKs)-1]})
	if err != nil {
		return nil, err
	}
	// Each hit is a line "  [where] id (tier, score …)"
	// (docs/design/mcp.md#kg_search).
	var ids []string
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "  ["); ok {
			_, hit, _ := strings.Cut(rest, "] ")
			id, _, _ := strings.Cut(hit, " ")
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// importTurns writes the turns as the project graph of project through
// POST /api/import, one export document (docs/decisions/0020-export-document.md).
func importTurns(ctx context.Context, d *kgDriver, project string, turns []turnNode) error {
	type node struct {
		ID   string `json:"id"`
		Gist string `json:"gist"`
	}
	doc := struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		Nodes   []node `json:"nodes"`
	}{Format: "kg-graph", Version: 1}
	for _, t := range turns {
		doc.Nodes = append(doc.Nodes, node{t.id, t.gist})
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	u, err := url.Parse(d.url)
	if err != nil {
		return err
	}
	u = u.JoinPath("api", "import")
	u.RawQuery = url.Values{"level": {"project"}, "project_path": {project}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.http.Do(req)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return fmt.Errorf("import: %s: %s", resp.Status, msg)
	}
	return nil
}

// recallFloors are the least recall a run may measure (--floor).
type recallFloors struct{ clean, typo [len(recallKs)]float64 }

// parseFloors reads --floor: comma-separated r<k>=<percent> for clean
// questions and typo-r<k>=<percent> for those with a typo, e.g.
// "r5=61,r20=73,typo-r5=58".
func parseFloors(s string) (recallFloors, error) {
	var f recallFloors
	if s == "" {
		return f, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		pct, err := strconv.ParseFloat(val, 64)
		if !ok || err != nil || pct < 0 || pct > 100 {
			return f, fmt.Errorf("--floor %q: want r<k>=<percent> or typo-r<k>=<percent>, k one of 1, 5, 10, 20", part)
		}
		into := &f.clean
		if rest, typo := strings.CutPrefix(name, "typo-"); typo {
			name, into = rest, &f.typo
		}
		ki := slices.IndexFunc(recallKs[:], func(k int) bool { return name == "r"+strconv.Itoa(k) })
		if ki < 0 {
			return f, fmt.Errorf("--floor %q: want r<k>=<percent> or typo-r<k>=<percent>, k one of 1, 5, 10, 20", part)
		}
		into[ki] = pct
	}
	return f, nil
}

// reportRecall prints the figures and each floor; it returns false when a
// figure is under its floor.
func reportRecall(w io.Writer, res recallResult, floors recallFloors) bool {
	fmt.Fprintf(w, "%-10s %6s %6s %6s %6s\n", "", "R@1", "R@5", "R@10", "R@20")
	ok := true
	for _, row := range []struct {
		name  string
		r     recall
		floor [len(recallKs)]float64
	}{{"clean", res.clean, floors.clean}, {"one typo", res.typo, floors.typo}} {
		fmt.Fprintf(w, "%-10s", row.name)
		for ki := range recallKs {
			fmt.Fprintf(w, " %6.1f", row.r.at(ki))
		}
		fmt.Fprintf(w, "   (%d questions)\n", row.r.asked)
		for ki, k := range recallKs {
			if fl := row.floor[ki]; fl > 0 {
				verdict := "met"
				if row.r.at(ki) < fl {
					verdict, ok = "NOT MET", false
				}
				fmt.Fprintf(w, "  floor %s R@%d >= %.1f: %s\n", row.name, k, fl, verdict)
			}
		}
	}
	return ok
}
