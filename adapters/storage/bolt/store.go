package bolt

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var (
	_ ports.GraphRepository   = (*Store)(nil)
	_ ports.SessionRepository = (*Store)(nil)
)

// FileName is the name of the database file inside the storage root.
const FileName = "kg.db"

// DefaultTimeout is how long Open waits for the file lock held by another
// process before it gives up.
const DefaultTimeout = time.Second

// formatVersion is the layout of the buckets, recorded in the kg bucket so a
// later layout can be migrated on purpose.
const formatVersion = "1"

// Top-level buckets and the sub-buckets of every graph bucket.
var (
	bucketKG       = []byte("kg")
	bucketUser     = []byte("user")
	bucketProjects = []byte("projects")
	bucketSessions = []byte("sessions")

	subNodes     = []byte("nodes")
	subEdges     = []byte("edges")
	subNodeTombs = []byte("node_tombstones")
	subEdgeTombs = []byte("edge_tombstones")
	subProgress  = []byte("progress")
	subHistory   = []byte("history")
	subMeta      = []byte("meta")

	keyFormat = []byte("format")
)

// Options tune Open. The zero value is valid.
type Options struct {
	// Timeout bounds the wait for the file lock; DefaultTimeout when zero.
	Timeout time.Duration
	// Logger receives what the store notices; slog.Default() when nil.
	Logger *slog.Logger
	// ReadOnly opens the file without writing anything to it, ever: no
	// root or file is created, no free list is written at Close, damaged
	// sessions are not set aside, and every Commit fails. For the commands
	// that only read (kg doctor, kg export, kg migrate's source).
	ReadOnly bool
}

// Stats counts what the store wrote since it was opened, for metrics and
// for tests that check a commit writes only what changed.
type Stats struct {
	Commits uint64 // committed transactions of Commit and UpdateSessions
	Puts    uint64 // items written by committed transactions
	Deletes uint64 // items deleted by committed transactions
}

// Store keeps every graph and the sessions of one root in a bbolt file. It
// implements ports.GraphRepository and ports.SessionRepository.
type Store struct {
	db   *bbolt.DB
	path string
	log  *slog.Logger

	faultMu sync.Mutex
	fault   error

	readOnly bool

	// damaged holds the areas whose pages the check at Open found damaged:
	// bbolt never reads them (inspect.go). The sessions leave it once set
	// aside.
	damageMu   sync.Mutex
	damaged    map[area]string
	inspection Inspection

	commits, puts, deletes atomic.Uint64
}

// initialMmapSize is the size of the file's first mapping: address space
// only, which the file fills as it grows. Each time bbolt maps a grown file
// again it first copies every key and value of the open write transaction
// to the heap, and the mapping grows by doubling from 32 KiB, so one large
// transaction (an import of 500,000 nodes) was copied about 15 times over,
// 2.3 GB allocated and the save's peak doubled. A file within this size is
// never mapped again (docs/design/storage.md#bolt-mapping).
const initialMmapSize = 1 << 30

// growthStep is how far past its pages bbolt grows a file of size bytes
// (DB.AllocSize, set before each graph commit, under the writer lock).
// bbolt grows a file mapped larger than 16 MiB in steps of 16 MiB, which,
// with the mapping above, would make every kg.db 16 MiB long from its first
// write and stop a start under a small file-size limit. A quarter of the
// file, from 32 KiB to bbolt's 16 MiB, keeps the growths few (each is a
// truncate and an fsync) and the tail small.
func growthStep(size int64) int {
	return int(min(max(size/4, 32<<10), 16<<20)) // 16 MiB: bbolt's DefaultAllocSize
}

// Open opens or creates <root>/kg.db (mode 0600). When another process
// holds the file it fails after opt.Timeout with an unavailable error that
// says so, instead of waiting for ever. Before bbolt reads the file, every
// page it could reach is read and checked from the file itself (pages.go):
// a file kg must not open — a symbolic link, an empty or truncated file,
// unreadable meta pages or free list, pages in use and free at once, a
// file left without its free list that has damaged pages — is refused with
// an error that says what to do; damaged pages of a graph (or of the
// sessions) are reported by Damage, and bbolt is never let near them: only
// what lies under them is unavailable (docs/decisions/0044-bolt-page-check.md).
func Open(ctx context.Context, root string, opt Options) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, unavailable(err, "open bolt store")
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	path := filepath.Join(root, FileName)
	if !opt.ReadOnly {
		if err := os.MkdirAll(root, 0o700); err != nil {
			return nil, unavailable(err, "create storage root %s", root)
		}
	}
	if err := checkFile(path); err != nil {
		return nil, err
	}
	report, err := inspectFile(path, opt.Timeout, opt.ReadOnly)
	if err != nil {
		return nil, err
	}
	if report == nil && opt.ReadOnly {
		return nil, domain.Unavailable(fs.ErrNotExist, "%s does not exist: the root holds no bolt data", path)
	}
	if report != nil && !report.synced && len(report.damaged) > 0 {
		// bbolt would rebuild the free list by walking every page in a
		// goroutine of its own, where a damaged page kills the process,
		// and count the pages under it as free (ADR 0040). Read-only, it
		// is never rebuilt.
		why := fmt.Sprintf("it was not closed cleanly, so bbolt must rebuild its free list from its pages, and some of them are damaged (%s)",
			report.damaged[report.damagedAreas()[0]])
		if !opt.ReadOnly {
			return nil, domain.Unavailable(ports.ErrDamaged, "%s cannot be opened: %s; %s", path, why, repairHint)
		}
		if report.refuse == "" {
			report.refuse = why
		}
	}
	var db *bbolt.DB
	err = recovered(func() error {
		var err error
		// The free list is kept in memory, as a hash map, and written
		// only at Close (ADR 0040): writing it with every commit cost
		// O(free pages), 33 pages per write in a file with 16k free.
		// The file is mapped initialMmapSize large from the start: see there.
		db, err = bbolt.Open(path, 0o600, &bbolt.Options{Timeout: opt.Timeout, OpenFile: noFollow, ReadOnly: opt.ReadOnly,
			NoFreelistSync: true, FreelistType: bbolt.FreelistMapType, InitialMmapSize: initialMmapSize})
		return err
	})
	if err != nil {
		return nil, openError(path, opt.Timeout, err)
	}
	db.AllocSize = growthStep(0)
	s := &Store{db: db, path: path, log: opt.Logger, readOnly: opt.ReadOnly, damaged: map[area]string{}}
	if report != nil {
		s.takeReport(report)
	}
	if len(s.damaged) > 0 && !opt.ReadOnly {
		// Keep the free list on disk while pages are damaged: a file
		// without one cannot be opened again before it is repaired.
		db.NoFreelistSync = false
	}
	err = recovered(func() error { return initBuckets(db, opt.ReadOnly) })
	if err != nil {
		_ = db.Close()
		if domain.KindOf(err) == domain.KindUnavailable {
			return nil, err
		}
		return nil, unavailable(err, "initialise %s", path)
	}
	return s, nil
}

