package jsonfile

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"path/filepath"
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
// when it is a whole record with a matching checksum.
func parseRecord(line []byte) ([]byte, bool) {
	if len(line) < len(recordHead)+recordTrailer || !bytes.HasPrefix(line, []byte(recordHead)) {
		return nil, false
	}
	tail := line[len(line)-recordTrailer:]
	if !bytes.HasPrefix(tail, []byte(recordTail)) || !bytes.HasSuffix(tail, []byte(`"}`)) {
		return nil, false
	}
	var sum [4]byte
	if _, err := hex.Decode(sum[:], tail[len(recordTail):len(recordTail)+8]); err != nil {
		return nil, false
	}
	payload := line[len(recordHead) : len(line)-recordTrailer]
	return payload, crc32.Checksum(payload, castagnoli) == binary.BigEndian.Uint32(sum[:])
}

// journalDamage reports a bad record followed by good ones: not a torn
// write, which only the last record can be, but damage.
type journalDamage struct {
	offset int // of the first bad record
	why    string
}

func (d *journalDamage) Error() string {
	return fmt.Sprintf("bad record at byte %d followed by good ones (%s)", d.offset, d.why)
}

// scanJournal splits a journal into the payloads of its records, in order.
// good is the length of the prefix the whole records fill. What lies past
// good is a torn tail, never acknowledged, unless a whole record follows
// it: then the journal is damaged (a *journalDamage).
func scanJournal(b []byte) (payloads [][]byte, good int, err error) {
	for good < len(b) {
		end := bytes.IndexByte(b[good:], '\n')
		if end >= 0 {
			if p, ok := parseRecord(b[good : good+end]); ok {
				payloads = append(payloads, p)
				good += end + 1
				continue
			}
		}
		// A bad record: damage if any whole record comes after it.
		for rest := good + end + 1; end >= 0 && rest < len(b); {
			next := bytes.IndexByte(b[rest:], '\n')
			if next < 0 {
				break
			}
			if _, ok := parseRecord(b[rest : rest+next]); ok {
				return payloads, good, &journalDamage{offset: good, why: "checksum or framing"}
			}
			rest += next + 1
		}
		return payloads, good, nil
	}
	return payloads, good, nil
}

// journal is what the store knows of one journal file, and its handle
// open for appending.
type journal struct {
	path string
	f    File  // nil until needed
	size int64 // bytes of whole records in the file
	// dirty is set when a failed append left bytes past size that could not
	// be cut off: nothing may be appended after them until a checkpoint
	// empties the journal.
	dirty bool
}

// open opens the journal for appending. A journal it creates has its
// folder fsynced, so that records acknowledged in it cannot vanish with
// its name.
func (s *Store) openJournal(j *journal) error {
	if j.f != nil {
		return nil
	}
	_, err := s.fs.Stat(j.path)
	created := errors.Is(err, fs.ErrNotExist)
	f, err := s.fs.Append(j.path)
	if err != nil {
		return err
	}
	if created {
		if err := s.fs.SyncDir(filepath.Dir(j.path)); err != nil {
			_ = f.Close()
			return err
		}
	}
	j.f = f
	return nil
}

// closeJournal drops the handle, as when the file it names has vanished.
func (j *journal) closeJournal() {
	if j.f != nil {
		_ = j.f.Close()
		j.f = nil
	}
}

// appendRecord appends one framed record and fsyncs it. On error the
// journal is cut back to the records it held, so that a failed batch never
// reaches a later load; if that fails too the journal is marked dirty.
func (s *Store) appendRecord(j *journal, rec []byte) error {
	if j.dirty {
		return errors.New("journal holds a failed write that could not be cut off")
	}
	if err := s.openJournal(j); err != nil {
		return err
	}
	_, err := j.f.Write(rec)
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		if terr := j.f.Truncate(j.size); terr != nil {
			j.dirty = true
		}
		return err
	}
	j.size += int64(len(rec))
	return nil
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
	if err := s.openJournal(j); err != nil {
		return err
	}
	if err := j.f.Truncate(size); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.size, j.dirty = size, false
	return nil
}
