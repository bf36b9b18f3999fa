package domain

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain/search"
)

// Limits checked on every write (docs/design/model.md#identifiers-and-limits).
// Lengths count Unicode code points. Lookups accept any stored id, so these
// apply to new input only.
const (
	MaxIDLen          = 128      // node id, progress task id
	MaxRelLen         = 64       // edge rel
	MaxRefLen         = 512      // an edge end that is not a valid node id
	MaxGistLen        = 1000     // gist, after trimming
	MaxNotes          = 50       // items in notes
	MaxNoteLen        = 4000     // chars in one note
	MaxTouches        = 50       // items in touches
	MaxTouchLen       = 512      // chars in one touch
	MaxProgressBytes  = 64 << 10 // a progress state, as JSON
	MaxProgressDepth  = 64       // levels of objects and lists nested in a progress state, itself included
	MaxQueryLen       = 1000     // a search query
	MaxBodyBytes      = 1 << 20  // a request body
	MaxImportBodySize = 64 << 20 // the body of POST /api/import
	MaxSearchLimit    = 100      // kg_search limit
	DefaultSearchLim  = 20       // kg_search default limit
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidateID checks a node id or a progress task id: 1–128 chars of
// idPattern.
func ValidateID(field, id string) error { return validateName(field, id, MaxIDLen) }

// ValidateRel checks an edge relationship name: 1–64 chars of idPattern.
func ValidateRel(field, rel string) error { return validateName(field, rel, MaxRelLen) }

// validateName checks a name made of idPattern (an id, a task id, a rel)
// of at most limit chars.
func validateName(field, name string, limit int) error {
	if err := validateString(field, name); err != nil {
		return err
	}
	n := utf8.RuneCountInString(name)
	if n == 0 {
		return Invalidf(field, "must not be empty")
	}
	if n > limit {
		return tooLong(field, n, limit, "chars")
	}
	if !idPattern.MatchString(name) {
		return Invalidf(field, "%q must start with a letter or digit and contain only letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// ValidateEnd checks an edge end: a valid node id, or a reference (file
// path, URL, artifact) of 1–512 chars with no control characters and no
// leading or trailing space.
func ValidateEnd(field, end string) error {
	if err := validateString(field, end); err != nil {
		return err
	}
	if idPattern.MatchString(end) && utf8.RuneCountInString(end) <= MaxIDLen {
		return nil
	}
	n := utf8.RuneCountInString(end)
	if n == 0 {
		return Invalidf(field, "must not be empty")
	}
	if n > MaxRefLen {
		return tooLong(field, n, MaxRefLen, "chars")
	}
	if err := validateOneLine(field, end); err != nil {
		return err
	}
	if strings.TrimSpace(end) != end {
		return Invalidf(field, "must not start or end with white space")
	}
	return nil
}

// NormalizeGist trims a gist and checks it: 1–1000 chars on one line, with
// no control characters. A gist is shown in every full read, in an agent's
// context and on terminals, so it may break no line there (no Unicode line
// or paragraph separator: LF, VT, FF, CR, NEL, U+2028, U+2029) and carry no
// escape sequence (no C0, DEL or C1 character, ESC included).
func NormalizeGist(gist string) (string, error) {
	const field = "gist"
	if err := validateString(field, gist); err != nil {
		return "", err
	}
	g := strings.TrimSpace(gist)
	if g == "" {
		return "", Invalidf(field, "must not be empty")
	}
	if strings.IndexFunc(g, isLineBreak) >= 0 {
		return "", Invalidf(field, "must be one line; put details in notes")
	}
	if hasControl(g) {
		return "", Invalidf(field, "must not contain control characters (such as tab or escape)")
	}
	if n := utf8.RuneCountInString(g); n > MaxGistLen {
		return "", tooLong(field, n, MaxGistLen, "chars")
	}
	return g, nil
}

// NormalizeNotes checks a notes list, at most 50 items of 1–4000 chars,
// and returns it with each Windows line break (CR LF) made a newline (LF).
// A note may span lines and hold tabs, but no other control character: no
// escape sequence reaches a terminal or an agent's context through it.
// Text pasted from a Windows file breaks its lines with CR LF, which means
// nothing but a line break, so it is taken as one; a lone CR is refused, as
// on a terminal it moves back to the start of the line and the text after
// it overwrites the text before. A nil list stays nil (omitted); the list
// given is never modified.
func NormalizeNotes(field string, notes []string) ([]string, error) {
	if len(notes) > MaxNotes {
		return nil, tooLong(field, len(notes), MaxNotes, "items")
	}
	out, copied := notes, false
	for i, s := range notes {
		f := ItemField(field, i)
		if err := validateString(f, s); err != nil {
			return nil, err
		}
		if strings.Contains(s, "\r\n") {
			if !copied {
				out, copied = slices.Clone(notes), true
			}
			s = strings.ReplaceAll(s, "\r\n", "\n")
			out[i] = s
		}
		n := utf8.RuneCountInString(s)
		if n == 0 {
			return nil, Invalidf(f, "must not be empty")
		}
		if n > MaxNoteLen {
			return nil, tooLong(f, n, MaxNoteLen, "chars")
		}
		if strings.ContainsRune(s, '\r') {
			return nil, Invalidf(f, `must not contain a carriage return (\r) outside a \r\n line break: a lone \r makes a terminal write over the line; break lines with \n`)
		}
		if strings.IndexFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) }) >= 0 {
			return nil, Invalidf(f, "must not contain control characters other than newline and tab")
		}
	}
	return out, nil
}

// ValidateTouches checks a touches list: at most 50 items of 1–512 chars with
// no control characters and no line or paragraph separators.
func ValidateTouches(field string, touches []string) error {
	if len(touches) > MaxTouches {
		return tooLong(field, len(touches), MaxTouches, "items")
	}
	for i, s := range touches {
		f := ItemField(field, i)
		if err := validateString(f, s); err != nil {
			return err
		}
		n := utf8.RuneCountInString(s)
		if n == 0 {
			return Invalidf(f, "must not be empty")
		}
		if n > MaxTouchLen {
			return tooLong(f, n, MaxTouchLen, "chars")
		}
		if err := validateOneLine(f, s); err != nil {
			return err
		}
	}
	return nil
}

// ValidateProgressState checks a progress state: a JSON object of at most
// 64 KiB, nested at most 64 levels deep. The depth bounds what any indented
// rendering of the state costs (an export document, kg_progress's text):
// each level adds indentation to every line inside it, and a 12 KB state
// 6,000 levels deep rendered as 69 MiB
// (docs/decisions/0048-progress-states-on-one-line-and-at-most-64-levels-deep.md).
func ValidateProgressState(field string, state []byte) error {
	if len(state) > MaxProgressBytes {
		return tooLong(field, len(state), MaxProgressBytes, "bytes")
	}
	if d := jsonDepth(state); d > MaxProgressDepth {
		return &Error{Kind: KindInvalid, Field: field, Limit: MaxProgressDepth,
			Msg: fmt.Sprintf("nested %d levels deep, limit %d", d, MaxProgressDepth)}
	}
	if !json.Valid(state) {
		return Invalidf(field, "must be a JSON object")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(state, &obj); err != nil || obj == nil {
		return Invalidf(field, "must be a JSON object")
	}
	return nil
}

// jsonDepth returns how deep objects and lists nest in b, read as JSON
// text: {} is 1, {"a":[1]} is 2. Brackets inside strings do not count.
func jsonDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// ValidateQuery checks a search query: 1–1000 chars, holding at least one
// term (docs/design/mcp.md#kg_search).
func ValidateQuery(field, q string) error {
	if err := validateString(field, q); err != nil {
		return err
	}
	n := utf8.RuneCountInString(q)
	if strings.TrimSpace(q) == "" {
		return Invalidf(field, "must not be empty")
	}
	if n > MaxQueryLen {
		return tooLong(field, n, MaxQueryLen, "chars")
	}
	if len(search.Terms(q)) == 0 {
		return Invalidf(field, "%q holds no word to search for: only punctuation", q)
	}
	return nil
}

// MaxProjectKeyLen is the longest project key (team mode).
const MaxProjectKeyLen = 512

// ValidateProjectKey checks a project key (docs/design/team.md#project-keys):
// 1 to 512 characters, no control character, no white space at either end,
// and not an absolute path (a key names a project wherever it is checked
// out).
func ValidateProjectKey(field, key string) error {
	n := utf8.RuneCountInString(key)
	switch {
	case n == 0:
		return Invalidf(field, "empty; want a project key such as github.com/acme/api")
	case n > MaxProjectKeyLen:
		return tooLong(field, n, MaxProjectKeyLen, "chars")
	case !utf8.ValidString(key) || strings.IndexFunc(key, unicode.IsControl) >= 0:
		return Invalidf(field, "holds a control character or bytes that are not UTF-8")
	case strings.TrimSpace(key) != key:
		return Invalidf(field, "starts or ends with white space")
	case strings.HasPrefix(key, "/"):
		return Invalidf(field, "%q is a path; a project key names a project wherever it is checked out, e.g. github.com/acme/api", key)
	}
	return nil
}

// ValidateProjectPath checks the characters of a project path a client
// gives (cwd, project_path): valid UTF-8, no NUL, no control characters and
// no line or paragraph separators, so that no such path is stored, keyed
// on or echoed into an agent's context or a terminal. Whether it is
// absolute is the path resolver's to say. Stored paths are not checked
// again: they still load.
func ValidateProjectPath(field, p string) error {
	if err := validateString(field, p); err != nil {
		return err
	}
	return validateOneLine(field, p)
}

// validateOneLine is the rule for a string that names one thing on one
// line (a touch, an edge end, a path): no control characters (C0, DEL, C1,
// which hold every line break but two) and neither of those two, the line
// and paragraph separators U+2028 and U+2029.
func validateOneLine(field, s string) error {
	if hasControl(s) {
		return Invalidf(field, "must not contain control characters")
	}
	if strings.ContainsAny(s, "\u2028\u2029") {
		return Invalidf(field, "must not contain line or paragraph separators (U+2028, U+2029)")
	}
	return nil
}

// isLineBreak reports whether r breaks a line: the mandatory breaks of
// Unicode line breaking (LF, VT, FF, CR, NEL, U+2028, U+2029).
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\v', '\f', '\r', '\u0085', '\u2028', '\u2029':
		return true
	}
	return false
}

// validateString applies the rule for any string: valid UTF-8, no NUL.
func validateString(field, s string) error {
	if !utf8.ValidString(s) {
		return Invalidf(field, "must be valid UTF-8")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return Invalidf(field, "must not contain NUL")
	}
	return nil
}

// hasControl reports whether s holds a control character: C0 (U+0000 to
// U+001F), DEL or C1 (U+0080 to U+009F).
func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

// ItemField names item i of the list field: "edges[3]".
func ItemField(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}
