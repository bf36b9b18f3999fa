package codec

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
)

// A graph file is decoded in one pass by a small JSON parser that knows
// the format. A typed encoding/json decoder that keeps unknown fields has
// to split every node into a map of its fields and costs about seven times
// the CPU: over the 1.5 s load target at 100k nodes
// (docs/decisions/0010-json-md, with the measurements). The parser
// accepts exactly the JSON that encoding/json accepts, reads strings the
// same way (invalid UTF-8 and lone surrogates become U+FFFD), and keeps
// its semantics where a file is odd: a repeated key's last value wins, a
// null known field is absent, unknown top-level keys are ignored, and
// top-level and entry field names match case-insensitively as encoding/json
// matches struct fields. FuzzDecodeGraph holds it to that: on every input
// it must agree with the typed decoder of typed_test.go.

// maxDepth bounds nesting, as encoding/json does, so that a hostile file
// cannot exhaust the stack.
const maxDepth = 10000

var errEnd = errors.New("unexpected end of JSON input")

// parser reads JSON from b; i is the next byte.
type parser struct {
	b     []byte
	i     int
	depth int
	// sessions interns session names: thousands of version entries share a
	// handful of them.
	sessions map[string]string
}

func (p *parser) fail(context string) error {
	if p.i >= len(p.b) {
		return errEnd
	}
	return fmt.Errorf("invalid character %q %s (offset %d)", p.b[p.i], context, p.i)
}

// peek skips whitespace and returns the next byte, or 0 at the end.
func (p *parser) peek() byte {
	for p.i < len(p.b) {
		switch c := p.b[p.i]; c {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return c
		}
	}
	return 0
}

// lit consumes the literal word (true, false or null) at p.i.
func (p *parser) lit(word string) error {
	for j := range len(word) {
		if p.i >= len(p.b) {
			return errEnd
		}
		if p.b[p.i] != word[j] {
			return p.fail("in literal " + word)
		}
		p.i++
	}
	return nil
}

// null consumes a null, if that is what comes next.
func (p *parser) null() (bool, error) {
	if p.peek() != 'n' {
		return false, nil
	}
	return true, p.lit("null")
}

// plain marks the bytes that a string holds as they are: printable ASCII
// other than '"' and '\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// strSpan reads the string at p.i (a '"'). It returns its inside as in the
// file, and whether that must go through unquote (escapes, non-ASCII).
func (p *parser) strSpan() ([]byte, bool, error) {
	p.i++
	start := p.i
	esc := false
	for p.i < len(p.b) {
		c := p.b[p.i]
		if plain[c] {
			p.i++
			continue
		}
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s, esc, nil
		case c == '\\':
			esc = true
			p.i++
			if p.i >= len(p.b) {
				return nil, false, errEnd
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				p.i++
				for range 4 {
					if p.i >= len(p.b) {
						return nil, false, errEnd
					}
					if unhex(p.b[p.i]) < 0 {
						return nil, false, p.fail(`in \u hexadecimal character escape`)
					}
					p.i++
				}
			default:
				return nil, false, p.fail("in string escape code")
			}
		case c < 0x20:
			return nil, false, p.fail("in string literal")
		default:
			esc = true // non-ASCII: checked for valid UTF-8 by unquote
			p.i++
		}
	}
	return nil, false, errEnd
}

func unhex(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		h := unhex(c)
		if h < 0 {
			return -1
		}
		r = r*16 + h
	}
	return r
}

