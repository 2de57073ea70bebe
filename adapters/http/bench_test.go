package httpaction

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

const benchBody = `{"name":"Paris","main":{"temp":18.5,"humidity":72},"weather":[{"description":"light rain"}]}`

func benchServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, benchBody)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchAction decodes the benchmark's action: a GET with a path parameter
// and three query parameters computed from the arguments.
func benchAction(b *testing.B, base string) engine.Action {
	src := `
http_api "x" {
  base_url = "` + base + `/v1"
  auth { bearer = "token-1234" }
}
http {
  api         = http_api.x
  path        = "/weather/{city}"
  path_params = { city = expr("args.city") }
  query = {
    units = expr("args.units")
    lang  = expr("args.lang")
    days  = expr("args.days")
  }
}`
	return newFixture(b).action(src)
}

var benchArgs = map[string]any{"city": "São Paulo", "units": "metric", "lang": "en", "days": 3}

// BenchmarkRun is one call: build the request, send it over loopback, read
// and decode the JSON response.
func BenchmarkRun(b *testing.B) {
	act := benchAction(b, benchServer(b).URL)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := act.Run(ctx, benchArgs)
		if err != nil || resp.Failure != "" {
			b.Fatal(err, resp.Failure)
		}
	}
}

// BenchmarkRunParallel is BenchmarkRun from concurrent callers.
func BenchmarkRunParallel(b *testing.B) {
	act := benchAction(b, benchServer(b).URL)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := act.Run(ctx, benchArgs); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkBaseline is the same exchange with net/http alone, the request
// written by hand: the floor that BenchmarkRun is measured against.
func BenchmarkBaseline(b *testing.B) {
	srv := benchServer(b)
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	url := srv.URL + "/v1/weather/S%C3%A3o%20Paulo?days=3&lang=en&units=metric"
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequestWithContext(context.Background(), "GET", url, nil)
		req.Header.Set("Authorization", "Bearer token-1234")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkURL is the adapter's own work on the way out: evaluating the
// programs and writing the URL.
func BenchmarkURL(b *testing.B) {
	act := benchAction(b, "http://127.0.0.1:1").(*action)
	env := map[string]any{"args": benchArgs}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := act.url(env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCachedToken is what a call through an http_api with oauth2 or
// token_exchange adds over a static bearer token once its token is held:
// finding the token (for a token exchange, the caller's, by a hash of the
// caller's JWT) and writing the Authorization header it sends.
func BenchmarkCachedToken(b *testing.B) {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":"tok-0123456789abcdef","token_type":"Bearer","expires_in":3600}`)
	}))
	b.Cleanup(endpoint.Close)
	caller := engine.WithCaller(context.Background(), engine.Caller{ID: "jwt:ann", Authenticated: true,
		Token: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbm4iLCJhdWQiOiJodHRwczovL21jcC5leGFtcGxlLmNvbSJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"})
	for _, kind := range []string{"oauth2", "token_exchange"} {
		b.Run(kind, func(b *testing.B) {
			s := &tokenSource{api: "x", client: http.DefaultClient}
			s.config.TokenURL, s.config.ClientID, s.config.ClientSecret = endpoint.URL, "c", "s3cret"
			if kind == "token_exchange" {
				s.exchanged = newExchanged(nil)
			}
			if _, err := s.accessToken(caller, ""); err != nil {
				b.Fatal(err)
			}
			h := http.Header{}
			b.ReportAllocs()
			for b.Loop() {
				tok, err := s.accessToken(caller, "")
				if err != nil {
					b.Fatal(err)
				}
				h.Set("Authorization", "Bearer "+tok)
			}
		})
	}
}
