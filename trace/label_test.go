package trace

import "testing"

// A template function's instances, alike in their parameters, are told
// apart by their template arguments, without the return type the
// demangled name begins with; overloads by their parameters, without it
// either.
func TestLabelOfTemplateInstances(t *testing.T) {
	tab := NewTable()
	a := tab.Intern(Name{Image: "app", Func: "void Solver::sweep<0, 1>(A&, B&, int)", Short: "Solver::sweep",
		Untemplated: "void Solver::sweep(A&, B&, int)", Templated: "Solver::sweep<0, 1>"})
	b := tab.Intern(Name{Image: "app", Func: "void Solver::sweep<1, 0>(A&, B&, int)", Short: "Solver::sweep",
		Untemplated: "void Solver::sweep(A&, B&, int)", Templated: "Solver::sweep<1, 0>"})
	c := tab.Intern(Name{Image: "app", Func: "int Solver::pick<2>(A&)", Short: "Solver::pick",
		Untemplated: "int Solver::pick(A&)", Templated: "Solver::pick<2>"})
	d := tab.Intern(Name{Image: "app", Func: "int Solver::pick<2>(B&)", Short: "Solver::pick",
		Untemplated: "int Solver::pick(B&)", Templated: "Solver::pick<2>"})
	for s, want := range map[Symbol]string{a: "Solver::sweep<0, 1>", b: "Solver::sweep<1, 0>", c: "Solver::pick(A&)", d: "Solver::pick(B&)"} {
		if got := tab.Label(s); got != want {
			t.Errorf("Label(%s) = %q, want %q", tab.Name(s).Func, got, want)
		}
	}
}
