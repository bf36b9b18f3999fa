package bolt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	berrors "go.etcd.io/bbolt/errors"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// inspectFile checks the pages of the kg.db at path before bbolt opens it
// (pages.go), holding a shared lock on the file meanwhile so that no other
// process writes it under the check. It returns nil, nil when the file does
// not exist (a new store), and an error saying what to do when the file
// must not be opened at all.
func inspectFile(path string, timeout time.Duration, readOnly bool) (*pageReport, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, openError(path, timeout, err)
	}
	defer f.Close()
	if err := sharedLock(f, timeout); err != nil {
		return nil, openError(path, timeout, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, unavailable(err, "inspect %s", path)
	}
	r, err := checkPages(f, fi.Size(), readOnly)
	if errors.Is(err, errNotBolt) {
		return nil, unavailable(fmt.Errorf("%w: %w", ports.ErrDamaged, err), "%s cannot be opened: %v; %s", path, err, restoreHint)
	}
	if err != nil {
		return nil, unavailable(err, "inspect %s", path)
	}
	if r.fatal != "" {
		hint := repairHint
		if r.lost {
			hint = restoreHint
		}
		return nil, domain.Unavailable(ports.ErrDamaged, "%s cannot be opened: %s; %s", path, r.fatal, hint)
	}
	return r, nil
}

// sharedLock takes a shared flock on f, waiting at most timeout for a
// process that holds it exclusively (a server with the file open), as
// bbolt does.
func sharedLock(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			return berrors.ErrTimeout
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// damageLine is the line Damage reports for a damaged area.
func damageLine(path string, a area, problem string) string {
	return fmt.Sprintf("%s in %s is damaged (%s): it is unavailable until kg.db is repaired; %s", a, path, problem, repairHint)
}

// areaError is the error of a read or write of a graph whose pages the
// check at Open found damaged: bbolt is not let near them.
func (s *Store) areaError(subject string, a area, problem, verb string) error {
	return domain.Unavailable(fmt.Errorf("%w: %s", ports.ErrDamaged, problem), "%s in %s cannot be %s: the pages of %s are damaged (%s); %s",
		subject, s.path, verb, a, problem, repairHint)
}

// graphDamage returns the damage found at Open under the graph of key: its
// own pages, or, for a project, the list of projects.
func (s *Store) graphDamage(key domain.GraphKey) (area, string, bool) {
	s.damageMu.Lock()
	defer s.damageMu.Unlock()
	if key.Level == domain.LevelUser {
		a := area{kind: areaUser}
		p, ok := s.damaged[a]
		return a, p, ok
	}
	for _, a := range []area{{kind: areaProjects}, {kind: areaProject, name: key.Project}} {
		if p, ok := s.damaged[a]; ok {
			return a, p, true
		}
	}
	return area{}, "", false
}

// projectDamaged reports whether the pages of the project at path are
// damaged, so that listing the projects or claiming a slug passes it by.
func (s *Store) projectDamaged(path string) bool {
	s.damageMu.Lock()
	defer s.damageMu.Unlock()
	_, ok := s.damaged[area{kind: areaProject, name: path}]
	return ok
}

// damagedArea returns the damage found at Open in a.
func (s *Store) damagedArea(a area) (string, bool) {
	s.damageMu.Lock()
	defer s.damageMu.Unlock()
	p, ok := s.damaged[a]
	return p, ok
}

// sessionsDamaged returns the damage found at Open in the sessions' pages.
func (s *Store) sessionsDamaged() (string, bool) {
	s.damageMu.Lock()
	defer s.damageMu.Unlock()
	p, ok := s.damaged[area{kind: areaSessions}]
	return p, ok
}

// takeReport records what the check at Open found: the damaged areas, the
// lines Damage reports, and the log lines.
func (s *Store) takeReport(r *pageReport) {
	s.damaged = map[area]string{}
	for _, a := range r.damagedAreas() {
		problem := r.damaged[a]
		switch {
		case a.expected():
			s.log.Info("bolt: data set aside earlier is damaged, as expected; it is left as it is", "file", s.path, "what", a.String(), "problem", problem)
		case a.kind == areaSessions:
			s.log.Error("bolt: the sessions' pages are damaged; they will be set aside", "file", s.path, "problem", problem)
		case a.kind == areaQuarantine:
			s.log.Warn("bolt: the bucket of data set aside earlier is damaged; it is left as it is", "file", s.path, "problem", problem)
		default:
			s.log.Error("bolt: damaged pages found at start", "file", s.path, "what", a.String(), "problem", problem)
		}
		s.damaged[a] = problem
	}
	s.inspection = Inspection{Refused: r.refuse, CleanClose: r.synced, Leaked: r.leaked, SetAside: r.setAside}
	if r.leaked > 0 {
		s.log.Warn("bolt: pages neither in use nor free (space lost, no data)", "file", s.path, "pages", r.leaked)
	}
}

// Inspection is what the check at Open found beyond the damaged graphs
// Damage names, for kg doctor.
type Inspection struct {
	// Refused says why a read-write Open refuses the file ("" when it
	// opens it). Only a store opened read-only gets this far with it.
	Refused string
	// CleanClose reports whether the file names its free list, as a
	// clean close leaves it (else the next start rebuilds it, ADR 0040).
	CleanClose bool
	// Leaked counts pages neither in use nor free (space lost, no data).
	Leaked int
	// Sessions is the damage found in the sessions' pages, "" for none.
	Sessions string
	// SetAside reports whether the file holds data set aside earlier
	// (damaged sessions, a damaged project removed).
	SetAside bool
}

// Inspection returns what the check at Open found.
func (s *Store) Inspection() Inspection {
	s.damageMu.Lock()
	defer s.damageMu.Unlock()
	in := s.inspection
	in.Sessions = s.damaged[area{kind: areaSessions}]
	return in
}

// Damage returns the damage Open found that still stands, one line each,
// naming the file, what is damaged and what to do (ports.DamageReporter).
// Damaged sessions are not in it: they are set aside at once.
func (s *Store) Damage() []string {
	s.damageMu.Lock()
	defer s.damageMu.Unlock()
	r := pageReport{damaged: s.damaged}
	out := []string{}
	for _, a := range r.damagedAreas() {
		if a.kind != areaSessions && a.kind != areaQuarantine && !a.expected() {
			out = append(out, damageLine(s.path, a, s.damaged[a]))
		}
	}
	return out
}

// PageOwners reads the kg.db at path as Open checks it and returns, per
// page id, the part of the file that holds the page ("" for free pages,
// the meta pages and the free list), and the damage found, by part. It
// changes nothing. Tests use it to know what a damaged page held.
func PageOwners(path string) (owners []string, damaged map[string]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	r, err := checkPages(f, fi.Size(), false)
	if err != nil {
		return nil, nil, err
	}
	if r.fatal != "" {
		return nil, nil, errors.New(r.fatal)
	}
	damaged = map[string]string{}
	for a, p := range r.damaged {
		damaged[a.String()] = p
	}
	return r.owner, damaged, nil
}
