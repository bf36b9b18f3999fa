package render

import (
	"fmt"
	"strconv"
	"strings"
)

// The texts of the Claude Code hooks: the recall above a prompt and the
// nudges (docs/design/hooks.md#recall). What they show is the hooks' choice (app/hooks).

// UserLabel marks a node of the user graph in a recall (Node.Label): most
// memory is the project's.
const UserLabel = "[user] "

// RecallEdgesHeader heads the edges of a recall.
const RecallEdgesHeader = "edges:\n"

// RecallHeader is the first line of a recall.
func RecallHeader(session string) string {
	return "kg recall (session_id " + session + "): memory related to this prompt, not yet in this conversation; " +
		"kg_read with ids shows a node in full.\n"
}

// ReadNudge is the full-read nudge of a prompt: it names the session to
// pass, when there is one ("" for none).
func ReadNudge(project, session string) string {
	if session == "" {
		return fmt.Sprintf("kg memory has not been read in this conversation. Call kg_read with cwd %q first: it returns "+
			"your memory of this project and a session_id to pass to every kg_* call.", project)
	}
	return fmt.Sprintf("kg memory has not been read in this conversation. Call kg_read with cwd %q and session_id %q "+
		"first: it returns your memory of this project. Pass that session_id to every kg_* call.", project, session)
}

// FileNudge is the tool-event nudge of a project file read in earlier
// conversations that no memory mentions.
func FileNudge(path, session string) string {
	return fmt.Sprintf("kg: %s has been read in earlier conversations too, and no memory mentions it. If you learned "+
		"something about it that a later session should know, record it with kg_put_node (session_id %q, touches [%q]).",
		path, session, path)
}

// URLNudge is the tool-event nudge of a URL fetched before that no memory
// mentions.
func URLNudge(url, session string) string {
	return fmt.Sprintf("kg: %s has been fetched before, and no memory mentions it. If what it says matters to this "+
		"project, record the gist with kg_put_node (session_id %q) so it need not be fetched again.", url, session)
}

// SearchNudge is the tool-event nudge of a web search made before that no
// memory mentions.
func SearchNudge(query, session string) string {
	return fmt.Sprintf("kg: the web has been searched for %q before, and no memory mentions it. If the answer matters to "+
		"this project, record it with kg_put_node (session_id %q) so it need not be searched again.", query, session)
}

// PreloadHeader is the first part of a preload's context: the session id
// and how to use what follows (docs/design/hooks.md#the-preload).
func PreloadHeader(session string) string {
	return fmt.Sprintf("kg memory preloaded. session_id: %s — pass it to every kg_* call. The active memory of the user graph "+
		"and of this project is below, already in your context: do not call kg_read for the full read. Call kg_read with "+
		"session_id and ids for a node's notes and edges, and kg_search to look up what is not shown here. Save what a later "+
		"session should know with kg_put_node, and mark the nodes that changed your work with kg_useful.", session)
}

// PreloadLeftOut is the line counting the active nodes a preload left out
// to fit its budget.
func PreloadLeftOut(n int) string {
	word := "nodes"
	if n == 1 {
		word = "node"
	}
	return "(" + strconv.Itoa(n) + " more active " + word + " not preloaded, to fit; kg_read shows them all)\n"
}

// ContinuityNote is the context of a resumed conversation whose session had
// its preload: the transcript still holds it.
func ContinuityNote(session string) string {
	return fmt.Sprintf("kg session %s continues: memory was preloaded earlier in this conversation. "+
		"Pass session_id %s to every kg_* call.", session, session)
}

// UsefulSummary is kg_useful's answer, "Marked useful: a, b (already
// marked: c)" (docs/design/hooks.md#kg_useful), from the ids newly marked
// and those marked before, each named once.
func UsefulSummary(marked, already []string) string {
	switch {
	case len(marked) == 0:
		return "Nothing newly marked (already marked: " + strings.Join(already, ", ") + ")"
	case len(already) == 0:
		return "Marked useful: " + strings.Join(marked, ", ")
	}
	return "Marked useful: " + strings.Join(marked, ", ") + " (already marked: " + strings.Join(already, ", ") + ")"
}

// CaptureMaxChars is the most characters a capture request holds, for a
// session id of kg's own (16 characters; docs/design/hooks.md#capture-before-forgetting).
const CaptureMaxChars = 400

// CaptureRequest is what a stop hook asks a session that did work and
// wrote nothing to kg: record what a future session on this project would
// need, with the session id, or stop.
func CaptureRequest(session string) string {
	return fmt.Sprintf("kg: before you stop: this session did work and saved nothing to kg memory. If a future session on "+
		"this project would need something you learned (a decision, a gotcha, a convention), record it now with "+
		"kg_put_node (session_id %q, level project, a short gist). If there is nothing worth keeping, just stop.", session)
}
