package apidocs

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// Sample is one code sample of an operation, shown in a tab of its own.
type Sample struct {
	// Lang is the language, for the code block's class ("shell", "go", "typescript").
	Lang string
	// Label is the tab's title ("curl", "Go", "TypeScript").
	Label string
	// Code is the sample, its common indentation removed.
	Code string
}

// Samples are the code samples of one API's operations, by operationId, in tab order.
type Samples map[string][]Sample

// Add reads the regions of src that belong to api, each between a comment line
// "sample:start API OPERATION" and one "sample:end" (after // or #),
// and adds them as samples of lang under label. A marker is a whole comment line. A region left open, or a second region of
// one operation in one file, is an error.
func (s Samples) Add(api, lang, label string, src []byte) error {
	var (
		op    string // the operation of the open region, "" outside one
		lines []string
		seen  = map[string]bool{}
		n     int
	)
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		n++
		line := sc.Text()
		marker := commentText(line)
		if rest, ok := strings.CutPrefix(marker, "sample:start "); ok {
			if op != "" {
				return fmt.Errorf("%s samples, line %d: a region starts inside the region of %s", label, n, op)
			}
			fields := strings.Fields(rest)
			if len(fields) != 2 {
				return fmt.Errorf("%s samples, line %d: want \"sample:start API OPERATION\"", label, n)
			}
			if fields[0] != api {
				op = "-" // another API's region: skipped
			} else {
				op = fields[1]
			}
			lines = lines[:0]
			continue
		}
		if marker == "sample:end" {
			if op == "" {
				return fmt.Errorf("%s samples, line %d: sample:end outside a region", label, n)
			}
			if op != "-" {
				if seen[op] {
					return fmt.Errorf("%s samples: two regions for %s %s", label, api, op)
				}
				seen[op] = true
				s[op] = append(s[op], Sample{Lang: lang, Label: label, Code: dedent(lines)})
			}
			op = ""
			continue
		}
		if op != "" {
			lines = append(lines, line)
		}
	}
	if op != "" {
		return fmt.Errorf("%s samples: the region of %s has no sample:end", label, op)
	}
	return sc.Err()
}

// dedent joins lines with their common leading whitespace removed.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || indent < common {
			common = indent
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		}
		out[i] = strings.ReplaceAll(l, "\t", "    ")
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// commentText is the text of a line that is a // or # comment, "" for any other line.
func commentText(line string) string {
	t := strings.TrimSpace(line)
	for _, prefix := range []string{"//", "#"} {
		if rest, ok := strings.CutPrefix(t, prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}
