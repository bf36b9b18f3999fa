package jsonfile

import "time"

// SyncTimer is told how long each fsync of the store took.
type SyncTimer interface {
	// FileSynced is told the duration of one File.Sync.
	FileSynced(took time.Duration)
	// DirSynced is told the duration of one SyncDir.
	DirSynced(took time.Duration)
}

// TimeSyncs returns fsys with every File.Sync and SyncDir timed and told
// to t: the fsync latency of docs/design/operations.md#metrics. Every
// other operation passes straight through to fsys, and so does any the FS
// interface gains later; a new method that opens a File must be wrapped
// here too (TestTimeSyncsWrapsEveryFileOpener fails until it is).
func TimeSyncs(fsys FS, t SyncTimer) FS {
	return timedFS{FS: fsys, t: t}
}

type timedFS struct {
	FS
	t SyncTimer
}

// Create implements FS: the file's Sync is timed.
func (f timedFS) Create(name string) (File, error) {
	file, err := f.FS.Create(name)
	if err != nil {
		return nil, err
	}
	return timedFile{File: file, t: f.t}, nil
}

// Append implements FS: the file's Sync (a journal's fsync) is timed.
func (f timedFS) Append(name string) (File, error) {
	file, err := f.FS.Append(name)
	if err != nil {
		return nil, err
	}
	return timedFile{File: file, t: f.t}, nil
}

// Edit implements FS: the file's Sync (a voided journal record's) is timed.
func (f timedFS) Edit(name string) (File, error) {
	file, err := f.FS.Edit(name)
	if err != nil {
		return nil, err
	}
	return timedFile{File: file, t: f.t}, nil
}

// SyncDir implements FS, timed.
func (f timedFS) SyncDir(name string) error {
	start := time.Now()
	err := f.FS.SyncDir(name)
	f.t.DirSynced(time.Since(start))
	return err
}

type timedFile struct {
	File
	t SyncTimer
}

// Sync implements File, timed.
func (f timedFile) Sync() error {
	start := time.Now()
	err := f.File.Sync()
	f.t.FileSynced(time.Since(start))
	return err
}
