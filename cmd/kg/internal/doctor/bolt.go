package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// CheckBolt checks <root>/kg.db, opened read-only (nothing is written to
// it, not even its free list): the check of its pages that every Open
// makes, then every graph and the sessions load.
func (c *Checkup) CheckBolt(ctx context.Context, progress func(done, total int)) {
	s, err := bolt.Open(ctx, c.Root, bolt.Options{ReadOnly: true, Logger: quiet})
	if err != nil {
		c.Add(LevelError, bolt.FileName, err.Error(),
			"if another process holds it, stop that; otherwise nothing in it can be read: restore kg.db from a backup (docs/operations.md#backup-and-restore)")
		return
	}
	defer s.Close()
	salvage := fmt.Sprintf("stop kg, then `kg migrate --to json --storage-root %s`: it copies every graph and session it can still read into json files, "+
		"names what it could not, and keeps kg.db as it is; then start kg with --storage json (or restore kg.db from a backup, docs/operations.md#backup-and-restore)", c.Root)
	in := s.Inspection()
	switch {
	case in.Refused != "":
		c.Add(LevelError, bolt.FileName, "kg serve refuses this file: "+in.Refused, salvage)
	case !in.CleanClose:
		c.Add(LevelInfo, bolt.FileName, "not closed cleanly (a kill, a power cut): the next start rebuilds its list of free pages from its pages",
			"nothing to do")
	default:
		c.Add(LevelOK, bolt.FileName, "every page reads", "")
	}
	for _, d := range s.Damage() {
		c.Add(LevelError, bolt.FileName, d, salvage)
	}
	if in.Leaked > 0 {
		c.Add(LevelInfo, bolt.FileName, fmt.Sprintf("%d page(s) neither in use nor free: space lost, no data", in.Leaked), "nothing to do")
	}
	if in.SetAside {
		c.Add(LevelInfo, bolt.FileName, "holds data set aside earlier (damaged sessions, or a damaged project removed), kept unread under quarantine/",
			"nothing to do")
	}

	sessions, err := s.LoadSessions(ctx)
	switch {
	case err == nil:
		c.Add(LevelOK, bolt.FileName+" sessions", fmt.Sprintf("%d session(s)", len(sessions)), "")
	case errors.Is(err, ports.ErrDamaged):
		c.Add(LevelWarn, bolt.FileName+" sessions", err.Error(),
			"nothing to do but start kg: it sets the damaged sessions aside, unread, and starts with none (agents start new ones)")
	default:
		c.Add(LevelError, bolt.FileName+" sessions", err.Error(), salvage)
	}
	stored, err := s.List(ctx)
	if err != nil && !errors.Is(err, ports.ErrDamaged) { // damaged: Damage said so
		c.Add(LevelError, bolt.FileName, err.Error(), salvage)
	}
	keys := append([]ports.StoredGraph{{Key: domain.UserGraph, Slug: "user"}}, stored...)
	for i, sg := range keys {
		progress(i, len(keys))
		name := bolt.FileName + " " + sg.Key.String()
		d, err := s.Load(ctx, sg.Key)
		switch {
		case err == nil:
			c.Add(LevelOK, name, c.graphSummary(d), "")
			c.checkSchema(name, d, "bolt")
			if sg.Key.Level == domain.LevelProject {
				c.checkProject(sg.Key.Project, d)
			}
			c.CheckContent(ctx, sg.Key, d)
		case errors.Is(err, ports.ErrDamaged) && pagesDamaged(err):
			// Its pages: Damage named them above.
		default:
			c.Add(LevelError, name, err.Error(), salvage)
		}
	}
	progress(len(keys), len(keys))
	c.checkSessions(bolt.FileName+" sessions", sessions)
}

// pagesDamaged reports whether err is the refusal of a graph whose pages
// the check at Open found damaged (already a finding), rather than an item
// that does not decode.
func pagesDamaged(err error) bool { return strings.Contains(err.Error(), "the pages of") }
