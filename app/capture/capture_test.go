package capture

import (
	"fmt"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestDecide(t *testing.T) {
	const now = 100 * ProjectGap
	edited := Work{Tools: 1, Edits: 1}
	for _, c := range []struct {
		name string
		s    Stop
		want Outcome
	}{
		{"edited, wrote nothing", Stop{Work: edited, Now: now}, Asked},
		{"three tools", Stop{Mode: Ask, Work: Work{Tools: 3}, Now: now}, Asked},
		{"two tools", Stop{Work: Work{Tools: 2}, Now: now}, NoWork},
		{"off", Stop{Mode: Off, Work: edited, Now: now}, Disabled},
		{"stop hook active", Stop{Active: true, Work: edited, Now: now}, Looping},
		{"asked before", Stop{Work: Work{Edits: 1, Asked: true}, Now: now}, Repeat},
		{"wrote", Stop{Work: edited, Wrote: true, Now: now}, Wrote},
		{"project asked 59 min ago", Stop{Work: edited, LastAsk: now - ProjectGap + 60*domain.Second, Now: now}, Throttled},
		{"project asked an hour ago", Stop{Work: edited, LastAsk: now - ProjectGap, Now: now}, Asked},
	} {
		if got := Decide(c.s); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Ask, "ask": Ask, "off": Off} {
		if got, err := ParseMode("capture", in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("capture", "never"); err == nil || err.Error() == "" {
		t.Error("never: no error")
	}
}

func TestBookKeepsItsTablesBounded(t *testing.T) {
	b := NewBook()
	for i := range maxEntries + 10 {
		b.Tool(fmt.Sprintf("conv-%d", i), "Edit", domain.Micros(i+1))
		b.Wrote(fmt.Sprintf("s-%d", i), fmt.Sprintf("/p%d", i), "", domain.Micros(i+1))
	}
	if len(b.convs) != maxEntries || len(b.wrote) != maxEntries || len(b.written) != maxEntries {
		t.Fatalf("%d conversations, %d writers, %d written projects: want %d each",
			len(b.convs), len(b.wrote), len(b.written), maxEntries)
	}
	if _, ok := b.convs["conv-0"]; ok {
		t.Error("the least recently seen conversation was kept")
	}
	if _, ok := b.convs[fmt.Sprintf("conv-%d", maxEntries+9)]; !ok {
		t.Error("the newest conversation was dropped")
	}
}

func TestBookStopRecordsAnAskOnly(t *testing.T) {
	b := NewBook()
	b.Tool("c1", "Read", 1)
	if out := b.Stop(StopAt{Conversation: "c1", Project: "/p", Now: 2}); out != NoWork {
		t.Fatalf("%s, want no_work", out)
	}
	if _, ok := b.projects["/p"]; ok {
		t.Error("a stop that asked nothing throttles the project")
	}
	b.Tool("c1", "Write", 3)
	if out := b.Stop(StopAt{Conversation: "c1", Project: "/p", Now: 4}); out != Asked {
		t.Fatalf("%s, want asked", out)
	}
	if out := b.Stop(StopAt{Conversation: "c1", Project: "/p", Now: 4 + ProjectGap}); out != Repeat {
		t.Errorf("%s, want repeat", out)
	}
	if out := b.Stop(StopAt{Conversation: "", Project: "/q", Now: 5}); out != NoWork {
		t.Errorf("a stop with no conversation id: %s, want no_work", out)
	}
}

func TestBookCountsAWriteToTheProjectByTheSamePersonSinceTheConversationBegan(t *testing.T) {
	stop := func(b *Book, owner string) Outcome {
		return b.Stop(StopAt{Conversation: "c1", Project: "/p", Owner: owner, Now: 100})
	}
	for _, c := range []struct {
		name  string
		write func(b *Book)
		want  Outcome
	}{
		{"no write", func(*Book) {}, Asked},
		{"by an unbound session, after the start", func(b *Book) { b.Wrote("s-cwd", "/p", "ann", 20) }, Wrote},
		{"just after the start", func(b *Book) { b.Wrote("s-cwd", "/p", "ann", 11) }, Wrote},
		{"at the instant of the start", func(b *Book) { b.Wrote("s-cwd", "/p", "ann", 10) }, Asked},
		{"before the start", func(b *Book) { b.Wrote("s-cwd", "/p", "ann", 9) }, Asked},
		{"to another project", func(b *Book) { b.Wrote("s-cwd", "/q", "ann", 20) }, Asked},
		{"by another person", func(b *Book) { b.Wrote("s-cwd", "/p", "bob", 20) }, Asked},
		{"to a user graph", func(b *Book) { b.Wrote("s-cwd", "", "ann", 20) }, Asked},
	} {
		b := NewBook()
		b.Began("c1", 10) // the session start
		b.Tool("c1", "Edit", 30)
		c.write(b)
		if got := stop(b, "ann"); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