// initBuckets checks the layout version of an existing file, and records
// it and creates the top-level buckets in a new one. An existing file is
// only read.
func initBuckets(db *bbolt.DB, readOnly bool) error {
	complete := false
	err := db.View(func(tx *bbolt.Tx) error {
		kg := tx.Bucket(bucketKG)
		if kg == nil {
			return nil
		}
		if v := kg.Get(keyFormat); v != nil && string(v) != formatVersion {
			return fmt.Errorf("layout version %q, this kg reads %q", v, formatVersion)
		}
		complete = kg.Get(keyFormat) != nil
		for _, b := range [][]byte{bucketUser, bucketProjects, bucketSessions} {
			complete = complete && tx.Bucket(b) != nil
		}
		return nil
	})
	if err != nil || complete || readOnly {
		return err
	}
	return db.Update(func(tx *bbolt.Tx) error {
		kg, err := tx.CreateBucketIfNotExists(bucketKG)
		if err != nil {
			return err
		}
		if kg.Get(keyFormat) == nil {
			if err := kg.Put(keyFormat, []byte(formatVersion)); err != nil {
				return err
			}
		}
		for _, b := range [][]byte{bucketUser, bucketProjects, bucketSessions} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close writes the free list, so that the next Open reads it rather than
// rebuilding it from every page (ADR 0040), and releases the file and its
// lock. A free list that cannot be written is logged, not returned: nothing
// is lost, the next Open rebuilds it.
func (s *Store) Close() error {
	if s.readOnly {
		if err := s.db.Close(); err != nil {
			return unavailable(err, "close %s", s.path)
		}
		return nil
	}
	err := recovered(func() error {
		return s.db.Update(func(*bbolt.Tx) error {
			s.db.NoFreelistSync = false // read by this commit, under the writer lock
			return nil
		})
	})
	if err != nil && !errors.Is(err, berrors.ErrDatabaseNotOpen) {
		s.log.Warn("bolt: could not write the free list at close; the next start rebuilds it", "file", s.path, "err", err)
	}
	if err := s.db.Close(); err != nil {
		return unavailable(err, "close %s", s.path)
	}
	return nil
}

// Path returns the path of the database file.
func (s *Store) Path() string { return s.path }

// Stats returns the counts of committed writes since Open.
func (s *Store) Stats() Stats {
	return Stats{Commits: s.commits.Load(), Puts: s.puts.Load(), Deletes: s.deletes.Load()}
}

// InjectFault makes every following Commit and UpdateSessions fail with err,
// after it has written its items, from inside the transaction, so bbolt
// rolls the transaction back as it would on a real write error. A nil err
// removes the fault. This is how the contract tests produce a failing disk.
func (s *Store) InjectFault(err error) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	s.fault = err
}

func (s *Store) injected() error {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	return s.fault
}

// Check runs bbolt's consistency check of the whole file and returns the
// problems found, if any. Tests call it after each case.
func (s *Store) Check() error {
	return s.db.View(func(tx *bbolt.Tx) error {
		// Drain the channel: the checker goroutine blocks until every
		// error has been received.
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}

// counter counts the writes of one transaction; they are added to the
// store's totals only once the transaction has committed.
type counter struct{ puts, deletes uint64 }

func (c *counter) put(b *bbolt.Bucket, k, v []byte) error {
	c.puts++
	return b.Put(k, v)
}

func (c *counter) del(b *bbolt.Bucket, k []byte) error {
	if b.Get(k) == nil {
		return nil // nothing stored: no write
	}
	c.deletes++
	return b.Delete(k)
}

func (s *Store) record(c counter) {
	s.commits.Add(1)
	s.puts.Add(c.puts)
	s.deletes.Add(c.deletes)
}
