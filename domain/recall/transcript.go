package recall

import "regexp"

// MaxTranscriptTail is how much of the end of a transcript a session start
// reads for the session id it names (docs/design/hooks.md#session-binding).
const MaxTranscriptTail = 4 << 20

// transcriptSessionID finds a kg session id where a transcript names one: a
// kg_* call's "session_id" argument (JSON, maybe escaped inside a string),
// the "session_id: …" of a preload's header, the "Session: …" line a tool
// result ends with. An id is 16 lowercase hex characters, or 8 (a session of
// the replaced server).
var transcriptSessionID = regexp.MustCompile(`(?:session_id|Session|session)(?:\\?")?\s*[:=]\s*(?:\\?")?([0-9a-f]{16}|[0-9a-f]{8})(?:[^0-9a-f]|$)`)

// TranscriptSessionIDs returns the kg session ids a transcript's text names,
// the last named first, each once. Regular expressions of Go run in linear
// time, so a tail of any size costs O(len).
func TranscriptSessionIDs(tail []byte) []string {
	ms := transcriptSessionID.FindAllSubmatch(tail, -1)
	seen := map[string]bool{}
	var out []string
	for i := len(ms) - 1; i >= 0; i-- {
		id := string(ms[i][1])
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
