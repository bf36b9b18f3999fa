package mcp

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Appending JSON by hand, for the one answer whose encoding is on the hot
// path: kg_search's twenty hits, each with its gist and notes, are most of
// the bytes a search returns, and encoding them by reflection cost about
// what the search of a median query does (docs/performance.md#search-through-the-client).
// Each function writes exactly what encoding/json writes for the same value
// (HTML characters escaped, invalid UTF-8 replaced, U+2028 and U+2029
// escaped), so a hand-encoded answer is byte for byte json.Marshal's;
// TestSearchOutputJSONIsEncodingJSONs holds them together.

const hexDigits = "0123456789abcdef"

// jsonPlain marks the ASCII bytes encoding/json writes as they are in a
// string with HTML escaping on: from space up (DEL included), but for
// " \ < > &.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for b := byte(0x20); b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendJSONString appends s as a JSON string, as encoding/json does.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonPlain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default: // other control bytes, and < > & (HTML escaping)
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendJSONStringsOrNull appends ss as a JSON array of strings, nil as
// null (the outputs never hold a nil list: nonNil).
func appendJSONStringsOrNull(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	return appendJSONStrings(dst, ss)
}

// appendJSONStrings appends ss as a JSON array of strings.
func appendJSONStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, s)
	}
	return append(dst, ']')
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest form that reads back as f, in exponent form below 1e-6 and from
// 1e21. f must be finite, as a score is.
func appendJSONFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
