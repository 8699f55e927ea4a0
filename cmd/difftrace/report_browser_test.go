package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/difftrace/difftrace/internal/synth"
	"github.com/difftrace/difftrace/internal/testenv"
)

// screenshotEnv names a file the browser test also writes its screenshot
// to (docs/report.png is made so).
const screenshotEnv = "DIFFTRACE_REPORT_SCREENSHOT"

// browser returns the path of a Chromium or Chrome, or stops the test as
// testenv.Tool does: it fails in CI and is skipped elsewhere.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return testenv.Tool(t, "chromium", "the report page cannot be loaded in a browser (apt-get install chromium)")
}

// TestReportInBrowser loads the page of the stencil pair in headless
// Chromium from a file:// URL with the network off (a proxy that does not
// exist, no name resolves, the network emulated offline) and checks that
// it renders and works: the verdict, the ranking table, three heatmaps
// whose images decode, two dendrograms, the lattices and the diffNLR are
// there and drawn; a click on a row shows its combination, on a loop opens
// it; sorting, filtering and the diffNLR's select work; no script fails and
// no request leaves the page. It saves a screenshot of the whole page in
// a temporary directory, and to $DIFFTRACE_REPORT_SCREENSHOT when set: the page from the
// top down to the similarity matrices (docs/report.png).
func TestReportInBrowser(t *testing.T) {
	chrome := browser(t)
	dir := t.TempDir()
	html := filepath.Join(dir, "report.html")
	// From the top of the repository, so that the page names the runs as
	// the README does.
	if r := difftraceAt(t, "../..", nil, "report", "testdata/runs/stencil-normal", "testdata/runs/stencil-skipbug", "-o", html); r.code != 0 {
		t.Fatalf("difftrace report: %s", r.stderr)
	}

	ctx, checkRequests := openPage(t, chrome, html, "#verdict")

	// What rendered.
	verdict := eval[string](t, ctx, `document.querySelector('#verdict').innerText`)
	for _, want := range []string{"Look at process 3 first.", "first difference: iteration 6 of 12 of the loop over driver::Simulation::step", "halo::Exchanger::exchange missing"} {
		if !strings.Contains(verdict, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, verdict)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#rows tbody tr').length`); n != 144 {
		t.Errorf("%d rows in the table, want 144", n)
	}
	if s := eval[string](t, ctx, `document.querySelector('#rowcount').textContent`); s != "144 of 144 rows shown" {
		t.Errorf("row count %q", s)
	}
	// Three heatmaps in the combination shown, drawn, their images valid
	// PNGs of one pixel per pair of the 8 traces.
	sizes := eval[[]int](t, ctx, `Promise.all([...document.querySelectorAll('.per-view.heatmaps:not([hidden]) svg.heatmap')].map(svg => {
		const r = svg.getBoundingClientRect(), img = svg.querySelector('image');
		if (r.width < 100 || r.height < 100 || !img) return -1;
		return new Promise(done => { const i = new Image(); i.onload = () => done(i.naturalWidth); i.onerror = () => done(-2); i.src = img.getAttribute('href'); });
	}))`, chromedp.EvalAwaitPromise)
	if fmt.Sprint(sizes) != "[8 8 8]" {
		t.Errorf("heatmaps shown: image widths %v, want three of 8 pixels (8 traces)", sizes)
	}
	// Hovering over a matrix names the cell.
	tip := eval[string](t, ctx, `(() => { const svg = document.querySelector('.per-view.heatmaps:not([hidden]) svg.heatmap'); const r = svg.querySelector('image').getBoundingClientRect();
		svg.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width * 0.7, clientY: r.top + r.height * 0.2, bubbles: true}));
		const tip = document.querySelector('.tip'); return tip.hidden ? '' : tip.textContent; })()`)
	if !regexp.MustCompile(`^\d\.0 × \d\.0: [01]\.\d\d$`).MatchString(tip) {
		t.Errorf("hovering over a heatmap shows %q, want the cell's traces and value", tip)
	}
	dendro := eval[[]int](t, ctx, `[...document.querySelectorAll('.per-combo.dendrograms:not([hidden]) svg.dendrogram')].map(s => s.getBoundingClientRect().width > 100 ? s.querySelectorAll('path.branch').length : -1)`)
	if len(dendro) != 2 || dendro[0] < 1 || dendro[1] < 1 {
		t.Errorf("dendrograms shown: branches %v, want two drawn dendrograms", dendro)
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll('.per-view.lattices:not([hidden]) svg.lattice')].filter(s => s.getBoundingClientRect().width > 50 && s.querySelectorAll('g.concept').length > 0).length`); n != 2 {
		t.Errorf("%d lattices drawn, want both runs'", n)
	}
	diff := eval[[]int](t, ctx, `(() => { const d = document.querySelector('.diff:not([hidden])'); return [d.querySelectorAll('.ln').length, d.querySelectorAll('.ln.normal').length, d.querySelectorAll('.ln.faulty').length, d.querySelectorAll('.ln .end').length, d.querySelectorAll('details.loop').length]; })()`)
	if len(diff) != 5 || diff[0] < 5 || diff[1] < 1 || diff[2] < 1 || diff[3] != 1 || diff[4] < 2 {
		t.Errorf("diffNLR shown: %v lines, normal-only, faulty-only, ends, loops; want a diff with both sides, the faulty trace's end and loops", diff)
	}
	if s := eval[string](t, ctx, `document.querySelector('.diff:not([hidden])').getAttribute('data-trace')`); s != "3" {
		t.Errorf("the diffNLR shown first is %s's, want the suspect's, 3", s)
	}

	// A click on a loop opens it.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.diff:not([hidden]) details.loop > summary`))); err != nil {
		t.Fatal(err)
	}
	if open := eval[[]float64](t, ctx, `(() => { const d = document.querySelector('.diff:not([hidden]) details.loop'); return [d.open ? 1 : 0, d.querySelector('.body').getBoundingClientRect().height]; })()`); open[0] != 1 || open[1] < 10 {
		t.Errorf("the loop clicked: open %v, its body %v px high; want it open", open[0], open[1])
	}
	if s := eval[string](t, ctx, `document.querySelector('.diff:not([hidden]) details.loop .body').innerText`); !strings.Contains(s, "MPI_Irecv") {
		t.Errorf("the loop's body reads %q, want the step's MPI calls", s)
	}

	// The screenshot: the page as it is now, from the top down to the
	// similarity matrices of the combination shown (below them come the
	// dendrograms, the lattices and the diffNLR).
	bottom := eval[float64](t, ctx, `(() => { window.scrollTo(0, 0); const r = document.querySelector('.per-view.heatmaps:not([hidden])').getBoundingClientRect(); return r.bottom + window.scrollY + 16; })()`)
	if h := eval[float64](t, ctx, `document.documentElement.scrollHeight`); h < bottom+1000 {
		t.Errorf("the page is %v pixels high, the matrices end at %v: where are the dendrograms, the lattices and the diffNLR?", h, bottom)
	}
	shot, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng, CaptureBeyondViewport: ptrTo(true), FromSurface: ptrTo(true),
		Clip: &page.Viewport{Width: 1280, Height: bottom, Scale: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() < 1500 {
		t.Errorf("screenshot of %v, want 1280 pixels wide and over 1,500 high", b)
	}
	for _, p := range []string{filepath.Join(t.TempDir(), "report.png"), os.Getenv(screenshotEnv)} {
		if p == "" {
			continue
		}
		if err := os.WriteFile(p, shot.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}

	// A click on a row shows its combination: one of another view.
	row := eval[string](t, ctx, `(() => {
		const shown = document.querySelector('#combination').getAttribute('data-shown');
		const view = document.querySelector('.per-combo[data-combo="' + shown + '"]').getAttribute('data-view');
		const other = [...document.querySelectorAll('.per-combo[data-title]')].find(c => c.getAttribute('data-view') !== view);
		return other ? document.querySelector('#rows tr[data-combo="' + other.getAttribute('data-combo') + '"]').getAttribute('data-row') : '';
	})()`)
	if row == "" {
		t.Fatal("no precomputed row of another view to click")
	}
	before := eval[string](t, ctx, `document.querySelector('#combo-title').textContent`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#rows tbody tr[data-row="`+row+`"]`))); err != nil {
		t.Fatal(err)
	}
	after := eval[[]string](t, ctx, `(() => { const tr = document.querySelector('#rows tbody tr.selected'); const c = document.querySelector('#combination').getAttribute('data-shown');
		const v = document.querySelector('.per-combo[data-combo="' + c + '"]').getAttribute('data-view');
		const hm = document.querySelector('.per-view.heatmaps:not([hidden])');
		return [tr.getAttribute('data-row'), tr.getAttribute('data-combo'), c, hm ? hm.getAttribute('data-view') : 'none', v, document.querySelector('#combo-title').textContent]; })()`)
	if after[0] != row || after[1] != after[2] || after[3] != after[4] || after[5] == before {
		t.Errorf("after a click on row %s: selected row %s (combination %s), combination shown %s, view shown %s (the combination's %s), title %q (was %q)",
			row, after[0], after[1], after[2], after[3], after[4], after[5], before)
	}
	// A row that was not precomputed shows the commands that draw it.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#rows tbody tr[data-combo="-1"]`))); err != nil {
		t.Fatal(err)
	}
	none := eval[[]string](t, ctx, `[String(document.querySelector('#combo-none').hidden), document.querySelector('#combo-none-cmd').textContent, String(document.querySelectorAll('.per-view:not([hidden]), .per-combo:not([hidden])').length)]`)
	if none[0] != "false" || !strings.Contains(none[1], "difftrace jsm ") || none[2] != "0" {
		t.Errorf("a row not precomputed: notice hidden %s, commands %q, %s pictures shown", none[0], none[1], none[2])
	}

	// Sorting and filtering.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#rows th:nth-child(6)`)), chromedp.Click(chromedp.CSS(`#rows th:nth-child(6)`))); err != nil {
		t.Fatal(err)
	}
	order := eval[[]float64](t, ctx, `[...document.querySelectorAll('#rows tbody tr')].map(tr => parseFloat(tr.getAttribute('data-bscore')))`)
	for i := 1; i < len(order); i++ {
		if order[i] > order[i-1] {
			t.Errorf("sorted by B-score, descending: row %d has %v after %v", i, order[i], order[i-1])
			break
		}
	}
	shown := eval[string](t, ctx, `(() => { const s = document.querySelector('.rowfilter[data-col=linkage]'); s.value = 'ward'; s.dispatchEvent(new Event('change'));
		const f = document.querySelector('.rowfilter[data-col=filter]'); f.value = 'mpi'; f.dispatchEvent(new Event('change'));
		const rows = [...document.querySelectorAll('#rows tbody tr')].filter(tr => !tr.hidden);
		return rows.length + ' ' + rows.every(tr => tr.getAttribute('data-linkage') === 'ward' && tr.getAttribute('data-filter') === 'mpi') + ' ' + document.querySelector('#rowcount').textContent; })()`)
	if shown != "6 true 6 of 144 rows shown" {
		t.Errorf("filtered to mpi and ward: %q, want the 6 rows of the attribute modes", shown)
	}

	// The diffNLR of another suspect.
	other := eval[string](t, ctx, `(() => { const s = document.querySelector('#diff-select'); s.value = '1'; s.dispatchEvent(new Event('change'));
		const shown = [...document.querySelectorAll('.diff')].filter(d => !d.hidden); return shown.length + ' ' + shown[0].getAttribute('data-trace'); })()`)
	if other == "1 3" || !strings.HasPrefix(other, "1 ") {
		t.Errorf("after choosing the second diffNLR: %q shown", other)
	}

	checkRequests()
}

