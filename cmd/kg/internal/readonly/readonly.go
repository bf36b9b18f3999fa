// Package readonly is the file system of a json store that may read a
// storage root and never write it: kg doctor and the commands that only
// read the root open their stores through it
// (docs/design/operations.md#kg-doctor).
package readonly

import (
	"errors"
	"io/fs"

	"github.com/kg-memory/kg/adapters/storage/jsonfile"
)

// FS is the file system of a json store that may read and never write: a
// load that would set a damaged file aside, or apply an alias, fails
// instead with ErrRefused, which the command reports.
type FS struct{ jsonfile.FS }

// ErrRefused is why a read-only store refused to change a file.
var ErrRefused = errors.New("this command only reads the root and changes nothing")

func (FS) Create(string) (jsonfile.File, error) { return nil, ErrRefused }
func (FS) Append(string) (jsonfile.File, error) { return nil, ErrRefused }
func (FS) Edit(string) (jsonfile.File, error)   { return nil, ErrRefused }
func (FS) Rename(string, string) error          { return ErrRefused }
func (FS) Link(string, string) error            { return ErrRefused }
func (FS) Remove(string) error                  { return ErrRefused }
func (FS) Mkdir(string, fs.FileMode) error      { return ErrRefused }
func (FS) SyncDir(string) error                 { return ErrRefused }
