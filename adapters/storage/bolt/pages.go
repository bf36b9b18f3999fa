package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
)

// The page check (docs/decisions/0044-bolt-page-check.md).
//
// bbolt reads its file through a memory map and trusts what it reads: a
// damaged count or offset makes it read past the map (a fault), a damaged
// child id can send a cursor round a cycle for ever, and its consistency
// check and free-list rebuild walk the pages in goroutines of their own,
// where neither a fault nor a panic can be recovered: the process dies. So
// before bbolt opens kg.db, checkPages reads every page bbolt could reach
// from the file with pread, into Go memory, and checks every offset, length,
// child id and key order bbolt would follow. What it accepts, bbolt can
// read; what it rejects is named by area (the user graph, one project, the
// list of projects, the sessions), and the store never lets bbolt touch an
// area found damaged.

// Page layout (bbolt's internal/common): a 16-byte header — id (8), flags
// (2), count (2), overflow (4) — then count elements of 16 bytes each.
const (
	pageHeaderSize  = 16
	elementSize     = 16
	bucketHeaderLen = 16 // a bucket's value: its root page (8) and sequence (8)

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagMeta     = 0x04
	flagFreelist = 0x10

	leafBucket = 0x01 // a leaf element that is a sub-bucket

	metaMagic   = 0xED0CDAED
	metaVersion = 2
	noFreelist  = ^uint64(0)
)

// areaKind is a part of kg.db that fails on its own.
type areaKind uint8

const (
	areaFile       areaKind = iota + 1 // the root bucket: where every other area is found
	areaFormat                         // the kg bucket: the layout version
	areaUser                           // the user graph
	areaProjects                       // the bucket that lists the project graphs
	areaProject                        // one project graph (name: its path)
	areaSessions                       // the sessions
	areaQuarantine                     // the bucket of what was set aside
	areaSetAside                       // one set kept in the quarantine (name: its time)
	areaOther                          // a top-level bucket kg does not know (name: its key)
)

// area names one part of the file.
type area struct {
	kind areaKind
	name string
}

func (a area) String() string {
	switch a.kind {
	case areaFile:
		return "the page that lists kg's buckets"
	case areaFormat:
		return "the layout version"
	case areaUser:
		return "the user graph"
	case areaProjects:
		return "the list of project graphs"
	case areaProject:
		return "the project graph " + a.name
	case areaSessions:
		return "the sessions"
	case areaQuarantine:
		return "the data set aside earlier"
	case areaSetAside:
		return "the data set aside at " + a.name
	}
	return "the bucket " + a.name
}

// fatal reports whether damage in a makes the file unusable: nothing else
// can be found without it.
func (a area) fatal() bool { return a.kind == areaFile || a.kind == areaFormat }

// expected reports whether damage in a is no news: what was set aside was
// set aside because it was damaged.
func (a area) expected() bool { return a.kind == areaSetAside }

// childArea is the area a sub-bucket named key of a bucket in parent
// belongs to.
func childArea(parent area, key []byte) area {
	switch parent.kind {
	case areaFile:
		switch {
		case bytes.Equal(key, bucketUser):
			return area{kind: areaUser}
		case bytes.Equal(key, bucketProjects):
			return area{kind: areaProjects}
		case bytes.Equal(key, bucketSessions):
			return area{kind: areaSessions}
		case bytes.Equal(key, bucketQuarantine):
			return area{kind: areaQuarantine}
		case bytes.Equal(key, bucketKG):
			return area{kind: areaFormat}
		}
		return area{kind: areaOther, name: string(key)}
	case areaProjects:
		return area{kind: areaProject, name: string(key)}
	case areaQuarantine:
		return area{kind: areaSetAside, name: string(key)}
	}
	return parent
}

// metaPage is what a valid meta page says.
type metaPage struct {
	pageSize       int
	root, freelist uint64 // page ids
	hwm            uint64 // the high-water mark: pages 0..hwm-1 exist
	txid           uint64
}

// pageReport is what checkPages found.
type pageReport struct {
	meta metaPage
	// fatal, when set, says why the file must not be opened at all.
	fatal string
	// refuse, when set, says why the file must not be written: a free
	// list that could hand out a page in use, a truncated file. Opened for
	// writing such a file is refused; read-only it can still be read.
	refuse string
	// setAside reports whether the file holds a quarantine.
	setAside bool
	// lost reports that fatal comes from the pages everything else is
	// found through: read-only, nothing can be read either.
	lost bool
	// damaged holds, per damaged area, the first problem found in it.
	damaged map[area]string
	// synced reports whether the meta page names a free list (a clean
	// close); without one, bbolt rebuilds it by walking every page.
	synced bool
	// leaked counts pages neither reachable nor free (space lost, no
	// data); counted only when nothing is damaged.
	leaked int
	// owner holds, per page id, the area that holds the page ("" when
	// none: free, leaked or the meta pages), for tests.
	owner []string
}

