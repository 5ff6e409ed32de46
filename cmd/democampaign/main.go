// Command democampaign writes the synthetic result files of the example
// campaign results/qwen3-batch (see internal/democampaign): vLLM JSON files
// and benchledger trace files, in subfolders of the output folder.
//
//	democampaign [-out DIR]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/benchledger/benchledger/internal/democampaign"
)

func main() {
	fs := flag.NewFlagSet("democampaign", flag.ContinueOnError)
	out := fs.String("out", "results/qwen3-batch", "folder to write the result files into")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: democampaign [-out DIR]\n\nWrites the synthetic result files (vLLM JSON and benchledger traces) of the qwen3-batch demo campaign.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "democampaign: unexpected argument %q\n", fs.Arg(0))
		os.Exit(2)
	}
	paths, err := democampaign.Generate(*out)
	for _, p := range paths {
		if st, serr := os.Stat(p); serr == nil {
			fmt.Fprintf(os.Stderr, "wrote %s (%d bytes)\n", p, st.Size())
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "democampaign: %v\n", err)
		os.Exit(1)
	}
}
