package search

// GramTable maps trigrams to int32 values: an open-addressing hash table
// with linear probing. The search index looks a trigram up for every three
// bytes of every word it adds to its lexicon; for keys this small the
// built-in map spent most of that time hashing and matching control bytes,
// where this table needs one multiplication and, mostly, one probe
// (docs/decisions/0013-search-index.md).
type GramTable struct {
	entries []gramEntry // a power of two long; key 0 marks a free entry
	used    int
	shift   uint // 32 - log2(len(entries))
}

// gramEntry holds a trigram with a bit above its 24 set, so that no stored
// key is 0.
type gramEntry struct {
	key uint32
	val int32
}

const gramKeyBit = 1 << 24

// home is the entry a key's probe starts at (Fibonacci hashing).
func (t *GramTable) home(key uint32) int { return int((key * 0x9E3779B1) >> t.shift) }

// Get returns the value of trigram g.
func (t *GramTable) Get(g uint32) (int32, bool) {
	if t.used == 0 {
		return 0, false
	}
	key, mask := g|gramKeyBit, len(t.entries)-1
	for i := t.home(key); ; i = (i + 1) & mask {
		switch t.entries[i].key {
		case key:
			return t.entries[i].val, true
		case 0:
			return 0, false
		}
	}
}

// Put sets the value of trigram g.
func (t *GramTable) Put(g uint32, v int32) {
	if 2*(t.used+1) > len(t.entries) {
		t.resize(max(16, 2*len(t.entries)))
	}
	key, mask := g|gramKeyBit, len(t.entries)-1
	for i := t.home(key); ; i = (i + 1) & mask {
		switch t.entries[i].key {
		case key:
			t.entries[i].val = v
			return
		case 0:
			t.entries[i] = gramEntry{key, v}
			t.used++
			return
		}
	}
}

// Remove deletes trigram g. The entries after it in its run move back
// into the hole when their probe allows, so that no lookup needs
// tombstones (Knuth's algorithm R).
func (t *GramTable) Remove(g uint32) {
	if t.used == 0 {
		return
	}
	key, mask := g|gramKeyBit, len(t.entries)-1
	i := t.home(key)
	for t.entries[i].key != key {
		if t.entries[i].key == 0 {
			return
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.entries[j].key != 0; j = (j + 1) & mask {
		// The entry at j may fill the hole at i unless its home lies
		// cyclically in (i, j].
		if h := t.home(t.entries[j].key); (j-h)&mask >= (j-i)&mask {
			t.entries[i] = t.entries[j]
			i = j
		}
	}
	t.entries[i] = gramEntry{}
	t.used--
	if len(t.entries) > 16 && 8*t.used < len(t.entries) {
		t.resize(len(t.entries) / 2)
	}
}

// resize moves the entries into a table of n entries.
func (t *GramTable) resize(n int) {
	old := t.entries
	t.entries = make([]gramEntry, n)
	t.shift = 32
	for m := n; m > 1; m >>= 1 {
		t.shift--
	}
	mask := n - 1
	for _, e := range old {
		if e.key == 0 {
			continue
		}
		i := t.home(e.key)
		for t.entries[i].key != 0 {
			i = (i + 1) & mask
		}
		t.entries[i] = e
	}
}

// All calls f for every trigram and its value, in no particular order.
func (t *GramTable) All(f func(g uint32, v int32)) {
	for _, e := range t.entries {
		if e.key != 0 {
			f(e.key&^gramKeyBit, e.val)
		}
	}
}
