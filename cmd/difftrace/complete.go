package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/session"
)

// Shell completion of flag values and of diffnlr's trace argument (the
// scripts come from "difftrace completion bash|zsh|fish|powershell").

// completeWords completes a flag whose value is one of words.
func completeWords(cmd *cobra.Command, flag string, words ...string) {
	cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp))
}

// completeJoined completes a flag whose value joins choices with any of
// the characters seps (a filter spec joins terms with "+", a sweep's list
// with ","): the choices are offered for the part after the last of them,
// each with its description after a tab when it has one.
func completeJoined(cmd *cobra.Command, flag, seps string, choices func() []string) {
	cmd.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		head := toComplete[:strings.LastIndexAny(toComplete, seps)+1]
		var out []string
		for _, c := range choices() {
			out = append(out, head+c)
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}

// filterTerms are the terms of a filter spec, with their descriptions.
func filterTerms() []string {
	var out []string
	for _, p := range filters.Presets() {
		name := p[0]
		if strings.HasSuffix(name, "=REGEXP") {
			name = strings.TrimSuffix(name, "REGEXP")
		}
		out = append(out, name+"\t"+p[1])
	}
	return out
}

// filterSpecs completes a list of filter specs: a comma starts a new spec,
// a "+" a new term of the current one.
func filterSpecs(cmd *cobra.Command, flag string) { completeJoined(cmd, flag, ",+", filterTerms) }

func attrModes() []string { return rank.Names(fca.Modes()) }

func linkages() []string { return append(rank.Names(cluster.Methods()), "all") }

// completeSuspects completes diffnlr's TRACE with the suspects of the
// session rank left in the current directory, most suspicious first.
func completeSuspects(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, err := session.Load(readFix)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, x := range s.Suspects() {
		out = append(out, x.ID+"\t"+x.Why)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
