package record

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxSlugLen is the longest project slug, in characters
// (docs/design/storage.md#project-slugs).
const MaxSlugLen = 55

// ProjectSlug returns the name a project key gets in storage when nothing
// else holds it: the last element of the key with each run of characters
// outside [A-Za-z0-9._-] replaced by "-", leading "." and "-" removed, at
// most MaxSlugLen characters, "project" if nothing is left. Every backend
// names projects by it, so that a project listed from one is named the same
// from another (docs/design/storage.md#project-slugs).
func ProjectSlug(key string) string {
	var b strings.Builder
	dash := false
	for _, r := range filepath.Base(filepath.Clean(key)) {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimLeft(b.String(), ".-")
	if len(s) > MaxSlugLen {
		s = s[:MaxSlugLen] // ASCII only: bytes are characters
	}
	if s == "" {
		return "project"
	}
	return s
}

// ProjectHash returns the first 8 hex digits of the SHA-256 of the project
// key: what makes a slug unique when two projects share it
// (docs/design/storage.md#project-slugs).
func ProjectHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])[:8]
}
