// Package capture decides when an agent about to stop is asked to record
// what it learned (docs/design/hooks.md#capture-before-forgetting): the rules
// (Decide, pure) and the small state they read (Book: what each
// conversation's tool events showed and when it began, which kg sessions
// wrote, when each person last wrote to each project, when each project was
// last asked). It imports nothing of app
// (docs/decisions/0099-app-leaf-packages.md); the state lives in memory only,
// like the tool events it counts.
package capture

import (
	"sync"

	"github.com/kg-memory/kg/domain"
)

// Mode is KG_CAPTURE: whether a stop may ask at all.
type Mode string

const (
	Ask Mode = "ask" // the default
	Off Mode = "off"
)

// ParseMode reads a KG_CAPTURE value.
func ParseMode(field, v string) (Mode, error) {
	switch Mode(v) {
	case Ask, Off:
		return Mode(v), nil
	case "":
		return Ask, nil
	}
	return "", domain.Invalidf(field, "%q: want ask or off", v)
}

// Outcome is what a stop came to: the label of
// kg_capture_requests_total{outcome}.
type Outcome string

const (
	Asked     Outcome = "asked"     // the model was asked
	Disabled  Outcome = "off"       // KG_CAPTURE=off
	Looping   Outcome = "active"    // the agent said its stop hook is already active
	Repeat    Outcome = "repeat"    // this conversation was asked before
	NoWork    Outcome = "no_work"   // no edit, and fewer than MinTools tools
	Wrote     Outcome = "wrote"     // the conversation wrote to kg (Stop.Wrote)
	Throttled Outcome = "throttled" // the project was asked less than ProjectGap ago
)

// Outcomes are every Outcome, for metrics that start each series at 0.
var Outcomes = []Outcome{Asked, Disabled, Looping, Repeat, NoWork, Wrote, Throttled}

const (
	// MinTools is how many tools a conversation runs to have done work
	// without an edit.
	MinTools = 3
	// ProjectGap is the least time between two asks in one project,
	// whatever the conversation.
	ProjectGap = 3600 * domain.Second
	// maxEntries bounds each of the Book's tables; past it the least
	// recently seen entry goes.
	maxEntries = 10_000
)

// Work is what one conversation's tool events showed.
type Work struct {
	Tools int  // tool events seen
	Edits int  // of them, edits or writes of files
	Asked bool // the conversation was asked once already
}

// Did reports whether the conversation did work: edited or wrote a file,
// or ran MinTools tools or more.
func (w Work) Did() bool { return w.Edits > 0 || w.Tools >= MinTools }

// Stop is what the rule reads at one stop.
type Stop struct {
	Mode   Mode
	Active bool // the agent's stop_hook_active: this stop follows a stop hook's block
	Work   Work
	// Wrote: the conversation's kg session wrote to kg, or its person
	// wrote to its project after it began (Book.Stop).
	Wrote   bool
	LastAsk domain.Micros // when the project was last asked; 0: never
	Now     domain.Micros
}

// Decide is the rule of a stop: ask only when capture is on, the agent is
// not already continuing for a stop hook, the conversation was not asked
// before, did work, wrote nothing to kg, and the project was not asked in
// the last ProjectGap. The checks go from the cheapest to tell to the one
// the person sees least.
func Decide(s Stop) Outcome {
	switch {
	case s.Mode == Off:
		return Disabled
	case s.Active:
		return Looping
	case s.Work.Asked:
		return Repeat
	case !s.Work.Did():
		return NoWork
	case s.Wrote:
		return Wrote
	case s.LastAsk != 0 && s.Now-s.LastAsk < ProjectGap:
		return Throttled
	}
	return Asked
}

// Edits are the tools whose use is an edit or a write of a file, by Claude
// Code's names (kg hook names other agents' tools so: docs/clients.md).
var Edits = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true}

// Book is the state the rule reads, in memory, safe for concurrent use.
type Book struct {
	mu       sync.Mutex
	convs    map[string]*conv         // by the agent's session id
	wrote    map[string]domain.Micros // kg session id → last write
	written  map[string]domain.Micros // writtenKey(project, owner) → last write
	projects map[string]domain.Micros // project → last ask
}

type conv struct {
	Work
	first domain.Micros // the conversation's first hook event
	seen  domain.Micros // its last
}

// NewBook returns an empty book.
func NewBook() *Book {
	return &Book{convs: map[string]*conv{}, wrote: map[string]domain.Micros{},
		written: map[string]domain.Micros{}, projects: map[string]domain.Micros{}}
}

