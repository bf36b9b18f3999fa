package ports

import "errors"

// ErrDamaged is wrapped by the errors of a repository that found its stored
// data damaged — a record that does not decode, a page of a database file
// that cannot be read — as opposed to a disk that failed to write. A save
// that fails with it will fail again, so the app makes the graph
// unavailable (and reloads it on the next request) instead of retrying the
// same save with the next write.
var ErrDamaged = errors.New("stored data is damaged")

// DamageReporter is implemented by a repository that inspects its storage
// when it opens and can find damage that no single Load names: pages of a
// database file that cannot be read, an inconsistency bbolt's check finds.
// Damage returns one line per problem, each naming the file, what is
// damaged and what to do; the app lists them in its health report, which
// is then degraded. None found: an empty slice.
type DamageReporter interface {
	Damage() []string
}

// ErrMaybeSaved is wrapped by the error of a save that failed in a way
// that may still leave the change on disk — the disk refused every write,
// even the one that would have voided what was written — so that a restart
// may find the change. The app then tells the writer the change may still
// be saved, never that nothing changed.
var ErrMaybeSaved = errors.New("the change may still be saved")