// damagedAreas returns the damaged areas in a stable order.
func (r *pageReport) damagedAreas() []area {
	out := make([]area, 0, len(r.damaged))
	for a := range r.damaged {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b area) int {
		if a.kind != b.kind {
			return int(a.kind) - int(b.kind)
		}
		return bytes.Compare([]byte(a.name), []byte(b.name))
	})
	return out
}

// errNotBolt is the check's finding for a file with no valid meta page.
var errNotBolt = errors.New("both of its meta pages are damaged, or it is not a bbolt file")

// checkPages reads the file f (size bytes) page by page and checks what
// bbolt will read. It returns errNotBolt when no meta page is valid; every
// other finding is in the report.
//
// With readOnly the file will only be read: what would make writing it
// unsafe (a truncated file, a free list that cannot be trusted) is recorded
// in refuse instead of fatal, and the pages are checked without it, so that
// what can be read is read (kg doctor, kg migrate's salvage).
func checkPages(f io.ReaderAt, size int64, readOnly bool) (*pageReport, error) {
	m, err := readMeta(f, size)
	if err != nil {
		return nil, err
	}
	r := &pageReport{meta: m, damaged: map[area]string{}, synced: m.freelist != noFreelist}
	need := int64(m.hwm) * int64(m.pageSize)
	if need/int64(m.pageSize) != int64(m.hwm) || size < need {
		msg := fmt.Sprintf("it is truncated: it holds %d bytes but its pages reach %d bytes", size, need)
		if !readOnly {
			r.fatal = msg
			return r, nil
		}
		// The pages past the end are damage where they are reached.
		r.refuse, m.hwm = msg, max(2, uint64(size/int64(m.pageSize)))
	}
	w := &walker{f: f, m: m, r: r, readOnly: readOnly, owner: make([]int32, m.hwm), verified: make([]bool, m.hwm), free: make([]bool, m.hwm)}
	if r.synced {
		if msg := w.readFreelist(); msg != "" {
			if !readOnly {
				r.fatal = msg
				return r, nil
			}
			if r.refuse == "" {
				r.refuse = msg
			}
			clear(w.free)
			for i, o := range w.owner {
				if o == -1 {
					w.owner[i] = 0
				}
			}
		}
	}
	w.walk()
	if r.fatal != "" {
		return r, nil
	}
	for a := range r.damaged {
		if a.fatal() {
			r.fatal, r.lost = fmt.Sprintf("%s is damaged (%s)", a, r.damaged[a]), true
			return r, nil
		}
	}
	r.owner = make([]string, m.hwm)
	for id, o := range w.owner {
		if o > 0 {
			r.owner[id] = w.areas[o-1].String()
		}
	}
	if len(r.damaged) == 0 && r.synced {
		for id := uint64(2); id < m.hwm; id++ {
			if w.owner[id] == 0 && !w.free[id] {
				r.leaked++
			}
		}
	}
	return r, nil
}

// readMeta returns the meta page bbolt will use: the valid one with the
// higher transaction id.
func readMeta(f io.ReaderAt, size int64) (metaPage, error) {
	parse := func(off int64) (metaPage, bool) {
		buf := make([]byte, pageHeaderSize+64)
		if off+int64(len(buf)) > size {
			return metaPage{}, false
		}
		if _, err := f.ReadAt(buf, off); err != nil {
			return metaPage{}, false
		}
		b := buf[pageHeaderSize:]
		h := fnv.New64a()
		h.Write(b[:56])
		le := binary.LittleEndian
		if le.Uint32(b) != metaMagic || le.Uint32(b[4:]) != metaVersion || h.Sum64() != le.Uint64(b[56:]) {
			return metaPage{}, false
		}
		return metaPage{pageSize: int(le.Uint32(b[8:])), root: le.Uint64(b[16:]), freelist: le.Uint64(b[32:]),
			hwm: le.Uint64(b[40:]), txid: le.Uint64(b[48:])}, true
	}
	m0, ok0 := parse(0)
	ps := int64(os.Getpagesize())
	if ok0 {
		ps = int64(m0.pageSize)
	}
	m1, ok1 := parse(ps)
	switch {
	case ok0 && ok1 && m1.txid > m0.txid, !ok0 && ok1:
		m0 = m1
	case !ok0:
		return metaPage{}, errNotBolt
	}
	if m0.pageSize < 1024 || m0.pageSize > 1<<16 || m0.hwm < 2 {
		return metaPage{}, errNotBolt
	}
	return m0, nil
}

