package domain

// cmpGraphKey orders graph keys the way every listing across graphs does:
// the user graph first (it is read first), then project graphs by path.
func cmpGraphKey(a, b GraphKey) int {
	if a.Level != b.Level {
		if a.Level == LevelUser {
			return -1
		}
		if b.Level == LevelUser {
			return 1
		}
		return cmpString(string(a.Level), string(b.Level))
	}
	return cmpString(a.Project, b.Project)
}

// cmpUint64 is cmp.Compare for seqs and versions, spelled out so the order
// functions of this package read alike.
func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
