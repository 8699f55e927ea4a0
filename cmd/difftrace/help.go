package main

import (
	"embed"
	"fmt"
	"strings"

	"github.com/difftrace/difftrace/filters"
)

// filterHelp lists the filter presets for help texts.
func filterHelp() string {
	var b strings.Builder
	for _, p := range filters.Presets() {
		fmt.Fprintf(&b, "  %-12s %s\n", p[0], p[1])
	}
	return b.String()
}

// helpTexts are the commands' long help texts, help/NAME.txt, and their
// examples, help/NAME.examples.txt: prose read and edited as text, apart
// from the flags and calls of the commands.
//
//go:embed help/*.txt
var helpTexts embed.FS

// help returns the long help of the command name, with the list of filter
// presets where the text says {{filters}}.
func help(name string) string {
	return strings.ReplaceAll(helpText(name+".txt"), "{{filters}}", filterHelp())
}

// examples returns the examples of the command name.
func examples(name string) string { return helpText(name + ".examples.txt") }

// helpText returns the text of help/file without its last newline.
func helpText(file string) string {
	b, err := helpTexts.ReadFile("help/" + file)
	if err != nil {
		panic(err) // the texts are compiled in: a missing one is a bug
	}
	return strings.TrimSuffix(string(b), "\n")
}
