package rest

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/adapters/http/portable"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/importing"
)

// export serves GET /api/export?level&session_id&project_path: the graph as
// a portable document (package portable).
func (a *API) export(w http.ResponseWriter, r *http.Request) {
	ex, err := a.svc.Export(r.Context(), scopeOf(r, ""))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// Encoded whole before the status is sent, so a failure is still a
	// clean 500.
	var buf bytes.Buffer
	if err := portable.Encode(&buf, ex.Key, ex.At, ex.Data); err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = buf.WriteTo(w)
}

// importGraph serves POST /api/import?mode=merge|replace&moves&level&
// session_id&project_path with a portable document as its body. The graph written is
// the one the query names, else the one the document came from. The whole
// document is checked before anything changes; a bad one changes nothing.
func (a *API) importGraph(w http.ResponseWriter, r *http.Request) {
	if !hasBody(r) {
		a.fail(w, r, domain.Invalidf("body", "required: an export document (GET /api/export)"))
		return
	}
	if err := checkJSON(r); err != nil {
		a.fail(w, r, err)
		return
	}
	opt, err := importOptions(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	doc, err := portable.Decode(r.Body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	sc := scopeOf(r, "")
	if sc.Level == "" {
		sc.Level = doc.Level
		if sc.ProjectPath == "" && sc.SessionID == "" {
			sc.ProjectPath = doc.ProjectPath
		}
	}
	mode := importing.Merge
	if m := r.URL.Query().Get("mode"); m != "" {
		mode = importing.Mode(m)
	}
	res, err := a.svc.Import(r.Context(), sc, mode, doc.Data, opt)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.WriteImportResult(w, res)
}

// importOptions reads the query's moves: how many of the compaction run's
// moves the answer lists with their reasons, a whole number or "all"
// (app.ImportMovesListed when absent).
func importOptions(r *http.Request) (app.ImportOptions, error) {
	opt := app.ImportOptions{ListMoves: app.ImportMovesListed}
	switch v := r.URL.Query().Get("moves"); v {
	case "":
	case "all":
		opt.ListMoves = -1
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return opt, domain.Invalidf("moves", "%q is not a whole number of moves to list, or all", v)
		}
		opt.ListMoves = n
	}
	return opt, nil
}
