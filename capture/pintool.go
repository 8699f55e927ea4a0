package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/difftrace/difftrace/rundir"
)

// The Pin backend runs an application under Intel Pin with this project's
// ParLOT Pin tool (capture/pintool, ParLOT paper section 3), which writes the
// ParLOT files itself. Pin is not a Debian package: the user brings a Pin kit
// (PIN_ROOT) and builds the tool with make PIN_ROOT=….

// ErrPinNotFound is returned when no Intel Pin kit can be found.
var ErrPinNotFound = errors.New("Pin not found: set PIN_ROOT to an Intel Pin kit and build capture/pintool with make PIN_ROOT=…")

// ErrPinToolNotBuilt is returned when Pin is there but the ParLOT tool has
// not been built for it.
var ErrPinToolNotBuilt = errors.New("ParLOT Pin tool not built: run make -C capture/pintool PIN_ROOT=… (or set " + PinToolEnv + " to its parlot.so)")

// PinToolEnv names the environment variable that may point at the built tool.
const PinToolEnv = "DIFFTRACE_PINTOOL"

// pinToolFile is where make puts the tool, relative to capture/pintool.
const pinToolFile = "obj-intel64/parlot.so"

// Pin is an Intel Pin launcher and the ParLOT tool built for it.
type Pin struct {
	Launcher string // the pin executable
	Tool     string // the tool, …/capture/pintool/obj-intel64/parlot.so
}

// FindPin locates Pin and the tool. getenv reads the environment (os.Getenv
// when nil). Pin is $PIN_ROOT/pin when PIN_ROOT is set, else pin on PATH. The
// tool is $DIFFTRACE_PINTOOL when set, else obj-intel64/parlot.so under the
// first of toolDirs that has it, then under capture/pintool of the working
// directory and of the repository the running executable was built in
// (bin/difftrace → ../capture/pintool), then $PIN_ROOT/source/tools/parlot.
// The errors wrap ErrPinNotFound or ErrPinToolNotBuilt.
func FindPin(getenv func(string) string, toolDirs ...string) (*Pin, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	launcher, err := findPinLauncher(getenv)
	if err != nil {
		return nil, err
	}
	tool, err := findPinTool(getenv, toolDirs)
	if err != nil {
		return nil, err
	}
	return &Pin{Launcher: launcher, Tool: tool}, nil
}

func findPinLauncher(getenv func(string) string) (string, error) {
	if root := getenv("PIN_ROOT"); root != "" {
		p := filepath.Join(root, "pin")
		if !isExecutable(p) {
			return "", fmt.Errorf("%w (PIN_ROOT=%s has no executable pin)", ErrPinNotFound, root)
		}
		return p, nil
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, "pin"); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (PIN_ROOT is unset and no pin is on PATH)", ErrPinNotFound)
}

func findPinTool(getenv func(string) string, toolDirs []string) (string, error) {
	if p := getenv(PinToolEnv); p != "" {
		if !isRegular(p) {
			return "", fmt.Errorf("%w (%s=%s is not a file)", ErrPinToolNotBuilt, PinToolEnv, p)
		}
		return p, nil
	}
	dirs := append([]string(nil), toolDirs...)
	dirs = append(dirs, filepath.Join("capture", "pintool"))
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "..", "capture", "pintool"))
	}
	if root := getenv("PIN_ROOT"); root != "" {
		dirs = append(dirs, filepath.Join(root, "source", "tools", "parlot"))
	}
	var looked []string
	for _, d := range dirs {
		p := filepath.Join(d, pinToolFile)
		if isRegular(p) {
			return p, nil
		}
		looked = append(looked, p)
	}
	return "", fmt.Errorf("%w (looked for %s)", ErrPinToolNotBuilt, strings.Join(looked, ", "))
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// PinRun says how the tool records one process.
type PinRun struct {
	Dir    string // output directory (the tool's -o); it must exist
	Prefix string // file name prefix; empty means DefaultPinPrefix()
	// Rank is the number in the file names (-rank): the capture command
	// passes the rank it read from the launcher. Negative lets the tool
	// decide: the launcher's rank from the environment, else the pid.
	Rank       int
	AllImages  bool          // trace every image, not only the main executable
	FlushEvery time.Duration // how often the tool writes the traces; 0: its default (200 ms)
}

// DefaultPinPrefix is the tool's default file name prefix, the reference
// ParLOT tool's Hdbg.17.<host> with the host name cut at its first dot.
func DefaultPinPrefix() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	host, _, _ = strings.Cut(host, ".")
	if host == "" {
		host = "localhost"
	}
	return "Hdbg.17." + strings.ReplaceAll(host, "/", "_")
}

func (r PinRun) prefix() string {
	if r.Prefix != "" {
		return r.Prefix
	}
	return DefaultPinPrefix()
}

// InfoPath is the function table the tool writes for the run's rank
// (<dir>/<prefix>.<rank>.info). It needs Rank ≥ 0.
func (r PinRun) InfoPath() string {
	return filepath.Join(r.Dir, rundir.InfoName(r.prefix(), r.Rank))
}

// TracePath is the trace file of a thread (<dir>/<prefix>.<rank>.<thread>,
// threads numbered by creation, main = 0). It needs Rank ≥ 0.
func (r PinRun) TracePath(thread int) string {
	return filepath.Join(r.Dir, rundir.TraceName(r.prefix(), r.Rank, thread))
}

// Args returns the command line that runs app under Pin with the tool:
// pin -t TOOL -o DIR -prefix P [-rank N] [-all_images 1] [-flush_ms MS] -- app args….
func (p *Pin) Args(r PinRun, app string, args ...string) []string {
	dir := r.Dir
	if dir == "" {
		dir = "."
	}
	a := []string{p.Launcher, "-t", p.Tool, "-o", dir, "-prefix", r.prefix()}
	if r.Rank >= 0 {
		a = append(a, "-rank", strconv.Itoa(r.Rank))
	}
	if r.AllImages {
		a = append(a, "-all_images", "1")
	}
	if r.FlushEvery > 0 {
		ms := max(1, r.FlushEvery.Milliseconds())
		a = append(a, "-flush_ms", strconv.FormatInt(ms, 10))
	}
	a = append(a, "--", app)
	return append(a, args...)
}

// Command returns the command that runs app under Pin with the tool. The
// caller sets its standard streams and environment and starts it.
func (p *Pin) Command(ctx context.Context, r PinRun, app string, args ...string) *exec.Cmd {
	a := p.Args(r, app, args...)
	return exec.CommandContext(ctx, a[0], a[1:]...)
}
