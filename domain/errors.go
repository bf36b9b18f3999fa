package domain

import (
	"errors"
	"fmt"
)

// Kind classifies an error for the inbound adapters, which map each kind in
// exactly one table (REST status codes, MCP isError results).
type Kind string

// The error kinds.
const (
	KindInvalid     Kind = "invalid"
	KindNotFound    Kind = "not_found"
	KindConflict    Kind = "conflict"
	KindUnavailable Kind = "unavailable"
	KindInternal    Kind = "internal"
)

// Error is an error a client can act on: it names the field (or thing) at
// fault and, for size limits, the limit.
type Error struct {
	Kind  Kind
	Field string // the argument or thing at fault; may be empty
	Limit int    // the limit that was exceeded; 0 when not a size error
	Msg   string // what is wrong and, where useful, what to do
	Err   error  // the underlying cause, if any
}

func (e *Error) Error() string {
	if e.Field != "" {
		return e.Field + ": " + e.Msg
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Invalidf returns an invalid-argument error for field.
func Invalidf(field, format string, args ...any) *Error {
	return &Error{Kind: KindInvalid, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// NotFoundf returns a not-found error.
func NotFoundf(field, format string, args ...any) *Error {
	return &Error{Kind: KindNotFound, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Conflictf returns a conflict error.
func Conflictf(field, format string, args ...any) *Error {
	return &Error{Kind: KindConflict, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Unavailable wraps err as an unavailable error (storage failed, graph
// damaged); msg says what could not be done.
func Unavailable(err error, format string, args ...any) *Error {
	return &Error{Kind: KindUnavailable, Msg: fmt.Sprintf(format, args...), Err: err}
}

// tooLong is the error for a value over its size limit, e.g.
// "gist: 1204 chars, limit 1000".
func tooLong(field string, size, limit int, unit string) *Error {
	return &Error{Kind: KindInvalid, Field: field, Limit: limit,
		Msg: fmt.Sprintf("%d %s, limit %d", size, unit, limit)}
}

// KindOf returns the kind of err: the Kind of a wrapped *Error, else
// KindInternal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// Within puts an error of a validator in the context of one item of a
// document: field "gist" of nodes[3] becomes "nodes[3].gist".
func Within(item string, err error) error {
	var de *Error
	if !errors.As(err, &de) {
		return err
	}
	c := *de
	if c.Field == "" {
		c.Field = item
	} else {
		c.Field = item + "." + c.Field
	}
	return &c
}

// WrapError adds context to err while keeping its kind: a *Error is copied
// with msg prefixed to its message, anything else becomes an internal error
// that wraps it. The layers above use it to say where a failure happened
// without turning a client's mistake into a server fault.
func WrapError(err error, msg string) error {
	var de *Error
	if errors.As(err, &de) {
		c := *de
		c.Msg = msg + ": " + de.Msg
		c.Err = err
		return &c
	}
	return &Error{Kind: KindInternal, Msg: msg, Err: err}
}
