package doctor

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/cmd/kg/internal/readonly"
	"github.com/kg-memory/kg/domain"
)

// removedPrefix begins the folders `kg project rm` moves out of projects/.
const removedPrefix = jsonfile.RemovedPrefix

// stemFiles are the files of one stored json file: <stem>.json, its .prev
// and its .journal.
type stemFiles struct {
	dir, stem string
}

func (f stemFiles) file() string    { return filepath.Join(f.dir, f.stem+".json") }
func (f stemFiles) prev() string    { return filepath.Join(f.dir, f.stem+".prev") }
func (f stemFiles) journal() string { return filepath.Join(f.dir, f.stem+".journal") }

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// CheckJSON checks a json root: every graph and the sessions are loaded
// through a store that cannot write, and when one does not load, each of
// its files is tried on its own and its journal read record by record, so
// that the finding names the file, the line and the byte, and the fix works.
func (c *Checkup) CheckJSON(ctx context.Context, progress func(done, total int), served bool) {
	s, err := jsonfile.Open(c.Root, jsonfile.Options{FS: readonly.FS{FS: jsonfile.OS{}}, Logger: quiet})
	if err != nil {
		c.Add(LevelError, c.Root, err.Error(), "")
		return
	}
	sessions, err := s.LoadSessions(ctx)
	sf := stemFiles{c.Root, "sessions"}
	if err == nil {
		c.loadedFrom(sf, fmt.Sprintf("%d session(s)", len(sessions)))
	} else {
		c.damagedFiles(sf, err, c.probeSessions, fixSessions)
	}
	c.checkSessions("sessions.json", sessions)

	aliases := c.checkAliases()
	stored, err := s.List(ctx)
	if err != nil {
		c.Add(LevelError, "projects/", err.Error(), "replace it with a folder (kg does not follow links inside its root), or restore it from a backup")
	}
	owners := map[string]string{} // folder → project
	for _, sg := range stored {
		owners[sg.Slug] = sg.Key.Project
	}
	folders := c.projectFolders()
	total := len(folders) + 1
	progress(0, total)
	uf := stemFiles{c.Root, "user"}
	if d, err := s.Load(ctx, domain.UserGraph); err == nil {
		c.loadedFrom(uf, c.graphSummary(d))
		c.checkSchema("user.json", d, "json")
		c.CheckContent(ctx, domain.UserGraph, d)
	} else {
		c.damagedFiles(uf, err, c.probeGraph, fixGraph)
	}
	for i, folder := range folders {
		progress(i+1, total)
		c.checkFolder(ctx, s, folder, owners, aliases)
	}
	progress(total, total)
	c.checkLeftovers(served)
}

// checkFolder checks one folder under projects/.
func (c *Checkup) checkFolder(ctx context.Context, s *jsonfile.Store, folder string, owners, aliases map[string]string) {
	dir := filepath.Join(c.Root, "projects", folder)
	gf := stemFiles{dir, "graph"}
	name := filepath.Join("projects", folder, "graph.json")
	if !exists(gf.file()) && !exists(gf.prev()) && !exists(gf.journal()) {
		c.Add(LevelInfo, c.Rel(dir), "a project folder without a graph", "nothing to do; delete it if you made it")
		return
	}
	project, listed := owners[folder]
	if !listed {
		// List passes a folder by when its owner cannot be read, when it
		// records none (the replaced server's), or when another folder
		// claims the same project first.
		claimed := recordedProject(gf)
		if target, ok := aliases[folder]; ok && claimed != "" && !exists(filepath.Join(c.Root, "projects", target, "graph.json")) {
			c.Add(LevelInfo, c.Rel(dir), fmt.Sprintf("aliases.json moves it to projects/%s, with its graph, the first time its project %s is used", target, claimed),
				"nothing to do")
			return
		}
		switch other := folderOf(owners, claimed); {
		case claimed != "" && other != "":
			c.Add(LevelWarn, c.Rel(dir), fmt.Sprintf("claims the project %s, which projects/%s claims too; kg serves projects/%s", claimed, other, other),
				fmt.Sprintf("look at both; keep what you want of this one (`kg import` a document made from it into the project), then delete %s", dir))
			return
		case claimed == "" && exists(gf.file()) && c.probeGraph(gf.file()) == nil:
			c.Add(LevelInfo, c.Rel(dir), fmt.Sprintf("records no project (a folder of the replaced server): kg serves it to the first project whose folder is named %q", folder),
				"nothing to do")
			return
		}
		c.damagedFiles(gf, fmt.Errorf("its project cannot be told"), c.probeGraph, fixGraph)
		return
	}
	d, err := s.Load(ctx, domain.ProjectGraph(project))
	if err != nil {
		if target, ok := aliases[folder]; ok && errors.Is(err, readonly.ErrRefused) {
			c.Add(LevelInfo, c.Rel(dir), fmt.Sprintf("aliases.json moves it to projects/%s, with its graph, the first time its project %s is used", target, project),
				"nothing to do")
			return
		}
		c.damagedFiles(gf, err, c.probeGraph, fixGraph)
		return
	}
	c.loadedFrom(gf, c.graphSummary(d))
	c.checkSchema(name, d, "json")
	c.checkProject(project, d)
	c.CheckContent(ctx, domain.ProjectGraph(project), d)
}

