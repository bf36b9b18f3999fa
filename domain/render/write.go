package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The answers of the write tools and of kg_progress
// (docs/design/mcp.md): one line for what was written, then a line each
// for what the write redacted, what it may repeat and what the compaction
// run it triggered moved.

// NodeSaved is `Node "x" saved to project graph (v3)`.
func NodeSaved(id, level string, version uint64) string {
	return fmt.Sprintf("Node %q saved to %s graph (v%d)", id, level, version)
}

// EdgeSaved is "Edge a --rel--> b saved to user graph".
func EdgeSaved(key, level string) string { return "Edge " + key + " saved to " + level + " graph" }

// EdgeDeleted is "Edge a --rel--> b deleted from user graph".
func EdgeDeleted(key, level string) string {
	return "Edge " + key + " deleted from " + level + " graph"
}

// EdgeNotFound is the answer of a delete of an edge that is not there,
// which is not an error.
func EdgeNotFound(key string) string { return "Edge not found: " + key }

// NodeDeleted is `Node "x" deleted from user graph, with 3 edges`.
func NodeDeleted(id, level string, edges int) string {
	return fmt.Sprintf("Node %q deleted from %s graph, with %s", id, level, Plural(edges, "edge", "edges"))
}

// Redaction is a secret a write stored redacted.
type Redaction struct {
	Field, Label string // the field, and how a message names the secret's kind
	Start, End   int    // its first and last character, counted from 1
	StoredAs     string // "[REDACTED:aws-access-key]"
}

// RedactedLine is "\nRedacted: notes[1] looked like an AWS access key
// (chars 12–31), stored as [REDACTED:aws-access-key]", one redaction after
// another, or "" for none (docs/design/trust.md#secrets).
func RedactedLine(rs []Redaction) string {
	if len(rs) == 0 {
		return ""
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s looked like %s (chars %d–%d), stored as %s", r.Field, r.Label, r.Start, r.End, r.StoredAs)
	}
	return "\nRedacted: " + strings.Join(parts, "; ")
}

// Duplicate is a node a new one may repeat: by id, or by how alike the
// gists are.
type Duplicate struct {
	ID    string
	ByID  bool
	Score float64
}

// DuplicatesLine is "\nPossible duplicates: auth-token-refresh (0.86),
// Auth_Token (same id)", or "" for none (docs/design/trust.md#duplicates).
func DuplicatesLine(ds []Duplicate) string {
	if len(ds) == 0 {
		return ""
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		if d.ByID {
			parts[i] = d.ID + " (same id)"
		} else {
			parts[i] = fmt.Sprintf("%s (%.2f)", d.ID, d.Score)
		}
	}
	return "\nPossible duplicates: " + strings.Join(parts, ", ")
}

// MovesLine is "\nCompaction: archived a, b; restored c", or "" when the
// run moved nothing.
func MovesLine(archived, restored, orphaned, pruned []string) string {
	var parts []string
	add := func(what string, ids []string) {
		if len(ids) > 0 {
			parts = append(parts, what+" "+strings.Join(ids, ", "))
		}
	}
	add("archived", archived)
	add("restored", restored)
	add("orphaned", orphaned)
	add("pruned", pruned)
	if len(parts) == 0 {
		return ""
	}
	return "\nCompaction: " + strings.Join(parts, "; ")
}

// ProgressSaved is `Progress of task "t" saved to user graph`.
func ProgressSaved(task, level string) string {
	return fmt.Sprintf("Progress of task %q saved to %s graph", task, level)
}

// ProgressNotFound is `No progress found for task "t"`.
func ProgressNotFound(task string) string { return fmt.Sprintf("No progress found for task %q", task) }

// ProgressState is a stored task state, indented when it is valid JSON.
func ProgressState(task, level string, state []byte) string {
	var pretty bytes.Buffer
	if json.Indent(&pretty, state, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(state)
	}
	return fmt.Sprintf("Progress of task %q (%s graph):\n%s", task, level, pretty.String())
}
