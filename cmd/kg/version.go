package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time by `make build` (-ldflags "-X
// main.version=…"). The linker can only set a package variable, so this is
// the one package-level variable of kg; nothing assigns it at run time.
var version = ""

// buildInfo describes this binary.
type buildInfo struct {
	Version  string
	Revision string // VCS commit, with "+dirty" when built from a changed tree
	Go       string
	Platform string
}

// readBuildInfo reads what the linker and the Go toolchain recorded.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version // `go install …@vX.Y.Z`
		}
		var dirty bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(b.Revision) > 12 {
			b.Revision = b.Revision[:12]
		}
		if dirty && b.Revision != "" {
			b.Revision += "+dirty"
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

// newVersionCommand is `kg version`.
func newVersionCommand(e env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the version and build info",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := io.WriteString(e.stdout, versionText(readBuildInfo()))
			return err
		},
	}
}

// versionText is what `kg version` and `kg --version` print.
func versionText(b buildInfo) string {
	var w strings.Builder
	fmt.Fprintf(&w, "kg %s\n", b.Version)
	if b.Revision != "" {
		fmt.Fprintf(&w, "commit   %s\n", b.Revision)
	}
	fmt.Fprintf(&w, "go       %s\nplatform %s\n", b.Go, b.Platform)
	return w.String()
}
