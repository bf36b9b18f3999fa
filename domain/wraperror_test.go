package domain

import (
	"errors"
	"io/fs"
	"testing"
)

func TestWrapErrorKeepsAClientsKind(t *testing.T) {
	inner := &Error{Kind: KindInvalid, Field: "gist", Limit: 300, Msg: "gist is 301 characters; the limit is 300"}
	err := WrapError(inner, "put node a")
	var de *Error
	if !errors.As(err, &de) || de.Kind != KindInvalid || de.Field != "gist" || de.Limit != 300 {
		t.Fatalf("WrapError(invalid) = %#v, want the invalid kind, field and limit kept", err)
	}
	if want := "put node a: gist is 301 characters; the limit is 300"; de.Msg != want {
		t.Errorf("message %q, want %q", de.Msg, want)
	}
	if inner.Msg != "gist is 301 characters; the limit is 300" {
		t.Errorf("the wrapped error changed: %q", inner.Msg)
	}

	err = WrapError(fs.ErrPermission, "save sessions")
	if !errors.As(err, &de) || de.Kind != KindInternal || de.Msg != "save sessions" || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("WrapError(other) = %#v, want an internal error wrapping it", err)
	}
}
