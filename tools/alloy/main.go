// Command alloy is Grafana Alloy's command line (run, convert, fmt, ...) built from the published
// module: Alloy's own main package is in a nested module that the module zip leaves out, so this
// runs the root command that github.com/grafana/alloy/flowcmd exposes. Only the experimental
// `otel` subcommand, which lives in that nested module, is missing.
package main

import (
	"fmt"
	"os"

	"github.com/grafana/alloy/flowcmd"
)

func main() {
	root := flowcmd.RootCommand()
	ran, err := root.ExecuteC()
	if err != nil {
		// cobra prints the error itself unless a command silences it; never exit 1 silently.
		if root.SilenceErrors || (ran != nil && ran.SilenceErrors) {
			fmt.Fprintln(os.Stderr, "Error:", err)
		}
		os.Exit(1)
	}
}
