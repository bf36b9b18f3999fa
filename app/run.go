package app

import (
	"context"
	"time"
)

// Run is the maintenance loop: every MaintenanceInterval it runs one tick.
// It returns when ctx is done. Each duty of a tick is guarded: one that
// panics is logged and the loop goes on, since the maintenance of one graph
// must not end the process.
func (s *Service) Run(ctx context.Context) {
	if s.store.Shared != nil {
		go s.store.Watch(ctx)
	}
	tk := time.NewTicker(s.cfg.MaintenanceInterval)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			s.maint.Tick(ctx)
		}
	}
}
