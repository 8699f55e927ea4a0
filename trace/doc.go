// Package trace holds the small types every stage of difftrace shares: the
// trace identifier P.T (process, thread), the symbol table that interns
// image+function names into small integers once per comparison, and the
// event sequence of one thread.
//
// A name's image is an identity that does not depend on where the program
// was built or run (see Name): the program itself is Program, a library is
// its file name.
//
// It imports nothing of this module, so every stage can import it.
package trace
