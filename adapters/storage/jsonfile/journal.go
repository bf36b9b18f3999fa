package jsonfile

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kg-memory/kg/ports"
)

// The journal (docs/decisions/0011-json-journal.md). Beside a stored file
// <stem>.json, <stem>.journal holds one record per saved batch, each one
// line:
//
//	{"batch":<payload>,"crc32c":"<8 hex digits>"}\n
//
// The payload is compact JSON (it holds no newline) and the checksum is the
// CRC-32C (Castagnoli) of its bytes. A record is appended and fsynced before
// its batch is acknowledged, and only then is the next one appended, so a
// crash can leave at most one torn record, at the end.

const (
	recordHead = `{"batch":`
	recordTail = `,"crc32c":"` // then 8 hex digits and `"}`
	// recordTrailer is the length of what follows the payload.
	recordTrailer = len(recordTail) + 8 + len(`"}`)
	// minCheckpoint is the journal size below which only the tick and shutdown
	// fold a journal into its file (docs/design/storage.md#checkpoint).
	minCheckpoint = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// frameRecord appends payload to dst as one journal record.
func frameRecord(dst, payload []byte) []byte {
	dst = append(dst, recordHead...)
	dst = append(dst, payload...)
	dst = append(dst, recordTail...)
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc32.Checksum(payload, castagnoli))
	dst = hex.AppendEncode(dst, sum[:])
	return append(dst, '"', '}', '\n')
}

// parseRecord returns the payload of line (a record without its newline)
// when it is a whole record with a matching checksum; otherwise why not.
func parseRecord(line []byte) (payload []byte, why string) {
	if len(line) < len(recordHead)+recordTrailer || !bytes.HasPrefix(line, []byte(recordHead)) {
		return nil, "not a journal record"
	}
	tail := line[len(line)-recordTrailer:]
	if !bytes.HasPrefix(tail, []byte(recordTail)) || !bytes.HasSuffix(tail, []byte(`"}`)) {
		return nil, "not a journal record"
	}
	var sum [4]byte
	if _, err := hex.Decode(sum[:], tail[len(recordTail):len(recordTail)+8]); err != nil {
		return nil, "not a journal record"
	}
	payload = line[len(recordHead) : len(line)-recordTrailer]
	if crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(sum[:]) {
		return nil, "its checksum does not match"
	}
	return payload, ""
}

// JournalDamage is the cause of the error of a journal that holds a damaged
// record: a whole line (it ends in a newline) that is not a record or fails
// its checksum, or a record that does not decode. A kill cannot leave
// one: a record is written by one append, so only the last line can be torn,
// and a torn line has no newline. Line and Offset name the damaged record,
// so that a person (and kg doctor) can find it
// (docs/design/storage.md#replay-at-load).
type JournalDamage struct {
	Line   int    // 1-based line number of the damaged record
	Offset int    // its first byte
	Reason string // what is wrong with it
	// Last reports that no record follows it.
	Last bool
}

func (d *JournalDamage) Error() string {
	where := "good records follow it"
	if d.Last {
		where = "the last record"
	}
	return fmt.Sprintf("line %d (byte %d): %s (%s)", d.Line, d.Offset, d.Reason, where)
}

// Unwrap makes a damaged journal a ports.ErrDamaged.
func (d *JournalDamage) Unwrap() error { return ports.ErrDamaged }

// journalRecord is one whole record of a journal.
type journalRecord struct {
	payload []byte
	line    int // 1-based
	offset  int
}

// scanJournal splits a journal into its records, in order. good is the
// length of the prefix the whole records fill. What lies past good is a
// torn tail (never acknowledged: bytes after the last newline), unless a
// whole line there is not a record: then the journal is damaged, a
// *JournalDamage naming that line.
func scanJournal(b []byte) (records []journalRecord, good int, err error) {
	for line := 1; good < len(b); line++ {
		end := bytes.IndexByte(b[good:], '\n')
		if end < 0 {
			return records, good, nil // a torn tail
		}
		p, why := parseRecord(b[good : good+end])
		if why != "" {
			return records, good, &JournalDamage{Line: line, Offset: good, Reason: why,
				Last: bytes.IndexByte(b[good+end+1:], '\n') < 0}
		}
		records = append(records, journalRecord{payload: p, line: line, offset: good})
		good += end + 1
	}
	return records, good, nil
}

// journal is what the store knows of one journal file. The file is opened
// for each append or truncation and closed after it, never held between
// calls: a server with thousands of loaded graphs must not hold a file
// descriptor for each (one more request would then fail to open a socket).
type journal struct {
	path string
	// id is the file as it was last opened, to notice that the name has
	// since been given to another file (deleted and made again); nil until
	// the first open.
	id   fs.FileInfo
	size int64 // bytes of whole records in the file
	// dirty is set when a failed append left bytes past size that could not
	// be cut off: nothing may be appended after them until a checkpoint
	// empties the journal.
	dirty bool
}

