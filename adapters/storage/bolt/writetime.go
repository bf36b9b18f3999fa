package bolt

import "time"

// WriteTime returns the time bbolt has spent writing pages and syncing
// (fdatasync) the database file, summed over every write transaction
// since the store opened: graphs and sessions alike. bbolt times the
// writes and their syncs together, and keeps only the sum.
func (s *Store) WriteTime() time.Duration {
	st := s.db.Stats()
	return st.TxStats.GetWriteTime()
}