// Began records a hook event of the conversation conversation at now that
// is no tool event (a session start, a prompt): the start of the window in
// which a write to its project counts as its own (Book.Stop). A
// conversation with no id is not counted.
func (b *Book) Began(conversation string, now domain.Micros) {
	if conversation == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.convLocked(conversation, now)
}

// Tool records a tool event of the conversation conversation at now: tool
// is its name as Claude Code names it. A conversation with no id is not
// counted.
func (b *Book) Tool(conversation, tool string, now domain.Micros) {
	if conversation == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.convLocked(conversation, now)
	c.Tools++
	if Edits[tool] {
		c.Edits++
	}
}

// Wrote records a write to kg at now by the kg session session, of the
// person owner ("" outside team mode), to the graph of project ("" for a
// user graph).
func (b *Book) Wrote(session, project, owner string, now domain.Micros) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if session != "" {
		setLatest(b.wrote, session, now)
	}
	if project != "" {
		setLatest(b.written, writtenKey(project, owner), now)
	}
}

// writtenKey is the key of the written table: a project and a person.
func writtenKey(project, owner string) string { return project + "\x00" + owner }

// setLatest sets m[k] to now unless it holds a later time, making room
// when k is new and m is full.
func setLatest(m map[string]domain.Micros, k string, now domain.Micros) {
	if _, ok := m[k]; !ok && len(m) >= maxEntries {
		dropOldest(m)
	}
	m[k] = max(m[k], now)
}

// StopAt is one stop as the hook route sees it.
type StopAt struct {
	Mode         Mode
	Conversation string // the agent's session id
	Session      string // the kg session bound to it; "" for none
	Project      string
	Owner        string // the person whose conversation it is; "" outside team mode
	Active       bool
	Now          domain.Micros
}

// Stop decides a stop and, when it asks, records the ask: the
// conversation is not asked again, nor the project within ProjectGap.
func (b *Book) Stop(s StopAt) Outcome {
	b.mu.Lock()
	defer b.mu.Unlock()
	var w Work
	c := b.convs[s.Conversation]
	if c != nil && s.Conversation != "" {
		w = c.Work
	}
	out := Decide(Stop{Mode: s.Mode, Active: s.Active, Work: w, Wrote: b.wroteLocked(s, c),
		LastAsk: b.projects[s.Project], Now: s.Now})
	if out == Asked {
		b.convLocked(s.Conversation, s.Now).Asked = true
		if _, ok := b.projects[s.Project]; !ok && len(b.projects) >= maxEntries {
			dropOldest(b.projects)
		}
		b.projects[s.Project] = s.Now
	}
	return out
}

// wroteLocked reports whether the conversation c of stop s wrote to kg:
// through the kg session bound to it, or — a model that called kg's tools
// with its cwd gets a kg session no conversation is bound to — by the same
// person to the conversation's project after the conversation's first hook
// event (docs/decisions/0109-capture-counts-project-writes.md); b.mu held.
func (b *Book) wroteLocked(s StopAt, c *conv) bool {
	if _, ok := b.wrote[s.Session]; ok && s.Session != "" {
		return true
	}
	if c == nil || s.Conversation == "" || s.Project == "" {
		return false
	}
	at, ok := b.written[writtenKey(s.Project, s.Owner)]
	return ok && at > c.first
}

// convLocked returns the conversation's entry, making it, and records a
// hook event of it at now; b.mu held.
func (b *Book) convLocked(id string, now domain.Micros) *conv {
	c := b.convs[id]
	if c == nil {
		if len(b.convs) >= maxEntries {
			b.dropOldestConv()
		}
		c = &conv{first: now}
		b.convs[id] = c
	}
	c.first = min(c.first, now)
	c.seen = max(c.seen, now)
	return c
}

func (b *Book) dropOldestConv() {
	var oldest string
	var at domain.Micros
	for k, c := range b.convs {
		if oldest == "" || c.seen < at || c.seen == at && k < oldest {
			oldest, at = k, c.seen
		}
	}
	delete(b.convs, oldest)
}

func dropOldest(m map[string]domain.Micros) {
	var oldest string
	var at domain.Micros
	for k, t := range m {
		if oldest == "" || t < at || t == at && k < oldest {
			oldest, at = k, t
		}
	}
	delete(m, oldest)
}