// folderOf returns the folder List gives project, "" for none.
func folderOf(owners map[string]string, project string) string {
	for f, p := range owners {
		if p == project && project != "" {
			return f
		}
	}
	return ""
}

// recordedProject is the project path the graph file (or else its .prev)
// records, "" when neither records one or neither reads.
func recordedProject(f stemFiles) string {
	for _, p := range []string{f.file(), f.prev()} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var m struct {
			Meta struct {
				ProjectPath string `json:"project_path"`
			} `json:"_meta"`
		}
		if json.Unmarshal(b, &m) == nil {
			return m.Meta.ProjectPath
		}
	}
	return ""
}

// projectFolders lists the folders under projects/, sorted.
func (c *Checkup) projectFolders() []string {
	entries, err := os.ReadDir(filepath.Join(c.Root, "projects"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// loadedFrom records a file set that loaded, and says what a load that
// worked around something did: a graph file missing beside its .prev, a
// torn last journal record.
func (c *Checkup) loadedFrom(f stemFiles, summary string) {
	name := c.Rel(f.file())
	if !exists(f.file()) && !exists(f.prev()) && journalHoldsWrites(f.journal()) {
		c.journalOnly(f)
		c.Add(LevelOK, name, summary, "")
	} else if !exists(f.file()) && exists(f.prev()) {
		c.Add(LevelWarn, name, fmt.Sprintf("missing; %s, the version before its last save, loads instead (%s), and the journal is replayed on it", c.Rel(f.prev()), summary),
			fmt.Sprintf("restore %s from a backup if you have one (what its last save added is not in %s); otherwise nothing to do: kg writes it again at its next save",
				name, c.Rel(f.prev())))
	} else {
		c.Add(LevelOK, name, summary, "")
	}
	if j := scanJournalFile(f.journal()); j.torn != nil {
		c.Add(LevelInfo, c.Rel(f.journal()), fmt.Sprintf("its last record (line %d, bytes %d–%d) is cut short: a write a crash interrupted before it was acknowledged", j.torn.line, j.torn.start, j.torn.end),
			"nothing to do: kg drops it at the next write or checkpoint")
	}
}

// journalHoldsWrites reports whether the journal at p is a regular file
// that holds something.
func journalHoldsWrites(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Size() > 0
}

// journalOnly reports a graph whose file and .prev are gone but whose
// journal holds writes: the server serves those writes (to the project the
// journal's records name) and has lost what only the file held
// (docs/design/storage.md#folder-lookup).
func (c *Checkup) journalOnly(f stemFiles) {
	into := c.Rel(f.dir)
	if f.dir == c.Root {
		into = "the storage root"
	}
	fi, _ := os.Lstat(f.journal())
	c.Add(LevelWarn, c.Rel(f.journal()),
		fmt.Sprintf("%s.json and %s.prev are missing: only the journal is left (%d bytes), holding the writes since the last checkpoint; "+
			"the server serves those, and what only %s.json held is lost", f.stem, f.stem, fi.Size(), f.stem),
		fmt.Sprintf("restore %s.json from a backup into %s before the server's next write to this graph (docs/operations.md#backup-and-restore): "+
			"the journal is replayed on it; without a backup, nothing to do: the next write saves %s.json again from the journal", f.stem, into, f.stem))
}

// Fixes common to the findings of a damaged file set.
const (
	fixGraph    = "graph"
	fixSessions = "sessions"
)

// damagedFiles says why the file set f did not load (err), file by file:
// the journal's first bad record, the file and its .prev each tried on
// their own (probe); and what to do.
func (c *Checkup) damagedFiles(f stemFiles, err error, probe func(path string) error, kind string) {
	name := c.Rel(f.file())
	found := false
	if j := scanJournalFile(f.journal()); j.bad != nil && kind == fixSessions {
		found = true
		c.Add(LevelWarn, c.Rel(f.journal()), fmt.Sprintf("line %d (bytes %d–%d) is damaged (%s), and %d whole record(s) follow it", j.bad.line, j.bad.start, j.bad.end, j.bad.why, j.after),
			fmt.Sprintf("nothing to do but start kg: it keeps the journal as sessions.journal.corrupt-<unix time> and starts with no sessions (agents start new ones); "+
				"to keep the sessions instead, stop kg and delete that line first: `sed -i.bak %dd %s`", j.bad.line, f.journal()))
	} else if j.bad != nil {
		found = true
		c.Add(LevelError, c.Rel(f.journal()), fmt.Sprintf("line %d (bytes %d–%d) is damaged (%s), and %d whole record(s) follow it: writes that were acknowledged; the %s is unavailable until it is repaired",
			j.bad.line, j.bad.start, j.bad.end, j.bad.why, j.after, what(kind)),
			fmt.Sprintf("stop kg, then delete that line, keeping a copy of the journal as %s.bak: `sed -i.bak %dd %s`; the writes of that one record are lost, the %d after it are kept; then run kg doctor again",
				f.journal(), j.bad.line, f.journal(), j.after))
	}
	ferr, perr := error(nil), error(nil)
	if exists(f.file()) {
		ferr = probe(f.file())
	}
	if exists(f.prev()) {
		perr = probe(f.prev())
	}
	aside := func(paths ...string) string {
		var cmds []string
		for _, p := range paths {
			cmds = append(cmds, fmt.Sprintf("mv %s %s.corrupt-$(date +%%s)", p, strings.TrimSuffix(p, ".json")))
		}
		return strings.Join(cmds, " && ")
	}
	switch {
	case exists(f.file()) && ferr != nil && exists(f.prev()) && perr == nil:
		found = true
		lost := "the writes of its last save are lost unless you restore " + name + " from a backup"
		fix := "nothing to do but start kg: it loads " + c.Rel(f.prev()) + ", keeps the damaged file as " + strings.TrimSuffix(name, ".json") +
			".corrupt-<unix time> and writes " + name + " again at its next save; " + lost
		if kind == fixSessions {
			fix = "nothing to do but start kg: it loads " + c.Rel(f.prev()) + " and keeps the damaged file as sessions.corrupt-<unix time>"
		}
		c.Add(LevelWarn, name, fmt.Sprintf("damaged (%v); %s, the version before its last save, loads", ferr, c.Rel(f.prev())), fix)
	case exists(f.file()) && ferr != nil:
		found = true
		problem := fmt.Sprintf("damaged (%v), and there is no %s to fall back on", ferr, c.Rel(f.prev()))
		move := aside(f.file())
		if exists(f.prev()) {
			problem = fmt.Sprintf("damaged (%v), and so is %s (%v)", ferr, c.Rel(f.prev()), perr)
			move = aside(f.file(), f.prev())
		}
		if kind == fixSessions {
			c.Add(LevelWarn, name, problem, "nothing to do but start kg: it keeps the damaged file as sessions.corrupt-<unix time> and starts with no sessions (agents start new ones)")
			break
		}
		c.Add(LevelError, name, problem+"; the "+what(kind)+" is unavailable",
			"restore "+name+" from a backup (docs/operations.md#backup-and-restore); or stop kg and set the damaged file(s) aside, to start the graph again from what its journal holds: `"+move+"`; then run kg doctor again")
	case !exists(f.file()) && exists(f.prev()) && perr != nil:
		found = true
		c.Add(LevelError, name, fmt.Sprintf("missing, and %s is damaged (%v); the %s is unavailable", c.Rel(f.prev()), perr, what(kind)),
			"restore "+name+" from a backup (docs/operations.md#backup-and-restore); or stop kg and set the damaged file aside: `"+aside(f.prev())+"`; then run kg doctor again")
	}
	if !found {
		c.Add(LevelError, name, err.Error(), fixOf(err))
	}
}

// what names the kind of file set for people.
func what(kind string) string {
	if kind == fixSessions {
		return "sessions file"
	}
	return "graph"
}

// fixOf is the advice for an error no probe explains: a link, a folder
// where a file should be, a file kg cannot read.
func fixOf(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "symbolic link"):
		return "replace the link with the file or folder itself: kg does not follow links inside its root"
	case strings.Contains(msg, "permission denied"):
		return "make the root's files readable and writable by the user kg runs as"
	}
	return "restore the file from a backup (docs/operations.md#backup-and-restore)"
}

// probeGraph loads the file at path alone, as the graph file of an empty
// root holding only it: the error says why that file does not load.
func (c *Checkup) probeGraph(path string) error {
	s, err := jsonfile.Open(c.Root, jsonfile.Options{FS: oneFile{root: c.Root, name: "user.json", path: path}, Logger: quiet})
	if err != nil {
		return err
	}
	_, err = s.Load(context.Background(), domain.UserGraph)
	return decodeCause(err)
}

// probeSessions loads the file at path alone as the sessions file.
func (c *Checkup) probeSessions(path string) error {
	s, err := jsonfile.Open(c.Root, jsonfile.Options{FS: oneFile{root: c.Root, name: "sessions.json", path: path}, Logger: quiet})
	if err != nil {
		return err
	}
	_, err = s.LoadSessions(context.Background())
	if errors.Is(err, readonly.ErrRefused) {
		// The store found it damaged and would set it aside: say why in
		// the words of the decoder.
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return rerr
		}
		var v map[string]json.RawMessage
		if jerr := json.Unmarshal(b, &v); jerr != nil {
			return jerr
		}
		return errors.New("its sessions do not decode")
	}
	return decodeCause(err)
}

