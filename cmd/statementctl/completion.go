package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// completeCommand is the hidden command the completion scripts call with the words typed so
// far: `statementctl __complete -- WORD... CURRENT` prints the candidates for CURRENT, one per
// line. Printing none leaves the shell to complete file names.
const completeCommand = "__complete"

// cmdCompletion prints the completion script of a shell.
func (a *app) cmdCompletion(_ context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	pos, err := a.parseArgs(fs, cmd, args, 1, 1)
	if err != nil {
		return err
	}
	script, ok := completionScripts[pos[0]]
	if !ok {
		return &usageError{msg: fmt.Sprintf("no completion for %q: bash, zsh or fish", pos[0]), cmd: cmd.name}
	}
	_, err = io.WriteString(a.stdout, script)
	return err
}

// completionScripts hand the work to `statementctl __complete`, so that they know every
// command and flag of the binary that runs them.
var completionScripts = map[string]string{
	"bash": `# statementctl completion for bash: source <(statementctl completion bash)
_statementctl() {
	local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n'
	COMPREPLY=($(statementctl __complete -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null))
}
complete -o default -F _statementctl statementctl
`,
	"zsh": `#compdef statementctl
# statementctl completion for zsh: source <(statementctl completion zsh), or save it as
# _statementctl in a directory of $fpath.
_statementctl() {
	local -a candidates
	candidates=("${(@f)$(statementctl __complete -- "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
	if [[ -n "${candidates[1]}" ]]; then
		compadd -- "${candidates[@]}"
	else
		_files
	fi
}
if [[ "${funcstack[1]}" == "_statementctl" ]]; then
	_statementctl "$@"
else
	compdef _statementctl statementctl
fi
`,
	"fish": `# statementctl completion for fish: statementctl completion fish | source
function __statementctl_complete
	set -l words (commandline -opc)
	set -e words[1]
	statementctl __complete -- $words (commandline -ct) 2>/dev/null
end
complete -c statementctl -a '(__statementctl_complete)'
`,
}

// complete prints the candidates for the last of args (after "--"), given the words before it.
func (a *app) complete(args []string) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		args = []string{""}
	}
	words, cur := args[:len(args)-1], args[len(args)-1]
	for _, c := range completions(words, cur) {
		if strings.HasPrefix(c, cur) {
			fmt.Fprintln(a.stdout, c)
		}
	}
}

// completions are the words that may follow words (not yet filtered by the current word cur).
func completions(words []string, cur string) []string {
	if len(words) == 0 {
		var first []string
		for _, c := range commands {
			name, _, _ := strings.Cut(c.name, " ")
			if !slices.Contains(first, name) {
				first = append(first, name)
			}
		}
		return append(first, "help")
	}
	switch words[0] {
	case "help":
		return completions(words[1:], cur)
	case "completion":
		if len(words) == 1 {
			return []string{"bash", "fish", "zsh"}
		}
		return nil
	}
	cmd, rest, ok := find(words)
	if !ok {
		// A group whose subcommand comes next.
		var subs []string
		for _, c := range commands {
			if group, sub, found := strings.Cut(c.name, " "); found && len(words) == 1 && group == words[0] {
				subs = append(subs, sub)
			}
		}
		return subs
	}
	fs := flagsOf(cmd)
	if fs == nil {
		return nil
	}
	if len(rest) > 0 {
		// The value of a flag that takes one: its allowed values when it names them.
		if prev := fs.Lookup(strings.TrimLeft(rest[len(rest)-1], "-")); prev != nil && strings.HasPrefix(rest[len(rest)-1], "-") && !isBool(prev) {
			return valuesOf(prev)
		}
	}
	if !strings.HasPrefix(cur, "-") {
		return nil // positional arguments are files or ids: the shell's default
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			names = append(names, "-"+f.Name)
		} else {
			names = append(names, "--"+f.Name)
		}
	})
	return names
}

// flagsOf returns cmd's flag set, read by running the command in a mode that stops at its
// parseArgs.
func flagsOf(cmd command) *flag.FlagSet {
	var got *flag.FlagSet
	scratch := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		getenv: func(string) string { return "" }, inspectFlags: func(fs *flag.FlagSet) { got = fs }}
	_ = cmd.run(scratch, context.Background(), cmd, nil)
	return got
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// valuesOf returns the values a flag's usage lists ("csv or json", "one of a, b or c"), for
// the flags whose values are words; nil otherwise.
func valuesOf(f *flag.Flag) []string {
	known := map[string][]string{
		"format": {"csv", "json"},
		"status": {"queued", "processing", "completed", "review", "failed"},
		"event":  {"job.created", "job.completed", "job.failed", "job.review", "usage.threshold"},
	}
	return known[f.Name]
}
