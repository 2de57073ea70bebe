// Command upstream serves go-httpbin on a free port of 127.0.0.1 for
// examples/demo.sh, and prints its URL on the first line of its standard
// output once it listens: the demo talks to that URL only, so it never
// reaches another service that happens to listen on a fixed port.
//
// It also serves /openapi.json, an OpenAPI document of a few of go-httpbin's
// endpoints, for the README's walkthrough to import.
//
// -addr HOST:PORT listens there instead: for a container to reach it, say
// (-addr 0.0.0.0:8099, which every host that reaches this machine can call).
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
)

//go:embed openapi.json
var openapi []byte

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "upstream:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "the address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", *addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", httpbin.New())
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openapi)
	})
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Printf("http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
