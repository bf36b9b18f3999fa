package secrets

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
)

// Secret-named keys and what is assigned to them: the password rule, and
// the checks that tell a value from a placeholder, a reference or prose
// (docs/design/trust.md#what-counts-as-a-secret).

// assignments adds the values assigned to secret-named keys in s, and the
// text of secret-named XML elements.
func assignments(s, lower string, found []Secret) []Secret {
	if strings.ContainsAny(s, ":=,") && assignmentLikely(lower) {
		for _, m := range passwordAssignment.FindAllStringSubmatchIndex(s, -1) {
			a, b := m[6], m[7]
			if s[m[4]:m[5]] == "," && (m[2] == 0 || !strings.ContainsRune(`"'`, rune(s[m[2]-1]))) {
				continue // f(x.Token, "…"): an argument, unless the name is a quoted key
			}
			if v := s[a:b]; assignedSecret(s[m[2]:m[3]], operatorKind(s[m[4]:m[5]]), v) {
				if q := v[0]; (q == '"' || q == '\'' || q == '`') && len(v) >= 2 {
					a, b = a+1, b-1
				}
				found = addSecret(found, kindPassword, a, b)
			}
		}
	}
	if strings.Contains(s, "value") {
		for _, m := range xmlAttrSecret.FindAllStringSubmatchIndex(s, -1) {
			if a, b := m[4], m[5]; assignedSecret(s[m[2]:m[3]], "=", s[a:b]) {
				found = addSecret(found, kindPassword, a+1, b-1)
			}
		}
	}
	if strings.Contains(s, "</") {
		for _, m := range xmlSecret.FindAllStringSubmatchIndex(s, -1) {
			if a, b := m[4], m[5]; assignedSecret(s[m[2]:m[3]], "=", `"`+s[a:b]+`"`) {
				found = addSecret(found, kindPassword, a, b)
			}
		}
	}
	return found
}

// secretWordEnds are the last words of secretKeyWord's names.
var secretWordEnds = []string{"password", "passwd", "passphrase", "pwd", "secret", "key", "token", "credential", "credentials", "creds"}

// assignmentLikely reports whether lower (s in lower case) may hold a
// match of passwordAssignment: a secret word ending a name, followed by an
// operator after at most quotes, a bracket, blanks and one type word. Most
// texts that mention a token or a password do so in prose; this check
// spares them the regular expression, which tries every position.
func assignmentLikely(lower string) bool {
	for _, w := range secretWordEnds {
		for at := 0; ; {
			k := strings.Index(lower[at:], w)
			if k < 0 {
				break
			}
			end := at + k + len(w)
			at = end
			if end < len(lower) && isNameByte(lower[end]) {
				continue // password_hash: the word does not end the name
			}
			if operatorFollows(lower, end) {
				return true
			}
		}
	}
	return false
}

// operatorFollows reports whether an assignment's operator comes at byte i
// of lower, after quotes and a bracket, blanks, and at most one type word.
func operatorFollows(lower string, i int) bool {
	for i < len(lower) && strings.IndexByte("\"'`]", lower[i]) >= 0 {
		i++
	}
	i = skipBlanks(lower, i)
	if i < len(lower) && strings.IndexByte(operatorBytes, lower[i]) >= 0 {
		return true
	}
	j := i
	for j < len(lower) && (isNameByte(lower[j]) || strings.IndexByte("&*[]", lower[j]) >= 0) {
		j++
	}
	if j == i {
		return false
	}
	j = skipBlanks(lower, j)
	return j < len(lower) && strings.IndexByte(operatorBytes, lower[j]) >= 0
}

// operatorBytes are the bytes an assignment's operator starts with.
const operatorBytes = ":=,?.+"

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func isNameByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' }

// operatorKind reduces an assignment's operator to "=" (=, :=, ?=, =>, …),
// ":" or ",".
func operatorKind(op string) string {
	switch {
	case strings.Contains(op, "="):
		return "="
	case op == ",":
		return ","
	}
	return ":"
}

// assignedSecret judges the value of an assignment to a secret-named key: a
// real value, not a placeholder, a reference to where the secret lives
// (an environment variable, a function call, a config path), or a word of
// prose ("the secret: rotate it monthly").
func assignedSecret(key, sep, v string) bool {
	quoted := len(v) >= 2 && (v[0] == '"' || v[0] == '\'' || v[0] == '`')
	if quoted {
		v = v[1 : len(v)-1]
	}
	if sep == "," && !quoted {
		return false // "the token, which expires": an argument list needs a quoted value
	}
	if len(v) < 6 || !notPlaceholder(v) {
		return false
	}
	if strings.ContainsAny(v, "()") || (dottedName.MatchString(v) && !randomPart(v)) || envName.MatchString(v) {
		return false // a call, a config path, an environment variable's name
	}
	if code(v, quoted) || namesASecret(v) {
		return false
	}
	for _, p := range []string{"/", "~/", "./", "../"} {
		if strings.HasPrefix(v, p) {
			return false // a path (pwd: /home/alice/src)
		}
	}
	if wordish.MatchString(v) {
		// Lower-case words (and kebab or snake case): prose, or the
		// name of something. Quoted after `=`, it is a value.
		return quoted && sep == "="
	}
	lk := strings.ToLower(key)
	if sep == ":" && !quoted && (strings.HasSuffix(lk, "token") || strings.HasSuffix(lk, "key")) {
		// "token: JWT refresh", "key: a2": a value must look random.
		return hasDigit(v) && hasLetter(v) && len(v) >= 8
	}
	return true
}

