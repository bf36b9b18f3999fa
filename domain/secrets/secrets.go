// Package secrets is the secret scanner (docs/design/trust.md#secrets): it
// finds credentials in a text — the well-known token formats, private key
// blocks, URLs that carry a password, password and secret assignments, and
// long random strings — and redacts them. It knows nothing of the graph and
// imports the standard library only: package domain screens every write of
// a node or an edge with it, and domain's SecretsMode decides what a match
// does (refuse the write, store it with the secret replaced, or nothing).
// Scanning is on writes only: stored data is never scanned at load, so a
// graph that holds something secret-looking still loads and serves
// (docs/decisions/0081-secrets-a-leaf-package.md).
package secrets

import (
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Kind is one kind of credential the scanner knows.
type Kind struct {
	ID    string // the name in [REDACTED:<id>], e.g. aws-access-key
	Label string // how a message names it, e.g. "an AWS access key"
}

// Secret is one credential found in a text: its kind and where it is, in
// code points from 0, end exclusive (Start and End), and in bytes.
type Secret struct {
	Kind               Kind
	Start, End         int // code points; End exclusive
	byteStart, byteEnd int
}

// Finding is a secret found in a field of a write or of a stored item.
type Finding struct {
	Field string // e.g. "notes[1]", "nodes[3].gist", "to"
	Secret
}

// Message says what was found without the secret itself:
// `notes[1]: looks like an AWS access key (chars 12–31)`. Chars count from 1,
// both ends included.
func (f Finding) Message() string {
	return fmt.Sprintf("%s: looks like %s (chars %d–%d)", f.Field, f.Kind.Label, f.Start+1, f.End)
}

// RedactedAs is the text that replaces the secret in redact mode.
func (f Finding) RedactedAs() string { return redaction(f.Kind) }

func redaction(k Kind) string { return "[REDACTED:" + k.ID + "]" }

// secretRule finds one kind of secret. A rule whose keywords are all absent
// from a text (compared in lower case) is not run on it: most texts hold
// none, and the check is then a handful of substring searches.
type secretRule struct {
	kind     Kind
	keywords []string
	re       *regexp.Regexp
	// group is the submatch that is the secret (0: the whole match).
	group int
	// accept, when set, looks at the match (the secret) and the text and
	// says whether it is one: placeholders and look-alikes are not.
	accept func(secret string) bool
}

// The kinds of secret (docs/design/trust.md#what-counts-as-a-secret).
var (
	kindAWSAccessKey   = Kind{"aws-access-key", "an AWS access key"}
	kindAWSSecretKey   = Kind{"aws-secret-key", "an AWS secret access key"}
	kindGitHubToken    = Kind{"github-token", "a GitHub token"}
	kindGitLabToken    = Kind{"gitlab-token", "a GitLab token"}
	kindSlackToken     = Kind{"slack-token", "a Slack token"}
	kindSlackWebhook   = Kind{"slack-webhook", "a Slack webhook URL"}
	kindDiscordWebhook = Kind{"discord-webhook", "a Discord webhook URL"}
	kindDiscordToken   = Kind{"discord-token", "a Discord bot token"}
	kindTelegramToken  = Kind{"telegram-token", "a Telegram bot token"}
	kindStripeKey      = Kind{"stripe-key", "a Stripe secret key"}
	kindGoogleAPIKey   = Kind{"google-api-key", "a Google API key"}
	kindGoogleSecret   = Kind{"google-oauth-secret", "a Google OAuth client secret"}
	kindOpenAIKey      = Kind{"openai-key", "an OpenAI API key"}
	kindAnthropicKey   = Kind{"anthropic-key", "an Anthropic API key"}
	kindHuggingFace    = Kind{"huggingface-token", "a Hugging Face token"}
	kindNPMToken       = Kind{"npm-token", "an npm token"}
	kindPyPIToken      = Kind{"pypi-token", "a PyPI token"}
	kindTwilioKey      = Kind{"twilio-key", "a Twilio API key"}
	kindSendGridKey    = Kind{"sendgrid-key", "a SendGrid API key"}
	kindMailgunKey     = Kind{"mailgun-key", "a Mailgun API key"}
	kindShopifyToken   = Kind{"shopify-token", "a Shopify access token"}
	kindSquareToken    = Kind{"square-token", "a Square access token"}
	kindDOToken        = Kind{"digitalocean-token", "a DigitalOcean token"}
	kindAzureKey       = Kind{"azure-storage-key", "an Azure storage account key"}
	kindCIToken        = Kind{"ci-token", "a CI service token (CircleCI, Buildkite)"}
	kindJWT            = Kind{"jwt", "a JSON Web Token"}
	kindPrivateKey     = Kind{"private-key", "a private key block"}
	kindURLPassword    = Kind{"url-password", "a password in a URL"}
	kindPassword       = Kind{"password", "a password or secret assignment"}
	kindBasicAuth      = Kind{"basic-auth", "a user name and password (basic auth)"}
	kindHighEntropy    = Kind{"high-entropy", "a long random string (a key or token)"}
)

func rule(kind Kind, keywords []string, pattern string) secretRule {
	return secretRule{kind: kind, keywords: keywords, re: regexp.MustCompile(pattern)}
}

// secretRules are the token formats, most specific first: where two rules
// match the same text, the first wins.
var secretRules = []secretRule{
	rule(kindPrivateKey, []string{"private key"}, `-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)`),
	rule(kindAWSAccessKey, []string{"akia", "asia", "abia", "acca"}, `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`),
	{kind: kindAWSSecretKey, keywords: []string{"aws"}, group: 1,
		re: regexp.MustCompile(`(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+]|$)`)},
	rule(kindGitHubToken, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, `\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{59,240})\b`),
	// Every prefix of GitLab's token overview, as gitleaks's GitLab rules
	// list them, the routable form (a dot and nine more chars), the old
	// runner registration token and the session cookie.
	rule(kindGitLabToken, []string{"glpat-", "glptt-", "gldt-", "glrt-", "glsoat-", "glcbt-", "glft-", "glffct-", "glimt-", "glagent-", "gloas-", "gr1348941", "_gitlab_session="}, `\bgl(?:pat|ptt|dt|rt|soat|cbt|ft|ffct|imt|agent|oas)-[0-9A-Za-z_-]{20,}(?:\.[0-9a-z]{9}\b)?|\bGR1348941[0-9A-Za-z_-]{20,}|_gitlab_session=[0-9a-z]{32}\b`),
	// Incoming webhooks, workflow and trigger URLs, over https or http.
	rule(kindSlackWebhook, []string{"hooks.slack.com"}, `(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{36,}`),
	rule(kindSlackToken, []string{"xox", "xapp-"}, `\bxox[abposre]-[0-9A-Za-z-]{10,}|\bxoxe\.xox[bp]-[0-9A-Za-z-]{10,}|(?i)\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`),
	rule(kindDiscordWebhook, []string{"discord"}, `https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,}/[A-Za-z0-9_-]{40,}`),
	rule(kindTelegramToken, []string{":aa"}, `\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}\b`),
	rule(kindStripeKey, []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"}, `\b(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,247}|whsec_[A-Za-z0-9]{32,})\b`),
	{kind: kindGoogleAPIKey, keywords: []string{"aiza"}, group: 1, re: regexp.MustCompile(`\b(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)`)},
	rule(kindGoogleSecret, []string{"gocspx-"}, `\bGOCSPX-[0-9A-Za-z_-]{28}`),
	rule(kindAnthropicKey, []string{"sk-ant-"}, `\bsk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}`),
	rule(kindOpenAIKey, []string{"sk-"}, `\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})`),
	rule(kindHuggingFace, []string{"hf_", "api_org_"}, `\b(?:hf_[A-Za-z0-9]{34,40}|api_org_[A-Za-z0-9]{34})\b`),
	rule(kindNPMToken, []string{"npm_"}, `\bnpm_[A-Za-z0-9]{36}\b`),
	rule(kindPyPIToken, []string{"pypi-"}, `\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`),
	rule(kindTwilioKey, []string{"sk"}, `\bSK[0-9a-fA-F]{32}\b`),
	rule(kindSendGridKey, []string{"sg."}, `\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`),
	rule(kindMailgunKey, []string{"key-"}, `\bkey-[0-9a-z]{32}\b`),
	rule(kindShopifyToken, []string{"shpat_", "shpca_", "shppa_", "shpss_"}, `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`),
	rule(kindSquareToken, []string{"sq0atp-", "sq0csp-", "eaaa"}, `\b(?:sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}|EAAA[A-Za-z0-9_-]{60})\b`),
	rule(kindDOToken, []string{"_v1_"}, `\bdo[opr]_v1_[a-f0-9]{64}\b`),
	rule(kindAzureKey, []string{"accountkey="}, `(?i)AccountKey=[A-Za-z0-9+/]{86}==`),
	rule(kindCIToken, []string{"ccipat_", "bkua_"}, `\b(?:CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}|bkua_[a-f0-9]{40})\b`),
	rule(kindDiscordToken, []string{"."}, `\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b`),
	rule(kindJWT, []string{"eyj"}, `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
	// The user may be empty (redis://:password@host).
	{kind: kindURLPassword, keywords: []string{"://"}, group: 1, accept: notPlaceholder,
		re: regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/?#@"'<>\[\]]*:([^\s/?#@"'<>]+)@[^\s/?#"'<>]`)},
	// A user and password in base64: an HTTP Basic authorization, a docker
	// config's "auth". Only what decodes to user:password counts.
	{kind: kindBasicAuth, keywords: []string{"basic"}, group: 1, accept: basicCredential,
		re: regexp.MustCompile(`(?i)authorization["']?\s*[:=]\s*["']?basic\s+([A-Za-z0-9+/]{6,}={0,2})`)},
	{kind: kindBasicAuth, keywords: []string{"auth"}, group: 1, accept: base64UserPassword,
		re: regexp.MustCompile(`"auth"\s*:\s*"([A-Za-z0-9+/]{6,}={0,2})"`)},
	// curl -u user:password (and --user, -su…): the password part.
	{kind: kindBasicAuth, keywords: []string{"curl"}, group: 1, accept: notReference,
		re: regexp.MustCompile(`\bcurl\b(?:[^\n|;]|\\\r?\n)*?\s(?:-[A-Za-z]*u|--user[ =])\s*["']?[^\s:"']*:([^\s"']+)`)},
}

// secretKeyWord is what the name of a key that holds a secret ends with,
// in any case and glued to any prefix (PGPASSWORD, dbPassword,
// gitlabToken, AWS_SECRET_KEY).
const secretKeyWord = `(?:password|passwd|passphrase|pwd|secret|(?:api|secret|access|signing|encryption|master|private)[_-]?key|credentials?|creds|token)`

// passwordAssignment finds `password=…`, `secret: "…"`, `dbToken := "…"`,
// `"apiToken" => "…"`, `SENTRY_TOKEN ?= "…"`, setProperty("X_TOKEN", "…")
// and the like; the value is judged by assignedSecret. An operator holding
// `=` counts as `=`, one holding `:` only as `:`; a comma needs a quoted
// value. A type may stand between the name and the operator (`var
// dbToken string = "…"`, `apiKey: String = "…"`).
var passwordAssignment = regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_.-])([A-Za-z0-9_.-]*?` + secretKeyWord + `)["'\x60]?\]?(?:(?:[ \t]*:[ \t]*|[ \t]+)(?:string|str|&str|char[ \t]*\*|\[\]byte|bytes|secretstr))?[ \t]*(:{1,3}=|[?.+]?=>?|:|,)[ \t]*("[^"\n]*"|'[^'\n]*'|\x60[^\x60\n]*\x60|[^\s,;"'\x60<>)\]}]+)`)

// xmlAttrSecret finds a secret-named key's value in XML attributes:
// <add key="Password" value="…" /> (NuGet, .NET configs).
var xmlAttrSecret = regexp.MustCompile(`(?i)key\s*=\s*"([^"]*?` + secretKeyWord + `)"\s+value\s*=\s*("[^"\n]*")`)

// k8sSecretData finds the values under data: of a Kubernetes Secret: each
// is a base64 secret.
var k8sSecretData = regexp.MustCompile(`(?m)^[ \t]+[\w.-]+:[ \t]*([A-Za-z0-9+/]{8,}={0,2})[ \t]*$`)

// xmlSecret finds a secret-named element's text: <dbPassword>…</dbPassword>.
var xmlSecret = regexp.MustCompile(`(?i)<([A-Za-z0-9_.-]*?` + secretKeyWord + `)>\s*([^<\s]+)\s*</`)

var assignmentKeywords = []string{"pass", "pwd", "secret", "key", "token", "cred"}

// Scan returns the secrets in s, in order of position, without
// overlaps. A rule runs only on a text that holds one of its keywords, so a
// text that holds none costs a few substring searches and one pass of the
// long-random-string rule.
func Scan(s string) []Secret { return scan(s, true) }

// scan is Scan; intoBase64 says whether base64 of text is
// decoded and scanned too (once: not inside what was decoded).
func scan(s string, intoBase64 bool) []Secret {
	if len(s) < 8 {
		return nil
	}
	lower := strings.ToLower(s)
	present := keywords.in(lower)
	var found []Secret
	for i := range secretRules {
		r := &secretRules[i]
		if !present.anyOf(keywords.rules[i]) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			a, b := m[2*r.group], m[2*r.group+1]
			if a < 0 || dummy(s[a:b]) || (r.accept != nil && !r.accept(s[a:b])) {
				continue
			}
			found = addSecret(found, r.kind, a, b)
		}
	}
	if present.anyOf(keywords.assignment) {
		found = assignments(s, lower, found)
	}
	if strings.Contains(lower, "kind: secret") && strings.Contains(lower, "data:") {
		for _, m := range k8sSecretData.FindAllStringSubmatchIndex(s, -1) {
			found = addSecret(found, kindPassword, m[2], m[3])
		}
	}
	found = highEntropy(s, lower, found, intoBase64)
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(x, y Secret) int { return x.byteStart - y.byteStart })
	// Byte offsets to code points, in one pass.
	cp, at := 0, 0
	for i := range found {
		cp += utf8.RuneCountInString(s[at:found[i].byteStart])
		found[i].Start = cp
		cp += utf8.RuneCountInString(s[found[i].byteStart:found[i].byteEnd])
		found[i].End = cp
		at = found[i].byteEnd
	}
	return found
}

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

// dummy reports whether a match of a token format is a made-up example:
// a body of x, X, # or * (ghp_xxxx…, xoxp-XXXX-…), or AWS's documented
// example keys (…EXAMPLE).
func dummy(m string) bool {
	for _, run := range []string{"xxxxxx", "XXXXXX", "######", "******"} {
		if strings.Contains(m, run) {
			return true
		}
	}
	return strings.HasSuffix(m, "EXAMPLE") || strings.HasSuffix(m, "EXAMPLEKEY")
}

// keywordSet is a set of the keywords of the rules, bit i for keyword i.
type keywordSet [2]uint64

func (k *keywordSet) add(id int)              { k[id>>6] |= 1 << (id & 63) }
func (k keywordSet) anyOf(of keywordSet) bool { return k[0]&of[0] != 0 || k[1]&of[1] != 0 }

// keywordTable finds, in one pass over a text, which keywords of the rules
// it holds: looking each keyword up in turn cost most of a scan.
type keywordTable struct {
	byFirst    [256][]keywordEntry // the keywords that start with a byte
	rules      []keywordSet        // secretRules[i]'s keywords
	assignment keywordSet          // assignmentKeywords
}

type keywordEntry struct {
	word string
	id   int
}

var keywords = newKeywordTable()

func newKeywordTable() *keywordTable {
	t := &keywordTable{}
	ids := map[string]int{}
	set := func(words []string) keywordSet {
		var k keywordSet
		for _, w := range words {
			id, ok := ids[w]
			if !ok {
				id = len(ids)
				if id >= len(k)*64 {
					panic("secrets: more keywords than a keywordSet holds")
				}
				ids[w] = id
				t.byFirst[w[0]] = append(t.byFirst[w[0]], keywordEntry{w, id})
			}
			k.add(id)
		}
		return k
	}
	for _, r := range secretRules {
		t.rules = append(t.rules, set(r.keywords))
	}
	t.assignment = set(assignmentKeywords)
	return t
}

// in returns the keywords that lower (a text in lower case) holds.
func (t *keywordTable) in(lower string) keywordSet {
	var k keywordSet
	for i := 0; i < len(lower); i++ {
		for _, e := range t.byFirst[lower[i]] {
			if len(e.word) > 1 && (i+1 == len(lower) || lower[i+1] != e.word[1]) {
				continue // the second byte rules most out without a compare
			}
			if strings.HasPrefix(lower[i:], e.word) {
				k.add(e.id)
			}
		}
	}
	return k
}

// addSecret adds the secret at bytes [a, b) unless a secret found before
// overlaps it.
func addSecret(found []Secret, kind Kind, a, b int) []Secret {
	for _, f := range found {
		if a < f.byteEnd && f.byteStart < b {
			return found
		}
	}
	return append(found, Secret{Kind: kind, byteStart: a, byteEnd: b})
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

// The long-random-string rule (docs/design/trust.md#long-random-strings).
const (
	entropyMinLen = 32  // chars of a candidate
	entropyMinBit = 4.0 // Shannon entropy, bits per char
	// entropyMinMix is the least share of neighbouring chars of different
	// classes (lower, upper, digit, other): random text switches class at
	// about every other char, an identifier (tokenRefreshHandlerV2) rarely.
	entropyMinMix = 0.3
)

// highEntropy adds the long random strings of s that no rule found:
// runs of at least entropyMinLen chars of the base64 and URL-safe alphabets
// that mix upper case, lower case and digits, switch between them often and
// carry much entropy — and are none of the look-alikes: hex (UUIDs, git
// SHAs, digests), base64 of ordinary text, checksums written as
// `sha512-…` or `h1:…`, IPFS ids, and path segments of URLs.
//
// A run that is base64 of text is decoded and scanned in turn (when
// intoBase64): a secret inside it (a JWT, a password assignment) is
// reported with its kind over the whole run.
func highEntropy(s, lower string, found []Secret, intoBase64 bool) []Secret {
	public := publicBlocks(s, lower)
	for i := 0; i < len(s); {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		j := tokenEnd(s, i)
		if j-i >= entropyMinLen && !inSpans(public, i) {
			if randomToken(s, i, j) {
				found = addSecret(found, kindHighEntropy, i, j)
			} else if intoBase64 {
				if k, ok := secretInBase64(s[i:j]); ok {
					found = addSecret(found, k, i, j)
				}
			}
		}
		i = j
	}
	return found
}

// tokenEnd is the end of the candidate that starts at byte i of s: the run
// of token bytes, cut before an '=' that is no padding (one followed by
// more of the run). `content_type=KEY_AUTH_403` is a key and its value,
// judged each on its own; base64 keeps its trailing `==`.
func tokenEnd(s string, i int) int {
	j := i
	for j < len(s) && isTokenByte(s[j]) {
		if s[j] == '=' && j+1 < len(s) && s[j+1] != '=' && isTokenByte(s[j+1]) && j > i {
			return j
		}
		j++
	}
	return j
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-' || c == '='
}

// randomToken judges the candidate s[i:j].
func randomToken(s string, i, j int) bool {
	t := strings.TrimRight(s[i:j], "=")
	if len(t) < entropyMinLen {
		return false
	}
	var lower, upper, digit int
	hex := true
	for k := 0; k < len(t); k++ {
		c := t[k]
		switch {
		case c >= 'a' && c <= 'z':
			lower++
			hex = hex && c <= 'f'
		case c >= 'A' && c <= 'Z':
			upper++
			hex = hex && c <= 'F'
		case c >= '0' && c <= '9':
			digit++
		case c != '-':
			hex = false
		}
	}
	if hex || lower == 0 || upper == 0 || digit == 0 {
		return false
	}
	if classMix(t) < entropyMinMix || wordy(t) || identifierLike(t) || entropy(t) < entropyMinBit {
		return false
	}
	for _, p := range []string{"sha1-", "sha256-", "sha384-", "sha512-", "md5-"} {
		if strings.HasPrefix(t, p) {
			return false // a checksum, as package locks write them
		}
	}
	before := s[:i]
	for _, p := range []string{"h1:", "sha256:", "sha512:",
		"ssh-rsa ", "ssh-ed25519 ", "ssh-dss ", "ecdsa-sha2-nistp256 ", "ecdsa-sha2-nistp384 ", "ecdsa-sha2-nistp521 "} {
		if strings.HasSuffix(before, p) {
			return false // a checksum (go.sum) or a public key
		}
	}
	if strings.HasPrefix(t, "Qm") && len(t) == 46 {
		return false // an IPFS content id (CIDv0)
	}
	if inURLPath(s, i) {
		return false
	}
	return !base64Text(s[i:j])
}

// publicBlocks returns the byte spans of the PEM blocks of s that hold
// public material (a certificate, a public key): their base64 lines look
// random and are no secret.
func publicBlocks(s, lower string) [][2]int {
	if !strings.Contains(lower, "-----begin") {
		return nil
	}
	var spans [][2]int
	for _, m := range pemBlock.FindAllStringSubmatchIndex(s, -1) {
		if !strings.Contains(s[m[2]:m[3]], "PRIVATE") {
			spans = append(spans, [2]int{m[0], m[1]})
		}
	}
	return spans
}

var pemBlock = regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)`)

