package diffnlr

// The tests draw pictures in their own process rather than with the
// difftrace-draw helper.
import _ "github.com/difftrace/difftrace/draw/graphviz"