// openPage loads the page html in headless Chromium (chrome) from a
// file:// URL with the network off (a proxy that does not exist, no name
// resolves, the network emulated offline) and waits until the element
// ready shows. checkRequests, called when the test is done with the page,
// fails the test for every script error and every request that left the
// page.
func openPage(t *testing.T, chrome, html, ready string) (ctx context.Context, checkRequests func()) {
	t.Helper()
	dir := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.ProxyServer("127.0.0.1:9"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1280, 1000),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses its sandbox to root
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancel)

	// The browser and its tab, listened to before anything loads.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", chrome, err)
	}
	var mu sync.Mutex
	var requests, failures []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		case *runtime.EventExceptionThrown:
			failures = append(failures, "exception: "+e.ExceptionDetails.Text+" "+describe(e.ExceptionDetails.Exception))
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				failures = append(failures, fmt.Sprintf("console.%s: %s", e.Type, describeArgs(e.Args)))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	offline := []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}}
	if _, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: offline}); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(html)
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(ready))); err != nil {
		t.Fatal(err)
	}
	return ctx, func() {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		for _, f := range failures {
			t.Errorf("in the browser: %s", f)
		}
		if len(requests) == 0 {
			t.Error("no request seen at all: the network was not watched")
		}
		for _, u := range requests {
			if u != url && !strings.HasPrefix(u, "data:") {
				t.Errorf("the page requested %s", u)
			}
		}
	}
}

