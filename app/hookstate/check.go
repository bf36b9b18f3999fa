package hookstate

import (
	"strings"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
)

// CheckString refuses a hook field that is too long or holds control
// characters, naming it: the check of every string a hook route takes
// (docs/design/hooks.md), and of kg_useful's ids, which the session's hook
// state keeps.
func CheckString(field, v string, limit int) error {
	if !utf8.ValidString(v) {
		return domain.Invalidf(field, "must be valid UTF-8")
	}
	if n := utf8.RuneCountInString(v); n > limit {
		return domain.Invalidf(field, "%d chars, limit %d", n, limit)
	}
	if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return domain.Invalidf(field, "must not hold control characters")
	}
	return nil
}