// walker walks the page tree from the root bucket.
type walker struct {
	f io.ReaderAt
	m metaPage
	r *pageReport

	areas   []area
	areaIdx map[area]int32

	readOnly bool // the file will only be read (checkPages)

	owner    []int32 // per page: 1 + index into areas of its holder; -1: the free list itself; 0: none yet
	verified []bool  // per claimed page: its parent's branch key equals its first key
	free     []bool  // per page: listed by the free list
}

func (w *walker) areaID(a area) int32 {
	if w.areaIdx == nil {
		w.areaIdx = map[area]int32{}
	}
	if id, ok := w.areaIdx[a]; ok {
		return id
	}
	w.areas = append(w.areas, a)
	id := int32(len(w.areas))
	w.areaIdx[a] = id
	return id
}

func (w *walker) damage(a area, format string, args ...any) {
	if _, ok := w.r.damaged[a]; !ok {
		w.r.damaged[a] = fmt.Sprintf(format, args...)
	}
}

func (w *walker) isDamaged(a area) bool {
	_, ok := w.r.damaged[a]
	return ok
}

// read returns pages id..id+n-1.
func (w *walker) read(id, n uint64) ([]byte, error) {
	buf := make([]byte, n*uint64(w.m.pageSize))
	_, err := w.f.ReadAt(buf, int64(id)*int64(w.m.pageSize))
	return buf, err
}

// readFreelist reads the free list the meta page names and marks its pages.
// A free list bbolt cannot read, or one that names a page twice or one
// outside the file, makes the file unusable: bbolt would hand out pages in
// use.
func (w *walker) readFreelist() string {
	id := w.m.freelist
	if id < 2 || id >= w.m.hwm {
		return fmt.Sprintf("its free list is unreadable: invalid freelist page %d (the file has %d pages)", id, w.m.hwm)
	}
	head, err := w.read(id, 1)
	if err != nil {
		return fmt.Sprintf("its free list is unreadable: %v", err)
	}
	le := binary.LittleEndian
	if got := le.Uint64(head); got != id || le.Uint16(head[8:]) != flagFreelist {
		return fmt.Sprintf("its free list is unreadable: invalid freelist page %d (it holds page %d, flags %#x)", id, got, le.Uint16(head[8:]))
	}
	overflow := uint64(le.Uint32(head[12:]))
	if id+overflow >= w.m.hwm {
		return fmt.Sprintf("its free list is unreadable: invalid freelist page %d (it runs past the end of the file)", id)
	}
	buf, err := w.read(id, 1+overflow)
	if err != nil {
		return fmt.Sprintf("its free list is unreadable: %v", err)
	}
	data := buf[pageHeaderSize:]
	count := uint64(le.Uint16(buf[10:]))
	if count == 0xFFFF {
		count = le.Uint64(data)
		data = data[8:]
	}
	if count > uint64(len(data))/8 {
		return fmt.Sprintf("its free list is unreadable: invalid freelist page %d (it counts %d pages, room for %d)", id, count, len(data)/8)
	}
	for i := range overflow + 1 {
		w.owner[id+i] = -1
	}
	prev := uint64(0)
	for i := range count {
		p := le.Uint64(data[8*i:])
		switch {
		case p < 2 || p >= w.m.hwm:
			return fmt.Sprintf("its free list is unreadable: it names page %d, outside the file's %d pages", p, w.m.hwm)
		case p <= prev:
			return fmt.Sprintf("its free list is inconsistent (page %d listed out of order or twice: already freed)", p)
		case w.owner[p] == -1:
			return fmt.Sprintf("its free list is inconsistent: it names its own page %d as free", p)
		}
		w.free[p] = true
		prev = p
	}
	return ""
}

// task is one page to visit.
type task struct {
	id     uint64
	area   area
	lo, hi []byte // the keys of the page must lie in [lo, hi); nil: no bound
	// first is the key the parent's branch element gives the page, which
	// bbolt makes the page's first key; nil for a bucket's root.
	first []byte
}

