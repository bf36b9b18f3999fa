package secrets_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/secrets"
	"github.com/kg-memory/kg/domain/secretscreen"
)

// The cases docs/design/trust.md#what-counts-as-a-secret names one by one
// (issue 28, items 3 and 4). Each secret is assembled here from pieces so
// that no line of this file is a credential to a scanner of the
// repository's host; every body is made up.

// secretCase is a text, the kind the scanner must name and the text that
// redact mode must store.
type secretCase struct {
	name, text, kind, redacted string
}

func TestSecretCasesTheSpecNames(t *testing.T) {
	const pw = "Xk9fPq2mZr7WqLt3"
	glBody := "q8w7e6r5t4y3u2i1o0p9"
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + pw))
	cases := []secretCase{
		// Secret-named keys glued to a prefix.
		{"PGPASSWORD", "PGPASSWORD=" + pw + " psql -h db", "password", "PGPASSWORD=[REDACTED:password] psql -h db"},
		{"DBPASSWORD", "DBPASSWORD=" + pw, "password", "DBPASSWORD=[REDACTED:password]"},
		{"dbPassword", `dbPassword = "` + pw + `"`, "password", `dbPassword = "[REDACTED:password]"`},
		{"gitlabToken", `gitlabToken = "` + glBody + `"`, "password", `gitlabToken = "[REDACTED:password]"`},
		{"go short assignment", `stripeToken := "` + glBody + `"`, "password", `stripeToken := "[REDACTED:password]"`},
		{"logstash arrow", `"apiToken" => "` + glBody + `"`, "password", `"apiToken" => "[REDACTED:password]"`},
		{"make conditional", `SENTRY_TOKEN ?= "` + glBody + `"`, "password", `SENTRY_TOKEN ?= "[REDACTED:password]"`},
		{"setProperty", `System.setProperty("NOTION_TOKEN", "` + glBody + `")`, "password", `System.setProperty("NOTION_TOKEN", "[REDACTED:password]")`},
		{"xml element", "<deployToken>\n    " + glBody + "\n</deployToken>", "password", "<deployToken>\n    [REDACTED:password]\n</deployToken>"},
		// A value that merely holds "secret" or "passwd" is a value.
		{"Passwd in the value", `password = "Passwd-2024!"`, "password", `password = "[REDACTED:password]"`},
		{"secret in the value", `client_secret: "TopSecret-77x"`, "password", `client_secret: "[REDACTED:password]"`},
		// & inside a value belongs to it.
		{"& in a value, redacted whole", "password=k2&G" + pw, "password", "password=[REDACTED:password]"},
		{"& after a short start", "DB_PASSWORD=ab&cd1234efgh", "password", "DB_PASSWORD=[REDACTED:password]"},
		// A URL password with an empty user.
		{"redis empty user", "redis://:" + pw + "@cache:6379/0", "url-password", "redis://:[REDACTED:url-password]@cache:6379/0"},
		// Slack webhooks on any path and over http.
		{"slack webhook over http", "http://hooks." + "slack.com/services/T0ABCDEF1/B0ABCDEF2/" + pw + "aB3dE5", "slack-webhook", "[REDACTED:slack-webhook]"},
		{"slack workflow webhook", "https://hooks." + "slack.com/workflows/T0ABCDEF1/A0ABCDEF2/412345678901234567/" + pw + "aB3dE5", "slack-webhook", "[REDACTED:slack-webhook]"},
		{"slack trigger webhook", "post to https://hooks." + "slack.com/triggers/T0ABCDEF1/412345678901/" + pw + "q1w2e3r4", "slack-webhook", "post to [REDACTED:slack-webhook]"},
		// Credentials inside base64.
		{"Authorization Basic", "Authorization: Basic " + basic, "basic-auth", "Authorization: Basic [REDACTED:basic-auth]"},
		{"docker config auth", `{"auths": {"registry.corp.io": {"auth": "` + basic + `"}}}`, "basic-auth", `{"auths": {"registry.corp.io": {"auth": "[REDACTED:basic-auth]"}}}`},
		// curl's user and password.
		{"curl -u", "curl -u deploy:" + pw + " https://api.corp.io/v1", "basic-auth", "curl -u deploy:[REDACTED:basic-auth] https://api.corp.io/v1"},
		{"curl --user quoted", `curl --user "deploy:` + pw + `" https://api.corp.io/v1`, "basic-auth", `curl --user "deploy:[REDACTED:basic-auth]" https://api.corp.io/v1`},
		{"curl -u user:pass", "curl -u user:pass https://api.corp.io", "basic-auth", "curl -u user:[REDACTED:basic-auth] https://api.corp.io"},
	}
	// Every GitLab prefix of gitleaks' GitLab rules (cmd/generate/config/rules/gitlab.go).
	for _, p := range []string{"glagent-" + strings.Repeat(glBody, 3)[:50], "gldt-" + glBody, "glsoat-" + glBody,
		"glffct-" + glBody, "glcbt-4a2b1_" + glBody, "glimt-" + glBody + "x1y2z", "glptt-" + strings.Repeat("a1b2c3d4", 5),
		"gloas-" + strings.Repeat(glBody, 4)[:64], "glft-" + glBody, "glrt-" + glBody, "glpat-" + glBody,
		"glrt-t1_" + glBody + "abcdefg.01" + "2a3b4c5", "GR1348941" + glBody} {
		cases = append(cases, secretCase{"gitlab " + p[:strings.IndexAny(p, "-_1")], "runner uses " + p + " now", "gitlab-token", "runner uses [REDACTED:gitlab-token] now"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			found := secrets.Scan(c.text)
			if len(found) == 0 {
				t.Fatalf("nothing found in %q; want %s", c.text, c.kind)
			}
			if found[0].Kind.ID != c.kind {
				t.Errorf("found %s in %q; want %s", found[0].Kind.ID, c.text, c.kind)
			}
			if got := secrets.Redact(c.text, found); got != c.redacted {
				t.Errorf("redacted = %q; want %q", got, c.redacted)
			}
			in := domain.NodeInput{ID: "n", Gist: c.text}
			if _, _, err := secretscreen.Node(in, secretscreen.Block); err == nil {
				t.Errorf("block mode stored %q", c.text)
			}
		})
	}
}

