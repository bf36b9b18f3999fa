package secrets

import (
	"regexp"
	"strings"
)

// The token formats the scanner knows and the patterns of the assignment
// rule (docs/design/trust.md#what-counts-as-a-secret).

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
