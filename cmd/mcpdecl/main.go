// Command mcpdecl serves the tools declared in HCL files over the Model
// Context Protocol. See the README for a walkthrough, docs/commands.md for
// the commands, and docs/guide.md and docs/language.md for the language.
package main

import (
	"os"
	"runtime"
)

func main() {
	// Heap profiles can only be read through serve --pprof, which turns
	// sampling on again. Without it, sampling allocations costs memory
	// (the profiler's tables: about half a megabyte resident once a server
	// has run a while) and time, for nothing.
	runtime.MemProfileRate = 0
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
