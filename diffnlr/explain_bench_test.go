package diffnlr

import (
	"math"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// benchTraces builds a normal trace of about calls calls: main, then steps
// steps of one frame each, each step a body of period calls (a, b(c, d),
// e, …) repeated; and the faulty one with one call deleted from the middle
// step.
func benchTraces(calls, steps, period int) (normal, faulty []trace.Symbol) {
	const (
		main trace.Symbol = iota + 1
		step
		a
		b
		c
	)
	perStep := calls / steps
	var ev []trace.Symbol
	ev = append(ev, main)
	cut := -1
	for s := range steps {
		ev = append(ev, step)
		for k := 0; k < perStep; {
			for j := 0; j < period && k < perStep; j++ {
				if s == steps/2 && k == perStep/2 && cut < 0 {
					cut = len(ev)
				}
				switch j % 3 {
				case 0:
					ev = append(ev, a, trace.Return)
					k++
				case 1:
					ev = append(ev, b, c, trace.Return, trace.Return)
					k += 2
				default:
					ev = append(ev, c, trace.Return)
					k++
				}
			}
		}
		ev = append(ev, trace.Return)
	}
	ev = append(ev, trace.Return)
	// Delete the call at cut (with its subtree).
	end, depth := cut, 0
	for {
		if ev[end] == trace.Return {
			depth--
		} else {
			depth++
		}
		end++
		if depth == 0 {
			break
		}
	}
	faulty = append(append([]trace.Symbol(nil), ev[:cut]...), ev[end:]...)
	return ev, faulty
}

func benchmarkExplain(b *testing.B, calls, steps, period int) {
	normal, faulty := benchTraces(calls, steps, period)
	w := Whole{Normal: normal, Faulty: faulty}
	b.ResetTimer()
	for b.Loop() {
		e := ExplainFirst(First{Common: math.MaxUint64}, w, math.MaxUint64, math.MaxUint64)
		if e.Kind != Missing {
			b.Fatalf("explained as %v", e.Kind)
		}
	}
	b.ReportMetric(float64(len(normal)), "events")
}

// 10⁷ calls: 1,000 time steps of 10⁴ calls each (bodies of 7 calls).
func BenchmarkExplain10MSteps(b *testing.B) { benchmarkExplain(b, 10_000_000, 1_000, 7) }

// 10⁷ calls in 10 steps of 10⁶ callees each: the loops of a child list of
// 10⁶ (bodies of 30 calls).
func BenchmarkExplain10MWide(b *testing.B) { benchmarkExplain(b, 10_000_000, 10, 30) }
