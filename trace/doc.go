// Package trace holds the small types every stage of difftrace shares: the
// trace identifier P.T (process, thread), the symbol table that interns
// image+function names into small integers once per comparison, and the
// event sequence of one thread.
//
// It imports nothing of this module, so every stage can import it.
package trace