// TestLargeReportInBrowser writes the page of a generated pair of 16,384
// traces a run (internal/synth: 4,096 processes × 4 threads, the faulty
// run with a race, a skipped exchange and a hang planted) over a narrow
// grid, and opens it in headless Chromium with the network off: the
// verdict names one of the planted traces, and the ranking table shows
// its rows, the summarised matrices said so.
func TestLargeReportInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("writes two runs of 16,384 traces and their page (-short)")
	}
	chrome := browser(t)
	dir := memDir(t)
	spec := synth.Spec{Procs: 4096, Threads: 4, Events: 100, Rows: 4, Seed: 1}
	normal, faulty := filepath.Join(dir, "normal"), filepath.Join(dir, "faulty")
	if _, err := synth.Write(normal, spec); err != nil {
		t.Fatal(err)
	}
	spec.Faulty = true
	spec.Bugs = synth.Plant(spec, synth.Race, synth.SkipPhase, synth.Hang)
	if _, err := synth.Write(faulty, spec); err != nil {
		t.Fatal(err)
	}
	var planted []string
	for _, b := range spec.Bugs {
		planted = append(planted, b.Trace().String(), strconv.Itoa(b.Proc))
	}
	html := filepath.Join(dir, "report.html")
	r := difftrace(t, "report", normal, faulty, "--filters", "mpi", "--linkage", "ward", "--attrs", "sing.noFreq", "-o", html)
	if r.code != 0 {
		t.Fatalf("difftrace report: %s", r.stderr)
	}
	st, err := os.Stat(html)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the page of 16,384 traces a run: %d bytes", st.Size())

	ctx, checkRequests := openPage(t, chrome, html, "#verdict")
	verdict := eval[string](t, ctx, `document.querySelector('#verdict').innerText`)
	if m := regexp.MustCompile(`Look at (?:trace|process) (\S+) first\.`).FindStringSubmatch(verdict); m == nil || !slices.Contains(planted, m[1]) {
		t.Errorf("the verdict does not name a planted trace (%v):\n%s", planted, verdict)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#rows tbody tr').length`); n != 1 {
		t.Errorf("%d rows in the table, want the one combination swept", n)
	}
	if s := eval[string](t, ctx, `document.querySelector('#rows tbody tr').innerText`); !strings.Contains(s, "mpi") || !strings.Contains(s, "ward") {
		t.Errorf("the table's row reads %q, want filter mpi and linkage ward", s)
	}
	if s := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(s, "16384 threads") && !strings.Contains(s, "16,384") {
		t.Errorf("the page does not say how many traces it compares")
	}
	checkRequests()
}

// memDir returns a temporary directory in memory (/dev/shm) where there is
// one, else on disk: 2 × 16,384 trace files are written and read there, and
// the test is about the page, not the disk.
func memDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "difftrace-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func ptrTo[T any](v T) *T { return &v }

// eval runs JavaScript in the page and returns its value.
func eval[T any](t *testing.T, ctx context.Context, js string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, opts...))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

func describe(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	return o.Description
}

func describeArgs(args []*runtime.RemoteObject) string {
	var s []string
	for _, a := range args {
		if a.Description != "" {
			s = append(s, a.Description)
		} else {
			s = append(s, string(a.Value))
		}
	}
	return strings.Join(s, " ")
}
