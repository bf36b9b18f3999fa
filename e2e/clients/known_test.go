package clients

import "testing"

// knownFailures lists the checks that fail today because of a known bug,
// keyed by client and check, each naming the issue item that explains it.
// Such a check still runs: while it fails it is reported as skipped with
// the reason; once it passes it fails, "remove its row", so that a fix
// removes rows here and nothing else (docs/clients.md#the-real-client-harness).
var knownFailures = map[knownKey]string{}

type knownKey struct{ client, check string }

// The checks of the known-failure table, by name.
const (
	checkResultCarriesText         = "result carries the text"
	checkResultNoLarger            = "result no larger than the text"
	checkPreloadInlined            = "preload inlined at --preload-chars 30000"
	checkRecallAfterBigPreload     = "recall after a preload over the inline limit"
	checkInstallRenamedTwice       = "install twice as kg-v2"
	checkUninstallRenamed          = "uninstall as kg-v2"
	checkNoServerTools             = "start with no server: kg tools offered by the installed entry"
	checkPluginMarketplace         = "plugin marketplace add of the checkout"
	checkWriteWithDocumentedConfig = "kg_put_node with the documented config"
)

// check runs f as the subtest name of client: an error fails it, unless
// the known-failure table lists it, when it is skipped with the reason; a
// listed check that passes fails, so that its row is removed.
func check(t *testing.T, client, name string, f func() error) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		err := f()
		reason, known := knownFailures[knownKey{client, name}]
		switch {
		case known && err != nil:
			t.Skipf("known failure (%s): %v", reason, err)
		case known:
			t.Errorf("passes now, though known_test.go lists it as a known failure (%s): remove its row", reason)
		case err != nil:
			t.Error(err)
		}
	})
}
