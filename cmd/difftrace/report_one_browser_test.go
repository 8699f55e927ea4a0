package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// oneRunScreenshotEnv names a file the one-run browser test also writes
// its screenshot to (docs/report-one-run.png is made so).
const oneRunScreenshotEnv = "DIFFTRACE_ONE_RUN_SCREENSHOT"

// TestOneRunReportInBrowser loads the page of the stencil's faulty run
// alone (difftrace report RUN) in headless Chromium with the network off
// and checks that it renders and works: the verdict names rank 3, which
// skipped its halo exchange, with its first difference from its nearest
// class-mate; the classes name the roles (the first and the last rank);
// the consensus and the table of combinations are there; the diffNLR
// against the class-mate shows both sides and its loops, and a click on a
// loop opens it; the laggard is named; every part has its command; no
// script fails and no request leaves the page. It saves a screenshot.
func TestOneRunReportInBrowser(t *testing.T) {
	chrome := browser(t)
	html := filepath.Join(t.TempDir(), "page.html")
	if r := difftraceAt(t, "../..", nil, "report", "testdata/runs/stencil-skipbug", "-o", html); r.code != 0 {
		t.Fatalf("difftrace report RUN: %s", r.stderr)
	}
	ctx, checkRequests := openPage(t, chrome, html, "#verdict")

	verdict := eval[string](t, ctx, `document.querySelector('#verdict').innerText`)
	for _, want := range []string{"Look at trace 3 first — apart from its peers", "first difference from 2:", "halo::Exchanger::exchange missing", "nearest class-mate 2"} {
		if !strings.Contains(verdict, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, verdict)
		}
	}
	classes := eval[[]string](t, ctx, `[...document.querySelectorAll('#classes li')].map(li => li.className + ': ' + li.innerText)`)
	if len(classes) < 3 || !strings.Contains(strings.Join(classes, "\n"), "role: [0,7]") || !strings.Contains(strings.Join(classes, "\n"), "the first and the last rank") {
		t.Errorf("classes %q: want the first and the last rank named as a role", classes)
	}
	if !strings.Contains(strings.Join(classes, "\n"), "lone: [3]") {
		t.Errorf("classes %q: want 3 alone among its peers", classes)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#outlier-rows tbody tr').length`); n != 144 {
		t.Errorf("%d combinations in the table, want 144", n)
	}
	if s := eval[string](t, ctx, `document.querySelector('#ranking .votes tbody tr').innerText`); !strings.HasPrefix(strings.TrimSpace(s), "3") {
		t.Errorf("the consensus's first row reads %q, want 3", s)
	}
	diff := eval[[]int](t, ctx, `(() => { const d = document.querySelector('.diff:not([hidden])'); return [d.querySelectorAll('.ln').length, d.querySelectorAll('.ln.normal').length, d.querySelectorAll('details.loop').length, Math.round(d.getBoundingClientRect().height)]; })()`)
	if len(diff) != 4 || diff[0] < 3 || diff[1] < 1 || diff[2] < 1 || diff[3] < 50 {
		t.Errorf("diffNLR shown: %v lines, class-mate-only, loops, height; want a drawn diff with the calls 3 lacks and a loop", diff)
	}
	if s := eval[string](t, ctx, `document.querySelector('.diff:not([hidden]) .dhead').innerText`); !strings.HasPrefix(s, "diffNLR(3 against 2)") {
		t.Errorf("the diffNLR's header reads %q", s)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.diff:not([hidden]) details.loop > summary`))); err != nil {
		t.Fatal(err)
	}
	if s := eval[string](t, ctx, `(() => { const d = document.querySelector('.diff:not([hidden]) details.loop'); return d.open ? d.querySelector('.body').innerText : ''; })()`); !strings.Contains(s, "operator new") {
		t.Errorf("the loop clicked reads %q, want it open on the calls it repeats (the suggested view is the filter mem)", s)
	}
	if s := eval[string](t, ctx, `document.querySelector('#progress').innerText`); !strings.Contains(s, "3 reached 5 loop iterations") {
		t.Errorf("progress reads %q, want rank 3 lagging", s)
	}
	cmds := eval[string](t, ctx, `document.querySelector('#reproduce').innerText`)
	for _, want := range []string{"difftrace rank testdata/runs/stencil-skipbug", "difftrace diffnlr 3 --against 2 --faulty testdata/runs/stencil-skipbug", "difftrace report testdata/runs/stencil-skipbug -o page.html"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("the commands lack %q:\n%s", want, cmds)
		}
	}

	height := eval[float64](t, ctx, `(() => { window.scrollTo(0, 0); return Math.min(document.documentElement.scrollHeight, 2400); })()`)
	shot, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng, CaptureBeyondViewport: ptrTo(true), FromSurface: ptrTo(true),
		Clip: &page.Viewport{Width: 1280, Height: height, Scale: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() < 1000 {
		t.Errorf("screenshot of %v, want 1280 pixels wide and over 1,000 high", b)
	}
	for _, p := range []string{filepath.Join(t.TempDir(), "page.png"), os.Getenv(oneRunScreenshotEnv)} {
		if p == "" {
			continue
		}
		if err := os.WriteFile(p, shot.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
	checkRequests()
}
