// Package layering holds the test of the rule docs/architecture.md states:
// which of the project's packages may import which. It has no code of its
// own; its test lists every package with `go list` and fails on an import
// the rule forbids.
package layering
