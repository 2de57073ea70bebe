// Command mcpdecl serves the tools declared in HCL files over the Model
// Context Protocol. See the README for the language and the commands.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
