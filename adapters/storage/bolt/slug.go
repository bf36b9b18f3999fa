package bolt

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// maxSlugLen is the longest slug docs/design/storage.md#project-slugs allows.
const maxSlugLen = 55

// slugOf returns the slug of a project and the hash that makes it unique
// (docs/design/storage.md#project-slugs). The rules are repeated from the JSON
// backend on purpose: adapters do not import each other, and List must name a
// project the same way whichever backend stores it.
func slugOf(project string) (slug, hash string) {
	raw := filepath.Base(project)
	var b strings.Builder
	inRun := false
	for _, r := range raw {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			b.WriteRune(r)
			inRun = false
			continue
		}
		if !inRun {
			b.WriteByte('-')
			inRun = true
		}
	}
	slug = strings.TrimLeft(b.String(), ".-")
	if len(slug) > maxSlugLen { // ASCII only by now: bytes are characters
		slug = slug[:maxSlugLen]
	}
	if slug == "" {
		slug = "project"
	}
	sum := sha256.Sum256([]byte(project))
	return slug, hex.EncodeToString(sum[:])[:8]
}
