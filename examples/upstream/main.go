// Command upstream serves go-httpbin on a free port of 127.0.0.1 for
// examples/demo.sh, and prints its URL on the first line of its standard
// output once it listens: the demo talks to that URL only, so it never
// reaches another service that happens to listen on a fixed port.
package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "upstream:", err)
		os.Exit(1)
	}
}

func run() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("cannot listen on a free port of 127.0.0.1: %w", err)
	}
	srv := &http.Server{
		Handler:           httpbin.New(),
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Printf("http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
