package domain

import (
	"reflect"

	"github.com/google/go-cmp/cmp"
)

// quickDiff is cmp.Diff(want, got, opts...) with a fast path: values that
// are reflect.DeepEqual are equal under cmp too (the options here only
// loosen the comparison), so they get "" without cmp's walk, which sorts
// every map's keys and costs most of a property test's time under the
// race detector. Unequal values get cmp's diff, as before.
func quickDiff(want, got any, opts ...cmp.Option) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, opts...)
}
