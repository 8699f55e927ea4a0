package parlot

import (
	"bytes"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

func TestWriteFuncTableRoundTrip(t *testing.T) {
	names := []trace.Name{
		{Image: "/bin/app", Func: "main"},
		{Image: "libmpi.so.40", Func: "MPI_Send"},
		{Image: "/bin/app", Func: "_ZN4mesh4Grid4stepEd"},
		{Image: "libgomp.so.1", Func: "GOMP_parallel", Linked: "GOMP_parallel@plt"},
	}
	secs := ImageSections(names, "/bin/app")
	var b bytes.Buffer
	if err := WriteFuncTable(&b, secs); err != nil {
		t.Fatal(err)
	}
	want := "+\n/bin/app\nmain\n_ZN4mesh4Grid4stepEd\n+\nlibmpi.so.40\nMPI_Send\n+\nlibgomp.so.1\nGOMP_parallel@plt\n"
	if b.String() != want {
		t.Fatalf("written:\n%s\nwant:\n%s", b.String(), want)
	}
	tab, err := ParseFuncTable(&b, "t.info")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Program != "/bin/app" || len(tab.Names) != 4 || tab.Names[1].Func != "_ZN4mesh4Grid4stepEd" || tab.Names[3].Image != "libgomp.so.1" {
		t.Errorf("read back: %+v", tab)
	}
}

func TestWriteFuncTableRefuses(t *testing.T) {
	for _, c := range []struct {
		secs []ImageSection
		want string
	}{
		{[]ImageSection{{Image: ""}}, "empty image path"},
		{[]ImageSection{{Image: "app", Names: []trace.Name{{Func: "+"}}}}, `function name "+"`},
		{[]ImageSection{{Image: "app", Names: []trace.Name{{Func: "a\nb"}}}}, "line break"},
		{[]ImageSection{{Image: "app", Names: make([]trace.Name, MaxFuncID+1)}}, "empty function name"},
	} {
		var b bytes.Buffer
		err := WriteFuncTable(&b, c.secs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WriteFuncTable(%.40v) = %v, want an error saying %q", c.secs, err, c.want)
		}
		if b.Len() != 0 {
			t.Errorf("a refused table wrote %d bytes", b.Len())
		}
	}
	many := make([]trace.Name, MaxFuncID+1)
	for i := range many {
		many[i] = trace.Name{Image: "app", Func: "f"}
	}
	if err := WriteFuncTable(&bytes.Buffer{}, []ImageSection{{Image: "app", Names: many}}); err == nil || !strings.Contains(err.Error(), "at most 65534") {
		t.Errorf("%d functions: %v", len(many), err)
	}
}
