package main

import (
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the golden files of the CLI scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mcpdecl": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scripts in testdata/script the way a user types
// them. Each script sees $EXAMPLES (the examples directory) and $UPSTREAM
// (the URL of a go-httpbin server on loopback).
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "../../testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			upstream := httptest.NewServer(httpbin.New())
			env.Defer(upstream.Close)
			weather := httptest.NewServer(http.HandlerFunc(fakeWeather))
			env.Defer(weather.Close)
			env.Setenv("EXAMPLES", examples)
			env.Setenv("UPSTREAM", upstream.URL)
			env.Setenv("WEATHER", weather.URL)
			return nil
		},
	})
}

// fakeWeather answers like the weather API of examples/weather.hcl, and
// refuses requests without the test's bearer token.
func fakeWeather(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer s3cret-token" {
		w.WriteHeader(http.StatusUnauthorized)
		// Like some real APIs, echo the rejected credential: mcpdecl must
		// redact it from the tool error.
		_ = json.NewEncoder(w).Encode(map[string]any{"message": "invalid api key: " + r.Header.Get("Authorization")})
		return
	}
	temp := 18.5
	if r.URL.Query().Get("units") == "imperial" {
		temp = 65.3
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"name":    path.Base(r.URL.Path),
		"main":    map[string]any{"temp": temp},
		"weather": []any{map[string]any{"description": "light rain"}},
	})
}
