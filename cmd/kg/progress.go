package main

import (
	"github.com/schollz/progressbar/v3"
)

// progress shows how far long work has come: a bar on stderr when stderr
// is a terminal, nothing when it is piped or a file
// (docs/design/operations.md#commands).
type progress struct {
	bar *progressbar.ProgressBar // nil: quiet
}

// newProgress starts a bar described by what, with no total yet.
func newProgress(e env, what string) *progress {
	if !e.interactive {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	)}
}

// set says done of total are done. Its signature is that of
// migrations.Options.Progress.
func (p *progress) set(done, total int) {
	if p.bar == nil {
		return
	}
	if p.bar.IsFinished() {
		p.bar.Reset() // a bar that reached its end shows the next stage of the work
	}
	if p.bar.GetMax() != total {
		p.bar.ChangeMax(total)
	}
	_ = p.bar.Set(done)
}

// finish removes the bar, so that what the command prints next starts on a
// clean line.
func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// describe changes what the bar says it is doing.
func (p *progress) describe(what string) {
	if p.bar != nil {
		p.bar.Describe(what)
	}
}
