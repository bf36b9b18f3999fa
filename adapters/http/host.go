package http

import (
	"net"
	"net/http"
	"strings"
)

// hostAllowList decides whether a Host header names this server. It is the
// DNS-rebinding defence (docs/design/http.md#host-and-origin): a web page that
// rebinds its own name to 127.0.0.1 still sends its own name as Host, and is
// refused.
type hostAllowList struct {
	anyPort map[string]bool // host names allowed with any port (or none)
	exact   map[string]bool // host:port pairs allowed as given
}

// loopbackHosts are always allowed, with any port.
var loopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// newHostAllowList allows the loopback names plus extra, each either a bare
// host name (any port) or host:port (that port only).
func newHostAllowList(extra []string) hostAllowList {
	l := hostAllowList{anyPort: map[string]bool{}, exact: map[string]bool{}}
	for _, h := range loopbackHosts {
		l.anyPort[h] = true
	}
	for _, h := range extra {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if host, port, err := net.SplitHostPort(h); err == nil {
			l.exact[net.JoinHostPort(host, port)] = true
			continue
		}
		l.anyPort[strings.Trim(h, "[]")] = true
	}
	return l
}

// allows reports whether the Host header value hostport is allowed.
func (l hostAllowList) allows(hostport string) bool {
	hostport = strings.ToLower(hostport)
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: a bare name, or a bracketed IPv6 literal.
		host, port = strings.Trim(hostport, "[]"), ""
	}
	if host == "" {
		return false
	}
	if l.anyPort[host] {
		return true
	}
	return port != "" && l.exact[net.JoinHostPort(host, port)]
}

// checkHost refuses, with 421 Misdirected Request, a request whose Host
// header is not on the allow-list.
func checkHost(extra []string) func(http.Handler) http.Handler {
	allowed := newHostAllowList(extra)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !allowed.allows(r.Host) {
				reject(w, http.StatusMisdirectedRequest, "invalid", "Host",
					"Host "+quote(r.Host)+" is not allowed; use localhost or 127.0.0.1, or add it to KG_ALLOWED_HOSTS")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// quote renders a header value for a message, bounded so a huge header does
// not make a huge response.
func quote(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max] + "…"
	}
	return `"` + s + `"`
}