// Look-alikes of the cases above that are no secret.
func TestSecretCasesThatAreNoSecret(t *testing.T) {
	for _, text := range []string{
		"uses content_type=KEY_AUTH_403_CONTENT_TYPE",
		"set content_type=KEY_AUTH_403_CONTENT_TYPE_FOR_JSON_PAYLOADS in the handler",
		"header X_Forwarded_Proto_Header_Value_For_TLS_1_3_Only is read by the proxy",
		"PGPASSWORD=$DB_PASSWORD psql -h db",
		`dbPassword = os.Getenv("DB_PASSWORD")`,
		`password = "your_password_here"`,
		`secret: "secret"`,
		"redis://:${REDIS_PASSWORD}@cache:6379/0",
		"redis://cache:6379/0",
		"Authorization: Basic $CREDENTIALS",
		"Authorization: Bearer ${TOKEN}",
		`curl -u "$USER:$PASS" https://api.corp.io`,
		"curl -u admin https://api.corp.io prompts for the password",
		"https://hooks." + "slack.com/services/ is where webhooks live",
		"the page_token=CURSOR_FOR_NEXT_PAGE_OF_RESULTS_V2 is opaque",
		"SOME_VERY_LONG_FEATURE_FLAG_NAME_FOR_THE_NEW_CHECKOUT_FLOW_2024=true",
		// Code that names a secret without holding one (lines of Go's source).
		"password := args[3]",
		"earlySecret:  earlySecret,",
		`const fakeConnectionToken = "X-Fake-Connection-Token"`,
		`const jsFetchCreds = "js.fetch:credentials"`,
		"SIOCGLIFTOKEN                 = -0x3f879678",
		"cmd.SysProcAttr.Credential = &syscall.Credential{}",
		`i := strings.Index(com.Token, "indirect;")`,
		`cmd.Env = append(os.Environ(), "PWD="+cmd.Dir, "GOROOT="+build.Default.GOROOT)`,
		`Value: &IgnoreTest{PublicSecret: "can't tell"},`,
	} {
		if found := secrets.Scan(text); len(found) > 0 {
			r := []rune(text)
			t.Errorf("%q: found %s (%q); want nothing", text, found[0].Kind.ID, string(r[found[0].Start:found[0].End]))
		}
	}
}
