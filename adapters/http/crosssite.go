package http

import "net/http"

// rejectCrossSite refuses (403) every request a browser marks as coming
// from another site. Browsers send Sec-Fetch-Site even for image and script
// loads, which carry no Origin header, so this is what stops a page on
// another site from triggering a GET that changes state (a recall by id).
// Clients that are not browsers send no such header.
func rejectCrossSite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			reject(w, http.StatusForbidden, "invalid", "Sec-Fetch-Site",
				"cross-site requests are refused; open the kg page itself or use a non-browser client")
			return
		}
		next.ServeHTTP(w, r)
	})
}