func inSpans(spans [][2]int, i int) bool {
	for _, sp := range spans {
		if i >= sp[0] && i < sp[1] {
			return true
		}
	}
	return false
}

// wordy reports whether most of t lies in runs of three or more lower-case
// letters: words of an identifier (handleTokenRefreshV2), not random text,
// where such runs are rare.
func wordy(t string) bool {
	inWords, run := 0, 0
	for k := 0; k <= len(t); k++ {
		if k < len(t) && t[k] >= 'a' && t[k] <= 'z' {
			run++
			continue
		}
		if run >= 3 {
			inWords += run
		}
		run = 0
	}
	return inWords*2 >= len(t)
}

// identifierLike reports whether t is words and numbers joined by _ - . /
// (X_Forwarded_Proto_V2, KEY_AUTH_403_CONTENT_TYPE), each part of one case:
// an identifier or a path. A random string cut by its separators has parts
// that mix cases.
func identifierLike(t string) bool {
	parts := strings.FieldsFunc(t, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == '/' || r == '+' })
	if len(parts) < 3 {
		return false
	}
	for _, p := range parts {
		if !oneCase(p) {
			return false
		}
	}
	return true
}

// oneCase reports whether p is UPPER (and digits), lower (and digits), or
// Capitalised.
func oneCase(p string) bool {
	rest := p
	if len(p) > 1 && p[0] >= 'A' && p[0] <= 'Z' && p[1] >= 'a' && p[1] <= 'z' {
		rest = p[1:]
	}
	var lower, upper bool
	for k := 0; k < len(rest); k++ {
		c := rest[k]
		lower = lower || c >= 'a' && c <= 'z'
		upper = upper || c >= 'A' && c <= 'Z'
	}
	return !(lower && upper)
}

