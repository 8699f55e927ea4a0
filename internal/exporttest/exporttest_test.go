package exporttest_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/difftrace/difftrace/internal/exporttest"
	"github.com/difftrace/difftrace/trace"
)

// A Chrome file of one slice, in parts a test can spoil.
const (
	head    = `{"traceEvents":[` + "\n"
	names   = `{"name":"process_name","ph":"M","ts":0,"pid":1,"tid":0,"args":{"name":"rank 0"}},` + "\n" + `{"name":"thread_name","ph":"M","ts":0,"pid":1,"tid":1,"args":{"name":"thread 0"}},` + "\n"
	slice   = `{"name":"main","cat":"app","ph":"B","ts":0,"pid":1,"tid":1},` + "\n" + `{"name":"main","ph":"E","ts":1,"pid":1,"tid":1}`
	tail    = "\n" + `],"displayTimeUnit":"ms","otherData":{"clock":"ts is the index of the event in its trace"}}`
	oneCall = head + names + slice + tail
)

// The Chrome reader takes a well-formed file and refuses each thing
// Perfetto's importer would not take, or would show wrongly.
func TestChromeRules(t *testing.T) {
	f, err := exporttest.Chrome.Read([]byte(oneCall))
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Paths["0.0 main"]; c != (exporttest.Count{Calls: 1, Events: 1}) || f.Images["main"] != "app" {
		t.Errorf("paths %v, images %v", f.Paths, f.Images)
	}
	for _, tc := range []struct{ why, file, want string }{
		{"pid 0", strings.ReplaceAll(oneCall, `"pid":1`, `"pid":0`), "pid 0"},
		{"tid 0", head + names + strings.ReplaceAll(slice, `"tid":1`, `"tid":0`) + tail, "tid 0"},
		{"a fraction of a microsecond", strings.Replace(oneCall, `"ts":1,`, `"ts":1.5,`, 1), "ts"},
		{"a string ts", strings.Replace(oneCall, `"ts":1,`, `"ts":"1",`, 1), "ts"},
		{"a string pid", strings.Replace(oneCall, `"ts":1,"pid":1`, `"ts":1,"pid":"1"`, 1), "pid"},
		{"a slice before its track's name", head + slice + ",\n" + strings.TrimSuffix(names, ",\n") + tail, "not named"},
		{"an unnamed process", head + strings.Replace(names, `"name":"rank 0"`, `"name":""`, 1) + slice + tail, "args.name"},
		{"an unknown metadata event", head + strings.Replace(names, "process_name", "process_labels", 1) + slice + tail, "metadata"},
		{"an unknown ph", strings.Replace(oneCall, `"ph":"E"`, `"ph":"Q"`, 1), `"Q"`},
		{"a complete event", head + names + `{"name":"main","ph":"X","ts":0,"dur":1,"pid":1,"tid":1}` + tail, "complete event"},
		{"a slice left open", head + names + strings.SplitN(slice, "\n", 2)[0][:len(strings.SplitN(slice, "\n", 2)[0])-1] + tail, "never closed"},
		{"no clock", strings.Replace(oneCall, "ts is the index of the event in its trace", "microseconds", 1), "clock"},
		{"a displayTimeUnit the format lacks", strings.Replace(oneCall, `"ms"`, `"s"`, 1), "displayTimeUnit"},
	} {
		if _, err := exporttest.Chrome.Read([]byte(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.why, err, tc.want)
		}
	}
}

// The pprof reader refuses a profile without the exporter's sample types
// or labels.
func TestPprofRules(t *testing.T) {
	fn := &profile.Function{ID: 1, Name: "main"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	for _, tc := range []struct {
		why  string
		p    *profile.Profile
		want string
	}{
		{"one sample type", &profile.Profile{SampleType: []*profile.ValueType{{Type: "calls", Unit: "count"}}}, "sample types"},
		{"no labels", &profile.Profile{
			SampleType:        []*profile.ValueType{{Type: "calls", Unit: "count"}, {Type: "events", Unit: "count"}},
			DefaultSampleType: "calls",
			Sample:            []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{1, 1}}},
			Location:          []*profile.Location{loc},
			Function:          []*profile.Function{fn},
		}, "labels"},
	} {
		var b bytes.Buffer
		if err := tc.p.Write(&b); err != nil {
			t.Fatal(err)
		}
		if _, err := exporttest.Pprof.Read(b.Bytes()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.why, err, tc.want)
		}
	}
}

// recorder is a testing.TB that keeps what Errorf says.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Compare reports a count, a path, an image and open calls that differ.
func TestCompare(t *testing.T) {
	want := &exporttest.File{
		Paths:  map[string]exporttest.Count{"0.0 main": {1, 3}, "0.0 main;f": {2, 2}},
		Open:   map[trace.ID]int{{}: 1},
		Images: map[string]string{"main": "app", "f": "app"},
	}
	got := &exporttest.File{
		Paths:  map[string]exporttest.Count{"0.0 main": {1, 2}, "0.0 main;g": {2, 2}},
		Open:   map[trace.ID]int{},
		Images: map[string]string{"main": "lib.so"},
	}
	r := &recorder{TB: t}
	exporttest.Compare(r, exporttest.Chrome, got, want)
	all := strings.Join(r.errs, "\n")
	for _, w := range []string{"0.0 main: calls, events {1 2}", "0.0 main;f: calls, events {0 0}", "0.0 main;g: {2 2}, a path", `main in "lib.so"`, "calls open at the end"} {
		if !strings.Contains(all, w) {
			t.Errorf("Compare said:\n%s\nnothing of %q", all, w)
		}
	}
	if len(r.errs) != 5 {
		t.Errorf("%d differences reported, want 5:\n%s", len(r.errs), all)
	}
}