// openJournal opens the journal for appending; the caller closes it. A
// journal it creates has its folder fsynced, so that records acknowledged
// in it cannot vanish with its name.
func (s *Store) openJournal(j *journal) (File, error) {
	_, err := s.fs.Stat(j.path)
	created := errors.Is(err, fs.ErrNotExist)
	f, err := s.fs.Append(j.path)
	if err != nil {
		return nil, err
	}
	if created {
		if err := s.fs.SyncDir(filepath.Dir(j.path)); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	if fi, err := f.Stat(); err == nil {
		j.id = fi
	}
	return f, nil
}

// replaced reports whether the journal's name now names another file than
// the one last opened, or none: the records this process counted are gone.
func (s *Store) replaced(j *journal) bool {
	if j.id == nil {
		return false
	}
	fi, err := s.fs.Stat(j.path)
	return err != nil || !os.SameFile(fi, j.id)
}

// forget drops what is known of the file, as when it has vanished.
func (j *journal) forget() { j.id = nil }

// appendRecord appends one framed record and fsyncs it. On error the
// record is taken back (refuseRecord), so that a failed batch never
// reaches a later load, and the journal is marked dirty when the cut did
// not succeed.
func (s *Store) appendRecord(j *journal, rec []byte) (err error) {
	if j.dirty {
		return errors.New("journal holds a failed write that could not be cut off")
	}
	f, err := s.openJournal(j)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			// The record is synced; a failed close loses nothing.
			s.log.Warn("storage: closing the journal failed", "journal", j.path, "err", cerr)
		}
	}()
	written, err := f.Write(rec)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return s.refuseRecord(j, f, int64(len(rec)), written == len(rec), err)
	}
	j.size += int64(len(rec))
	return nil
}

// refuseRecord takes back a record of n bytes whose write or fsync failed
// with cause, before the refusal is returned: a refused write must never
// come back at the next start
// (docs/decisions/0075-a-refused-journal-record-is-voided-on-disk.md). The
// journal is cut back to its records and the cut fsynced; when that fails
// (the disk went read-only in between), the record is voided: its final
// newline is overwritten, so that its bytes form a torn tail, which every
// load drops as never acknowledged. When even that cannot be made durable,
// the record may be replayed, and the error wraps ports.ErrMaybeSaved: the
// writer must not be told that nothing changed.
//
// whole says the write returned with every byte written; a short write
// left no newline (the record's last byte), so its bytes are a torn tail
// already and only the cut is tried.
func (s *Store) refuseRecord(j *journal, f File, n int64, whole bool, cause error) error {
	cut := f.Truncate(j.size)
	if cut == nil {
		if cut = f.Sync(); cut == nil {
			return cause
		}
		// The cut is made but may not be durable: the record's bytes
		// may still be on disk below a size that was. Voiding them
		// would write past the cut, so this is as far as it goes.
		j.dirty = true
		return s.maybeSaved(j, cause, fmt.Errorf("cutting it off: fsync: %w", cut))
	}
	j.dirty = true
	if !whole {
		s.log.Warn("storage: a short journal write could not be cut off; it holds no newline and is dropped at the next load",
			"journal", j.path, "offset", j.size, "cut_err", cut)
		return cause
	}
	if err := s.voidRecord(j, n); err != nil {
		return s.maybeSaved(j, cause, fmt.Errorf("cutting it off: %w; voiding it: %w", cut, err))
	}
	s.log.Warn("storage: a refused journal record could not be cut off; it was voided and is dropped at the next load",
		"journal", j.path, "offset", j.size, "bytes", n, "cut_err", cut)
	return cause
}

// voidRecord overwrites the last byte of the n-byte record at the end of
// the journal's whole records (its newline) with a space, and fsyncs it.
// A record's payload holds no newline, so what follows the whole records
// then has none: a torn tail.
func (s *Store) voidRecord(j *journal, n int64) error {
	f, err := s.fs.Edit(j.path)
	if err != nil {
		return err
	}
	_, err = f.WriteAt([]byte{' '}, j.size+n-1)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// maybeSaved is the error of a record that failed with cause and could not
// be taken back (why).
func (s *Store) maybeSaved(j *journal, cause, why error) error {
	s.log.Error("storage: a failed journal record could not be taken back; it may be replayed at the next start",
		"journal", j.path, "offset", j.size, "err", cause, "why", why)
	return fmt.Errorf("%w (%w: %v)", cause, ports.ErrMaybeSaved, why)
}

// dropTornTail cuts a record torn by a crash off the end of a journal that
// replayed up to good of its total bytes: a record cut short was never
// acknowledged. When the cut fails, the journal is marked dirty, so the next
// save writes the file whole and empties the journal rather than append
// after the torn bytes.
func (s *Store) dropTornTail(j *journal, path string, good, total int) {
	if good >= total {
		return
	}
	s.log.Warn("storage: dropped a torn record at the end of the journal; it was never acknowledged",
		"journal", path, "bytes", total-good)
	if err := s.truncateJournal(j, int64(good)); err != nil {
		j.dirty = true
		s.log.Error("storage: could not drop the torn record", "journal", path, "err", err)
	}
}

// truncateJournal cuts the journal to size bytes and fsyncs it: to empty it
// after a checkpoint (0) or to drop a torn tail.
func (s *Store) truncateJournal(j *journal, size int64) error {
	f, err := s.openJournal(j)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	j.size, j.dirty = size, false
	return nil
}