// classMix is the share of neighbouring chars of t that are of different
// classes.
func classMix(t string) float64 {
	class := func(c byte) int {
		switch {
		case c >= 'a' && c <= 'z':
			return 0
		case c >= 'A' && c <= 'Z':
			return 1
		case c >= '0' && c <= '9':
			return 2
		}
		return 3
	}
	switches := 0
	for k := 1; k < len(t); k++ {
		if class(t[k]) != class(t[k-1]) {
			switches++
		}
	}
	return float64(switches) / float64(len(t)-1)
}

// entropy is the Shannon entropy of t's bytes, in bits per byte.
func entropy(t string) float64 {
	var counts [256]int
	for k := 0; k < len(t); k++ {
		counts[t[k]]++
	}
	h, n := 0.0, float64(len(t))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// inURLPath reports whether byte i of s lies in the path of a URL (after
// "://" in the same run of non-space text, and not right after '=' or '#'
// that open a value): a content hash in a link, not a credential. Values in
// a URL's query are judged like any text.
func inURLPath(s string, i int) bool {
	start := strings.LastIndexAny(s[:i], " \t\n\"'<>(")
	word := s[start+1 : i]
	k := strings.Index(word, "://")
	if k < 0 {
		return false
	}
	if strings.ContainsAny(word[k:], "?#") || strings.HasSuffix(word, "=") {
		return false
	}
	return true
}

// base64Text reports whether t decodes (as standard or URL-safe base64) to
// ordinary text: a look-alike of a key, not one.
func base64Text(t string) bool {
	raw := strings.TrimRight(t, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(raw)
		if err != nil || len(b) == 0 {
			continue
		}
		printable := 0
		for _, c := range b {
			if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' || c == '\r' {
				printable++
			}
		}
		if printable*100 >= len(b)*95 {
			return true
		}
	}
	return false
}

// secretInBase64 decodes t, when it is base64 of text, and scans the text:
// the kind of the first secret found there.
func secretInBase64(t string) (Kind, bool) {
	raw := strings.TrimRight(t, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(raw)
		if err != nil || !utf8.Valid(b) {
			continue
		}
		if inner := scan(string(b), false); len(inner) > 0 {
			return inner[0].Kind, true
		}
	}
	return Kind{}, false
}

// Redact returns s with each of secrets (found in s by Scan) replaced
// by [REDACTED:<kind>].
func Redact(s string, secrets []Secret) string {
	if len(secrets) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, f := range secrets {
		b.WriteString(s[at:f.byteStart])
		b.WriteString(redaction(f.Kind))
		at = f.byteEnd
	}
	b.WriteString(s[at:])
	return b.String()
}