// decodeCause is why a probe's file did not decode, without the store's
// sentence around it, which names the probe's stand-in file.
func decodeCause(err error) error {
	var de *domain.Error
	if !errors.As(err, &de) || de.Err == nil {
		return err
	}
	if j, ok := de.Err.(interface{ Unwrap() []error }); ok {
		if errs := j.Unwrap(); len(errs) > 0 {
			return errs[len(errs)-1]
		}
	}
	return de.Err
}

// oneFile is a file system in which <root>/<name> reads as the file at
// path and nothing else exists; nothing can be written. A load that would
// fall back on a .prev or set the file aside fails instead: the file alone
// is tried.
type oneFile struct {
	readonly.FS
	root, name, path string
}

func (o oneFile) ReadFile(name string) ([]byte, error) {
	if name == filepath.Join(o.root, o.name) {
		return os.ReadFile(o.path)
	}
	return nil, fs.ErrNotExist
}

func (o oneFile) Stat(name string) (fs.FileInfo, error) {
	switch name {
	case o.root:
		return os.Stat(o.root)
	case filepath.Join(o.root, o.name):
		return os.Lstat(o.path)
	}
	return nil, fs.ErrNotExist
}

func (oneFile) ReadDir(string) ([]fs.DirEntry, error) { return nil, fs.ErrNotExist }

