package ports

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
)

// Long lists of node ids a session keeps — its seen set, the nodes it has
// counted for the use count — are stored packed: the list as a JSON array,
// deflated, in base64 (docs/decisions/0070-compact-session-id-lists.md). A
// session that read 5,000 ids kept them twice, one a line, about 80 bytes an
// id in sessions.json; ids share most of their words, and packed they take
// a fraction of that. Short lists stay as they are, readable.

// PackFrom is the length from which a list of ids is stored packed.
const PackFrom = 32

// PackIDs is the packed form of ids. It deflates at the fastest level: a
// session's lists are packed at each save of the session, and the default
// level took six times as long (the best 24 times) for a little less.
func PackIDs(ids []string) string {
	raw, _ := json.Marshal(ids) // strings: cannot fail
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestSpeed) // a valid level: cannot fail
	_, _ = w.Write(raw)                            // into memory: cannot fail
	_ = w.Close()
	return base64.RawStdEncoding.EncodeToString(buf.Bytes())
}

// maxUnpacked bounds what a packed list may inflate to: the lists are capped
// at 5,000 ids of at most 256 characters (hookstate.MaxSeen, MaxCountedPerGraph).
const maxUnpacked = 16 << 20

// UnpackIDs reads the packed form of a list of ids.
func UnpackIDs(s string) ([]string, error) {
	z, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("packed ids: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), maxUnpacked+1))
	if err != nil {
		return nil, fmt.Errorf("packed ids: %w", err)
	}
	if len(raw) > maxUnpacked {
		return nil, fmt.Errorf("packed ids: more than %d bytes unpacked", maxUnpacked)
	}
	var ids []string
	if err := json.Unmarshal(raw, &ids); err != nil {
		return nil, fmt.Errorf("packed ids: %w", err)
	}
	return ids, nil
}
