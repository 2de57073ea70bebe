package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
)

// startUpstream serves go-httpbin, and /blob?n=N, a JSON body holding N
// bytes of data, on loopback. It returns the base URL and a stop function.
func startUpstream() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/", httpbin.New())
	mux.HandleFunc("/blob", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		n = max(0, min(n, 16<<20))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data":"%s"}`, strings.Repeat("x", n))
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// startOTLPSink serves an OTLP/HTTP endpoint that reads every export and
// accepts it, keeping nothing, for the runs of mcpdecl with traces on: the
// exporter's work is the server's, the receiver's is not measured.
func startOTLPSink() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}
