package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A fresh cache is made 0700 at each level difftrace owns; a link planted
// at difftrace's cache directory is refused, nothing is made where it
// points, and the drawing goes to a temporary directory of its own.
func TestPrepare(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	dir, note, done, err := Prepare()
	if err != nil || note != "" || dir != filepath.Join(home, "difftrace", "graphviz") {
		t.Fatalf("Prepare: %s, %q, %v", dir, note, err)
	}
	done()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v; want mode 0700", d, err)
		}
	}

	planted := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", planted)
	target := t.TempDir()
	if err := os.Symlink(target, filepath.Join(planted, "difftrace")); err != nil {
		t.Fatal(err)
	}
	dir, note, done, err = Prepare()
	if err != nil || strings.HasPrefix(dir, planted) || !strings.Contains(note, "is a symbolic link") || !strings.Contains(note, "XDG_CACHE_HOME") {
		t.Errorf("with a link planted at the cache: %s, %q, %v", dir, note, err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the temporary directory %s: %v; want mode 0700", dir, err)
	}
	done()
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the temporary directory %s was left", dir)
	}
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Errorf("made through the planted link: %v", ents)
	}
}