// code reports whether v is an expression of a program rather than a
// value: unquoted, an index or a literal (`args[1]`, `Bug4Secret{1`),
// a number written in hex (`-0x3f879678`), a variable's name (`oldDir`,
// `earlySecret`: letters without a digit); quoted, prose with a space and no
// digit (`"can't tell"`).
func code(v string, quoted bool) bool {
	if quoted {
		return strings.Contains(v, " ") && !hasDigit(v)
	}
	if strings.ContainsAny(v, "[{") || hexNumber.MatchString(v) {
		return true
	}
	return goName.MatchString(v) && !hasDigit(v)
}

// namesASecret reports whether v names a secret instead of being one: it
// holds a secret word and neither a digit nor a symbol but - _ . and :
// (`X-Fake-Connection-Token`, `encodeUserPassword`, `js.fetch:credentials`). A value that holds
// the word among digits or symbols (`Passwd-2024!`) is a value.
func namesASecret(v string) bool {
	if hasDigit(v) || strings.IndexFunc(v, func(r rune) bool { return !isASCIILetter(r) && !strings.ContainsRune("-_.:", r) }) >= 0 {
		return false
	}
	lv := strings.ToLower(v)
	for _, w := range []string{"password", "passwd", "secret", "token", "credential"} {
		if strings.Contains(lv, w) {
			return true
		}
	}
	return false
}

var (
	hexNumber = regexp.MustCompile(`^[-+]?0[xX][0-9a-fA-F]+$`)
	goName    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// randomPart reports whether a segment of the dotted v looks drawn, not
// named: 12 chars or more mixing letters and digits, no underscore
// (dp.pt.bxnph1z9yq… is a token; settings.API_TOKEN_V2 is a path).
func randomPart(v string) bool {
	for _, p := range strings.Split(v, ".") {
		if len(p) >= 12 && hasDigit(p) && hasLetter(p) && !strings.Contains(p, "_") {
			return true
		}
	}
	return false
}

var (
	dottedName = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$`)
	envName    = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	wordish    = regexp.MustCompile(`^[a-z]+(?:[_-][a-z]+)*$`)
)

// notPlaceholder reports whether v is a value rather than a placeholder for
// one: `${DB_PASSWORD}`, `<password>`, `{{ .Secret }}`, `%s`, `xxxx`, `***`,
// `changeme`, `your_password_here`, `secret`, an earlier redaction. A value
// that merely holds a word such as "secret" or "passwd" among other chars
// (`Passwd-2024!`, `TopSecret-77x`) is a value.
func notPlaceholder(v string) bool {
	if !notReference(v) {
		return false
	}
	lv := strings.ToLower(v)
	for _, p := range []string{"changeme", "example", "placeholder", "your", "redacted", "dummy", "xxxx", "****", "..."} {
		if strings.Contains(lv, p) {
			return false
		}
	}
	if placeholderWords(lv) {
		return false
	}
	same := true
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			same = false
			break
		}
	}
	return !same
}

// notReference reports whether v is not a reference to a value: a
// variable (`$PASS`), a template (`{{ .Secret }}`, `<password>`, `%s`), a
// masked value (`***`), an earlier redaction (`[REDACTED:…]`).
func notReference(v string) bool {
	if v == "" {
		return false
	}
	switch v[0] {
	case '$', '<', '{', '%', '[', '*', '&', '+', '\\':
		return false // a variable, a template, a mask, a redaction; &x, +x, \n in code
	}
	return true
}

// placeholderWords reports whether lv (lower case) is made only of words
// that name a value instead of being one (`password`, `super_secret`,
// `api-key-here`, `none`): letters, and _ - . between them.
func placeholderWords(lv string) bool {
	words := strings.FieldsFunc(lv, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' })
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if !slices.Contains(placeholderVocabulary, w) {
			return false
		}
	}
	return true
}

var placeholderVocabulary = []string{"password", "passwd", "pass", "pwd", "secret", "token", "key", "api", "access",
	"auth", "client", "my", "the", "a", "here", "value", "some", "super", "new", "old", "db", "none", "null", "nil",
	"undefined", "empty", "true", "false", "required", "optional", "string", "redacted", "hidden", "masked", "foo", "bar"}

// basicCredential judges what follows `Authorization: Basic`: any value
// but a reference or a dummy is a credential, whether or not it decodes.
func basicCredential(t string) bool { return notReference(t) && !dummy(t) && len(t) >= 8 }

// base64UserPassword reports whether t is base64 of user:password with a
// password that is no placeholder: the credential of an HTTP Basic
// authorization or a docker config's "auth".
func base64UserPassword(t string) bool {
	b, err := base64.StdEncoding.DecodeString(t)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(t, "=")); err != nil {
			return false
		}
	}
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	user, pw, ok := strings.Cut(string(b), ":")
	return ok && user != "" && notReference(pw) && !strings.ContainsAny(pw, " ")
}

func hasDigit(s string) bool  { return strings.ContainsAny(s, "0123456789") }
func hasLetter(s string) bool { return strings.IndexFunc(s, isASCIILetter) >= 0 }

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