// walk visits every page reachable from the root bucket. Sets kept in the
// quarantine are walked last, so that a live area wins a page both claim.
func (w *walker) walk() {
	var later []task
	stack := []task{{id: w.m.root, area: area{kind: areaFile}}}
	for len(stack) > 0 || len(later) > 0 {
		if len(stack) == 0 {
			stack, later = later, nil
		}
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if w.r.fatal != "" {
			return
		}
		for _, c := range w.visit(t) {
			if c.area.kind == areaSetAside && t.area.kind == areaQuarantine {
				later = append(later, c)
			} else {
				stack = append(stack, c)
			}
		}
	}
}

// visit checks one page and returns the pages it points to.
func (w *walker) visit(t task) []task {
	a := t.area
	if w.isDamaged(a) {
		return nil // an area is reported once, and not read further
	}
	if t.id < 2 || t.id >= w.m.hwm {
		w.damage(a, "it points to page %d, outside the file's %d pages", t.id, w.m.hwm)
		return nil
	}
	head, err := w.read(t.id, 1)
	if err != nil {
		w.damage(a, "page %d cannot be read: %v", t.id, err)
		return nil
	}
	le := binary.LittleEndian
	flags := le.Uint16(head[8:])
	if got := le.Uint64(head); got != t.id {
		w.damage(a, "page %d holds page %d", t.id, got)
		return nil
	}
	if flags != flagBranch && flags != flagLeaf {
		w.damage(a, "page %d is not a branch or leaf page (flags %#x)", t.id, flags)
		return nil
	}
	overflow := uint64(le.Uint32(head[12:]))
	if overflow >= w.m.hwm-t.id {
		w.damage(a, "page %d runs past the end of the file (%d overflow pages)", t.id, overflow)
		return nil
	}
	buf := head
	if overflow > 0 {
		if buf, err = w.read(t.id, 1+overflow); err != nil {
			w.damage(a, "page %d cannot be read: %v", t.id, err)
			return nil
		}
	}
	k, keys, msg := pageElements(buf, flags)
	if msg != "" {
		w.damage(a, "page %d: %s", t.id, msg)
		return nil
	}
	if msg := keyOrder(keys, t.lo, t.hi); msg != "" {
		w.damage(a, "page %d: %s", t.id, msg)
		return nil
	}
	verified := t.first != nil && len(keys) > 0 && bytes.Equal(keys[0], t.first)
	if !w.claim(t, overflow, verified) {
		return nil
	}
	if flags == flagBranch {
		out := make([]task, 0, len(keys))
		for i := len(keys) - 1; i >= 0; i-- {
			var hi []byte
			if i+1 < len(keys) {
				hi = keys[i+1]
			} else {
				hi = t.hi
			}
			out = append(out, task{id: k.ids[i], area: a, lo: keys[i], hi: hi, first: keys[i]})
		}
		return out
	}
	return w.buckets(k.buckets, a)
}

// claim records pages t.id..t.id+overflow as held by t.area, unless a page
// is free or held by another area: then whichever of the two references
// cannot be trusted is damage (docs/decisions/0044-bolt-page-check.md).
func (w *walker) claim(t task, overflow uint64, verified bool) bool {
	a := t.area
	me := w.areaID(a)
	for i := range overflow + 1 {
		id := t.id + i
		if w.free[id] {
			if t.first != nil && !verified {
				w.damage(a, "a page points to page %d, which is free", id)
				return false
			}
			msg := fmt.Sprintf("it is inconsistent: page %d is held by %s and listed as free (reachable freed), so a write could overwrite live data", id, a)
			if !w.readOnly {
				w.r.fatal = msg
				return false
			}
			if w.r.refuse == "" {
				w.r.refuse = msg // read anyway: nothing is written
			}
		}
		o := w.owner[id]
		switch {
		case o == 0:
		case o == -1:
			w.damage(a, "a page points to page %d, the free list", id)
			return false
		case o == me:
			w.damage(a, "page %d is reached twice (multiple references)", id)
			return false
		case w.isDamaged(w.areas[o-1]):
			// The other holder is already known damaged: the page is ours.
		case w.verified[id] && !verified:
			w.damage(a, "a page points to page %d, which %s holds", id, w.areas[o-1])
			return false
		case verified && !w.verified[id]:
			w.damage(w.areas[o-1], "a page points to page %d, which %s holds", id, a)
		default:
			w.damage(a, "page %d is held by %s too (multiple references)", id, w.areas[o-1])
			w.damage(w.areas[o-1], "page %d is held by %s too (multiple references)", id, a)
			return false
		}
	}
	for i := range overflow + 1 {
		w.owner[t.id+i] = me
		w.verified[t.id+i] = verified && i == 0
	}
	return true
}

