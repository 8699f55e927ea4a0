package trace

// Trace is the event sequence of one thread: a Symbol at every function
// entry and Return at every exit, in program order. A killed thread's trace
// may end with open calls.
type Trace struct {
	ID     ID
	Events []Symbol
}

// Depths calls fn for each event with its call depth: an entry at depth d
// opens a frame and is reported at d (the outermost call is 0); a Return is
// reported at the depth of the frame it closes. Unmatched returns (more exits
// than entries) are reported at depth 0 and do not go negative.
func Depths(events []Symbol, fn func(i int, s Symbol, depth int)) {
	d := 0
	for i, s := range events {
		if s == Return {
			if d > 0 {
				d--
			}
			fn(i, s, d)
			continue
		}
		fn(i, s, d)
		d++
	}
}