// Resolve implements jsonfile.FS: the root is taken as it is named, since
// nothing but the one file exists in it.
func (oneFile) Resolve(name string) (string, error) { return name, nil }

// checkAliases reads aliases.json: a file that does not parse stops every
// lookup that consults it.
func (c *Checkup) checkAliases() map[string]string {
	p := filepath.Join(c.Root, "aliases.json")
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var m map[string]string
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		c.Add(LevelError, "aliases.json", fmt.Sprintf("cannot be read (%v): a project whose folder is not there yet cannot be looked up", err),
			`repair it — one object of old folder names to new ones, {"old-folder": "new-folder"} — or delete it if you need none`)
		return nil
	}
	return m
}

// checkLeftovers looks for temporary files a crash left and damaged files
// kept aside.
func (c *Checkup) checkLeftovers(served bool) {
	dirs := []string{c.Root}
	for _, f := range c.projectFolders() {
		dirs = append(dirs, filepath.Join(c.Root, "projects", f))
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case strings.HasSuffix(e.Name(), ".tmp") && !served:
				c.Add(LevelWarn, c.Rel(p), "a temporary file left by a save that did not finish (a crash, a full disk)",
					"delete it: `rm "+p+"`; the file it was to replace is whole, and no server runs now")
			case strings.Contains(e.Name(), ".journal.corrupt-"):
				c.Add(LevelInfo, c.Rel(p), "a copy of a damaged journal, kept when kg found a whole record that fails its check",
					"look at it to see the writes it held; delete it when you no longer need it")
			case strings.Contains(e.Name(), ".corrupt-"):
				c.Add(LevelInfo, c.Rel(p), "a damaged file kept aside when the version before it was loaded instead",
					"look at it to see what its last save held; delete it when you no longer need it")
			}
		}
	}
}