// child is a sub-bucket found on a leaf: its root page, or its inline
// page when root is 0.
type child struct {
	key    []byte
	root   uint64
	inline []byte
}

// buckets returns the tasks of the sub-buckets found on a leaf of area a,
// checking inline buckets (which live inside their parent's value) on the
// spot: their bytes lie inside the page just read, so this ends.
func (w *walker) buckets(found []child, a area) []task {
	type inline struct {
		child
		parent area
	}
	var out []task
	var queue []inline
	for _, c := range found {
		queue = append(queue, inline{c, a})
	}
	for len(queue) > 0 {
		c := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		ca := childArea(c.parent, c.key)
		if ca.kind == areaQuarantine {
			w.r.setAside = true
		}
		if c.root != 0 {
			out = append(out, task{id: c.root, area: ca})
			continue
		}
		if w.isDamaged(ca) {
			continue
		}
		k, keys, msg := pageElements(c.inline, flagLeaf)
		if msg == "" {
			msg = keyOrder(keys, nil, nil)
		}
		if msg != "" {
			w.damage(ca, "the inline bucket %q: %s", c.key, msg)
			continue
		}
		for _, kc := range k.buckets {
			queue = append(queue, inline{kc, ca})
		}
	}
	return out
}

// kids is what the elements of a page point to.
type kids struct {
	ids     []uint64 // a branch's child pages
	buckets []child  // a leaf's sub-buckets
}

// pageElements checks that every element of the page in buf (header
// included) lies inside it, and returns the keys and what they point to.
func pageElements(buf []byte, flags uint16) (kids, [][]byte, string) {
	le := binary.LittleEndian
	if len(buf) < pageHeaderSize {
		return kids{}, nil, "shorter than a page header"
	}
	if got := le.Uint16(buf[8:]); got != flags {
		return kids{}, nil, fmt.Sprintf("flags %#x, want %#x", got, flags)
	}
	count := uint64(le.Uint16(buf[10:]))
	n := uint64(len(buf))
	if pageHeaderSize+count*elementSize > n {
		return kids{}, nil, fmt.Sprintf("%d elements do not fit in %d bytes", count, n)
	}
	if flags == flagBranch && count == 0 {
		return kids{}, nil, "a branch page with no element"
	}
	var k kids
	keys := make([][]byte, 0, count)
	for i := range count {
		off := pageHeaderSize + i*elementSize
		e := buf[off : off+elementSize]
		if flags == flagBranch {
			pos, ksize := uint64(le.Uint32(e)), uint64(le.Uint32(e[4:]))
			if off+pos+ksize > n {
				return kids{}, nil, fmt.Sprintf("element %d lies outside the page", i)
			}
			keys = append(keys, buf[off+pos:off+pos+ksize])
			k.ids = append(k.ids, le.Uint64(e[8:]))
			continue
		}
		eflags, pos, ksize, vsize := le.Uint32(e), uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
		if off+pos+ksize+vsize > n {
			return kids{}, nil, fmt.Sprintf("element %d lies outside the page", i)
		}
		key := buf[off+pos : off+pos+ksize]
		keys = append(keys, key)
		if eflags&leafBucket == 0 {
			continue
		}
		v := buf[off+pos+ksize : off+pos+ksize+vsize]
		if len(v) < bucketHeaderLen {
			return kids{}, nil, fmt.Sprintf("the bucket %q has a %d-byte header, want %d", key, len(v), bucketHeaderLen)
		}
		c := child{key: key, root: le.Uint64(v)}
		if c.root == 0 {
			c.inline = v[bucketHeaderLen:]
		}
		k.buckets = append(k.buckets, c)
	}
	return k, keys, ""
}

// keyOrder checks that keys are sorted, distinct and within [lo, hi), as
// bbolt's lookups assume.
func keyOrder(keys [][]byte, lo, hi []byte) string {
	for i, k := range keys {
		if len(k) == 0 {
			return fmt.Sprintf("key %d is empty", i)
		}
		if i > 0 && bytes.Compare(keys[i-1], k) >= 0 {
			return fmt.Sprintf("key %d is out of order", i)
		}
		if lo != nil && bytes.Compare(k, lo) < 0 || hi != nil && bytes.Compare(k, hi) >= 0 {
			return fmt.Sprintf("key %d lies outside the range its parent gives", i)
		}
	}
	return ""
}
