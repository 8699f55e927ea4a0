package record

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/difftrace/difftrace/elfsym"
	"github.com/difftrace/difftrace/uftrace"
)

// euStackHung is eu-stack -m -b -a output for a rank of the dlBug run,
// blocked in MPI_Recv under uftrace, with one of Open MPI's helper threads.
const euStackHung = `PID 11440 - process
TID 11440:
#0  0x00007f7616f88017     __sched_yield - /usr/lib/x86_64-linux-gnu/libc.so.6
    [93ac61ec5a8eb1396f9fbd350e3169a558528a40]@0x7f7616e9a000+0xee017
#1  0x00007f760e0459fd - 1 mca_pml_ob1_recv - /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ob1.so
    [cc5a7ec5e99993dcc0c52e06d8a1f2b4699cac25]@0x7f760e03c000+0x99fc
#2  0x00007f7617106135 - 1 PMPI_Recv - /usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4
    [2a2f4d8c4f8dc5dcc63f6789a50f3ab49f61e168]@0x7f761707c000+0x8a134
#3  0x00007f76171f2a71 - 1 - /usr/lib/x86_64-linux-gnu/uftrace/libmcount.so
    [13b97513a6e62871c1d8ba51b092a084b2407989]@0x7f76171c5000+0x2da70
TID 11489:
#0  0x00007fa179db926f     __poll - /usr/lib/x86_64-linux-gnu/libc.so.6
    [93ac61ec5a8eb1396f9fbd350e3169a558528a40]@0x7f7616e9a000+0xd926f
#1  0x00007fa179021225 - 1 event_base_loop - /usr/lib/x86_64-linux-gnu/libevent_core-2.1.so.7.0.1
    [3378e16ccdd10834f45633d4d30bdc456205505b]@0x7fa179000000+0x21224
#2  0x00007fa179d461f5 - 1 start_thread - /usr/lib/x86_64-linux-gnu/libc.so.6
    [93ac61ec5a8eb1396f9fbd350e3169a558528a40]@0x7f7616e9a000+0x881f4
`

func TestParseEuStack(t *testing.T) {
	th := parseEuStack([]byte(euStackHung))
	if len(th) != 2 || len(th[11440]) != 4 || len(th[11489]) != 3 {
		t.Fatalf("parsed %v", th)
	}
	f := th[11440][2]
	if f.PC != 0x7f7617106135 || f.Module != "/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4" || f.Vaddr != 0x8a134 || !f.Call {
		t.Errorf("frame 2 = %+v", f)
	}
	if th[11440][0].Call {
		t.Error("the innermost frame is not a return address")
	}
	// The trampoline test reads the recorder library's code: only with the
	// very build of libmcount this output came from (Debian 12's uftrace).
	if lm, err := elf.Open(th[11440][3].Module); err == nil && elfsym.BuildID(lm) == "13b97513a6e62871c1d8ba51b092a084b2407989" {
		in, ok := InnermostTraced(th[11440])
		if !ok || in != f {
			t.Errorf("innermost traced frame = %+v, %v; want the PMPI_Recv frame", in, ok)
		}
	} else {
		t.Log("not checking the trampoline frame: another libmcount build is installed")
	}
	if _, ok := InnermostTraced(th[11489]); ok {
		t.Error("a thread that never entered a traced call has no traced frame")
	}
	// A thread busy inside the recorder: recorder frames, then more.
	busy := []Frame{
		{Module: "/usr/lib/x86_64-linux-gnu/libc.so.6"},
		{Module: "/usr/lib/x86_64-linux-gnu/uftrace/libmcount.so", Call: true},
		{Module: "/work/app", Call: true},
	}
	if _, ok := InnermostTraced(busy); ok {
		t.Error("a thread inside the recorder must not report a traced call")
	}
}

// TestConvertAddsBlockedCall records a real program that blocks forever in
// a library call, snapshots and kills it as capture does, and checks that
// the converted trace ends inside that call although uftrace never wrote
// its entry.
func TestConvertAddsBlockedCall(t *testing.T) {
	needTools(t, "uftrace", "eu-stack")
	dir := t.TempDir()
	bin := compileC(t, dir, "block", `
#include <unistd.h>
int step(int x) { return x + 1; }
void wait_forever(void) { step(1); pause(); }
int main(void) { wait_forever(); return 0; }
`)
	data := filepath.Join(dir, "uftrace.data")
	cmd := exec.Command("uftrace", "record", "--no-event", "-d", data, "-P", ".", "--", bin)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// uftrace forks the program: find it, and wait until it blocks. A
	// snapshot's time is read before eu-stack attaches, which can take long
	// on a loaded machine; conversion rightly ignores a snapshot of a thread
	// that recorded anything after that time. So keep the second snapshot
	// that finds the program in pause: it was blocked before that one began.
	var pid int
	var snap *Snapshot
	blocked := false
	for i := 0; i < 100 && snap == nil; i++ {
		time.Sleep(50 * time.Millisecond)
		if pid = childOf(cmd.Process.Pid); pid == 0 {
			continue
		}
		s, err := TakeSnapshot(pid, 10*time.Second)
		if err != nil {
			continue
		}
		if f, ok := InnermostTraced(s.Threads[pid]); ok && strings.Contains(f.Module, "libc") {
			if blocked {
				snap = s
			}
			blocked = true
		}
	}
	if snap == nil {
		t.Fatal("no snapshot showed the program blocked in pause")
	}
	syscall.Kill(pid, syscall.SIGTERM)
	cmd.Wait() // uftrace writes out its data once the program is gone
	ud, err := uftrace.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := ConvertUftrace(ud, ConvertOptions{Dir: out, Prefix: "trace", Snapshot: snap, MainImage: bin})
	if err != nil {
		t.Fatal(err)
	}
	seq := readRank(t, out, 0)[0]
	want := []string{"main", "wait_forever", "step", "}", "pause"}
	if !slices.Equal(seq, want) {
		t.Fatalf("trace %v, want %v (ending inside the call it hung in); notes %q", seq, want, res.Notes)
	}
	if !strings.Contains(strings.Join(res.Notes, ";"), "pause, the call it was blocked in, added from a stack snapshot") {
		t.Errorf("notes %q do not say the call was added", res.Notes)
	}
	// Without the snapshot the recording lacks the call: the gap the
	// snapshot closes.
	res2 := t.TempDir()
	if _, err := ConvertUftrace(ud, ConvertOptions{Dir: res2, Prefix: "trace"}); err != nil {
		t.Fatal(err)
	}
	if got := readRank(t, res2, 0)[0]; !slices.Equal(got, want[:4]) {
		t.Errorf("without a snapshot the trace is %v; expected uftrace to lack the blocked call: %v", got, want[:4])
	}
}