// journalLine is one line of a journal: its number (from 1) and bytes.
type journalLine struct {
	line       int
	start, end int // byte offsets: [start, end), the newline excluded
	why        string
}

// journalScan is what a journal holds: its first bad record with the
// number of whole records after it (damage), or a torn last record.
type journalScan struct {
	bad   *journalLine
	after int
	torn  *journalLine
}

// scanJournalFile reads a journal record by record, as kg's loader does
// (docs/design/storage.md#the-json-journal): one JSON line
// {"batch":<payload>,"crc32c":"<8 hex digits>"} per record, the checksum
// the CRC-32C of the payload's bytes. A missing journal holds nothing.
func scanJournalFile(path string) journalScan {
	b, err := os.ReadFile(path)
	if err != nil {
		return journalScan{}
	}
	var out journalScan
	badWhole := false // the bad record ends with its newline
	line, off := 0, 0
	for off < len(b) {
		line++
		end := bytes.IndexByte(b[off:], '\n')
		next := len(b)
		if end >= 0 {
			end += off
			next = end + 1
		} else {
			end = len(b)
		}
		why := recordProblem(b[off:end], end < len(b))
		switch {
		case why == "" && out.bad != nil:
			out.after++
		case why != "" && out.bad == nil:
			out.bad = &journalLine{line: line, start: off, end: end, why: why}
			badWhole = end < len(b)
		}
		off = next
	}
	if out.bad != nil && out.after == 0 && !badWhole {
		// A bad last record without its newline is a torn tail: a write
		// cut short, never acknowledged. A whole line that is bad is
		// damage even when it is the last (docs/decisions/0043-damaged-last-journal-record.md).
		out.torn, out.bad = out.bad, nil
	}
	return out
}

// recordProblem says what is wrong with one journal line, "" when it is a
// whole record with a matching checksum.
func recordProblem(line []byte, terminated bool) string {
	const head, tail = `{"batch":`, `,"crc32c":"`
	if !terminated {
		return "no newline: cut short"
	}
	if len(line) < len(head)+len(tail)+10 || !bytes.HasPrefix(line, []byte(head)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return "not a journal record"
	}
	t := line[len(line)-len(tail)-10:]
	if !bytes.HasPrefix(t, []byte(tail)) {
		return "not a journal record"
	}
	var sum [4]byte
	if _, err := hex.Decode(sum[:], t[len(tail):len(tail)+8]); err != nil {
		return "its checksum is not hexadecimal"
	}
	payload := line[len(head) : len(line)-len(tail)-10]
	if crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)) != binary.BigEndian.Uint32(sum[:]) {
		return "its checksum does not match its content"
	}
	return ""
}
