// Package doccmd reads the shell commands a Markdown document shows its
// reader, so that tests can run them as the reader would type them.
package doccmd

import (
	"regexp"
	"strings"
)

var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// Commands are the commands of every sh block of markdown, in order, with
// continuation lines joined, comments after " #" dropped and runs of
// spaces (an indented block's among them) made one.
func Commands(markdown string) []string {
	var out []string
	for _, m := range shBlock.FindAllStringSubmatch(markdown, -1) {
		block := strings.ReplaceAll(m[1], "\\\n", " ")
		for _, line := range strings.Split(block, "\n") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			if line = strings.Join(strings.Fields(line), " "); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}
