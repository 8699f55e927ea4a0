// Package testenv holds the project's rule for tests that need an installed
// program (gcc, uftrace, mpirun, a compressor): in CI, where every such
// program must be installed, a missing one fails the test; elsewhere the test
// is skipped, loudly.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI (the CI environment variable is
// set), where nothing may be skipped for a missing tool.
func InCI() bool { return os.Getenv("CI") != "" }

// Tool returns the path of the program name, or stops the test: it fails in
// CI and is skipped elsewhere. why says what the test cannot do without the
// program, for the skip message.
func Tool(t testing.TB, name, why string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if InCI() {
			t.Fatalf("%s is not installed: CI must install it (.ci/run)", name)
		}
		t.Skipf("SKIPPING: %s is not installed; %s", name, why)
	}
	return p
}

// Tools stops the test as Tool does unless every program in names is
// installed.
func Tools(t testing.TB, why string, names ...string) {
	t.Helper()
	for _, n := range names {
		Tool(t, n, why)
	}
}
