package domain

// SyncItem is one change reported by ChangesSince.
type SyncItem struct {
	Seq     uint64
	TS      Micros   // when the change was made
	Session string   // the session that made it; "" for none
	Node    *Node    // an upserted node (current content)
	Edge    *Edge    // an upserted edge (current content)
	Deleted bool     // a deletion: NodeID or EdgeKey names the item
	NodeID  string   // for a deleted node
	EdgeKey *EdgeKey // for a deleted edge
}

// SyncReport is what changed in one graph within a seq range.
type SyncReport struct {
	Items []SyncItem // by seq
	// Compaction counts the tier changes (TierSeq in range) by the node's
	// current tier, and pruned node tombstones in range.
	Archived, Restored, Orphaned, Pruned int
}
