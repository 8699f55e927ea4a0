// Package param names the parameter a value was wrong for. A library
// checks its options and says "K 0: the longest loop body must be …"; a
// command line, which knows its flags, says "--k 0: …" (Flags).
package param

import (
	"errors"
	"fmt"
)

// Error is a value a parameter cannot take.
type Error struct {
	Name  string // the parameter, as the library's options name it: "K", "suspect share"
	Value string // the value as written in the message; "" when Err quotes it
	Err   error  // what is wrong and what would do
}

func (e *Error) Error() string {
	if e.Value == "" {
		return e.Name + ": " + e.Err.Error()
	}
	return e.Name + " " + e.Value + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an Error of the parameter name for value, saying what is
// wrong as format and args say.
func Errorf(name, value, format string, args ...any) *Error {
	return &Error{Name: name, Value: value, Err: fmt.Errorf(format, args...)}
}

// Wrap returns err as an Error of the parameter name.
func Wrap(name string, err error) *Error { return &Error{Name: name, Err: err} }

// Flags renames the parameter of err (or of the Error it wraps, which it
// then returns alone) to the flag that set it, as flags
// maps them ("K" to "--k"); other errors, and parameters flags does not
// name, stay as they are.
func Flags(err error, flags map[string]string) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	flag, ok := flags[e.Name]
	if !ok {
		return err
	}
	return &Error{Name: flag, Value: e.Value, Err: e.Err}
}