// unquote decodes the inside of a string that strSpan accepted, as
// encoding/json does: invalid UTF-8 and lone surrogates become U+FFFD.
func unquote(s []byte) string {
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' {
			break
		}
		if c < utf8.RuneSelf {
			r++
			continue
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return string(s)
	}
	b := make([]byte, r, len(s)+2*utf8.UTFMax)
	copy(b, s[:r])
	for r < len(s) {
		switch c := s[r]; {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r-1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // '"', '\\', '/'
				b = append(b, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b)
}

// text converts what strSpan returned to a string.
func text(s []byte, esc bool) string {
	if esc {
		return unquote(s)
	}
	return string(s)
}

// number reads a number at p.i and returns it as in the file.
func (p *parser) number() ([]byte, error) {
	start := p.i
	digits := func() error {
		if p.i >= len(p.b) {
			return errEnd
		}
		if p.b[p.i] < '0' || p.b[p.i] > '9' {
			return p.fail("in numeric literal")
		}
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		return nil
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if err := digits(); err != nil {
		return nil, err
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if err := digits(); err != nil {
			return nil, err
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if err := digits(); err != nil {
			return nil, err
		}
	}
	return p.b[start:p.i], nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	return nil
}

// object reads the object at p.i (a '{'), calling f for each member with
// its key (as strSpan returns it) and p at its value, which f consumes.
func (p *parser) object(f func(key []byte, esc bool) error) error {
	if err := p.enter(); err != nil {
		return err
	}
	p.i++
	c := p.peek()
	if c == '}' {
		p.i++
		p.depth--
		return nil
	}
	for {
		if c != '"' {
			return p.fail("looking for beginning of object key string")
		}
		key, esc, err := p.strSpan()
		if err != nil {
			return err
		}
		if p.peek() != ':' {
			return p.fail("after object key")
		}
		p.i++
		if err := f(key, esc); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.i++
			c = p.peek()
		case '}':
			p.i++
			p.depth--
			return nil
		default:
			return p.fail("after object key:value pair")
		}
	}
}

// array reads the list at p.i (a '['), calling f with p at each element,
// which f consumes.
func (p *parser) array(f func() error) error {
	if err := p.enter(); err != nil {
		return err
	}
	p.i++
	if p.peek() == ']' {
		p.i++
		p.depth--
		return nil
	}
	for {
		if err := f(); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			p.depth--
			return nil
		default:
			return p.fail("after array element")
		}
	}
}

// skip reads and checks any value.
func (p *parser) skip() error {
	switch c := p.peek(); {
	case c == '{':
		return p.object(func([]byte, bool) error { return p.skip() })
	case c == '[':
		return p.array(p.skip)
	case c == '"':
		_, _, err := p.strSpan()
		return err
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		_, err := p.number()
		return err
	}
	return p.fail("looking for beginning of value")
}

// raw reads any value and returns it compacted, as unknown fields are kept.
func (p *parser) raw() (domain.RawJSON, error) {
	p.peek()
	start := p.i
	if err := p.skip(); err != nil {
		return nil, err
	}
	return compact(p.b[start:p.i]), nil
}

// The typed readers below return ok = false, with the value consumed, for
// a value of another type; a null is the caller's to handle.

func (p *parser) str() (s string, ok bool, err error) {
	if p.peek() != '"' {
		return "", false, p.skip()
	}
	b, esc, err := p.strSpan()
	return text(b, esc), true, err
}

func (p *parser) strList() ([]string, bool, error) {
	if p.peek() != '[' {
		return nil, false, p.skip()
	}
	list := []string{}
	ok := true
	err := p.array(func() error {
		if null, err := p.null(); null || err != nil {
			list = append(list, "") // as encoding/json leaves it
			return err
		}
		s, sok, err := p.str()
		ok = ok && sok
		list = append(list, s)
		return err
	})
	return list, ok, err
}

func (p *parser) uint() (uint64, bool, error) {
	if c := p.peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false, p.skip()
	}
	b, err := p.number()
	if err != nil {
		return 0, false, err
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' || n > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false, nil
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true, nil
}

func (p *parser) bool() (bool, bool, error) {
	switch p.peek() {
	case 't':
		return true, true, p.lit("true")
	case 'f':
		return false, true, p.lit("false")
	}
	return false, false, p.skip()
}

func (p *parser) micros() (domain.Micros, bool, error) {
	if c := p.peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false, p.skip()
	}
	b, err := p.number()
	if err != nil {
		return 0, false, err
	}
	m, merr := parseMicros(b)
	return m, merr == nil, nil
}

// list collects items in chunks: append's growth would allocate about five
// times the final size of the large lists of a graph file.
type list[T any] struct {
	chunks [][]T
	n      int
}

func (l *list[T]) add(v T) {
	if len(l.chunks) == 0 || len(l.chunks[len(l.chunks)-1]) == cap(l.chunks[len(l.chunks)-1]) {
		l.chunks = append(l.chunks, make([]T, 0, min(max(16, l.n), 4096)))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, v)
	l.n++
}

// reserve makes room for n items in one chunk, so that a list whose
// length is known beforehand is never split and slice need not copy it. It
// does nothing to a list that holds items.
func (l *list[T]) reserve(n int) {
	if l.n == 0 && n > 0 {
		l.chunks = [][]T{make([]T, 0, n)}
	}
}

// slice returns the items in one slice, never nil: the list's own chunk
// when it has one only, which the list must not be used after.
func (l *list[T]) slice() []T {
	if len(l.chunks) == 1 {
		return l.chunks[0]
	}
	out := make([]T, 0, l.n)
	for _, c := range l.chunks {
		out = append(out, c...)
	}
	return out
}

// backward yields the items from the last.
func (l *list[T]) backward() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for c := len(l.chunks) - 1; c >= 0; c-- {
			for i := len(l.chunks[c]) - 1; i >= 0; i-- {
				if !yield(&l.chunks[c][i]) {
					return
				}
			}
		}
	}
}
