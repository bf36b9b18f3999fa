package domain

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits checked on every write (model.md). Lengths count Unicode code
// points. Lookups accept any stored id, so these apply to new input only.
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
	if hasControl(end) {
		return Invalidf(field, "must not contain control characters")
	}
	if strings.TrimSpace(end) != end {
		return Invalidf(field, "must not start or end with white space")
	}
	return nil
}

// NormalizeGist trims a gist and checks it: 1–1000 chars on one line.
func NormalizeGist(gist string) (string, error) {
	const field = "gist"
	if err := validateString(field, gist); err != nil {
		return "", err
	}
	g := strings.TrimSpace(gist)
	if g == "" {
		return "", Invalidf(field, "must not be empty")
	}
	if strings.ContainsAny(g, "\r\n") {
		return "", Invalidf(field, "must be one line; put details in notes")
	}
	if n := utf8.RuneCountInString(g); n > MaxGistLen {
		return "", tooLong(field, n, MaxGistLen, "chars")
	}
	return g, nil
}

// ValidateNotes checks a notes list: at most 50 items of 1–4000 chars.
func ValidateNotes(field string, notes []string) error {
	if len(notes) > MaxNotes {
		return tooLong(field, len(notes), MaxNotes, "items")
	}
	for i, s := range notes {
		f := itemField(field, i)
		if err := validateString(f, s); err != nil {
			return err
		}
		n := utf8.RuneCountInString(s)
		if n == 0 {
			return Invalidf(f, "must not be empty")
		}
		if n > MaxNoteLen {
			return tooLong(f, n, MaxNoteLen, "chars")
		}
	}
	return nil
}

// ValidateTouches checks a touches list: at most 50 items of 1–512 chars with
// no control characters.
func ValidateTouches(field string, touches []string) error {
	if len(touches) > MaxTouches {
		return tooLong(field, len(touches), MaxTouches, "items")
	}
	for i, s := range touches {
		f := itemField(field, i)
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
		if hasControl(s) {
			return Invalidf(f, "must not contain control characters")
		}
	}
	return nil
}

// ValidateProgressState checks a progress state: a JSON object of at most
// 64 KiB.
func ValidateProgressState(field string, state []byte) error {
	if len(state) > MaxProgressBytes {
		return tooLong(field, len(state), MaxProgressBytes, "bytes")
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

// ValidateQuery checks a search query: 1–1000 chars.
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
	return nil
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

func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

func itemField(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}
