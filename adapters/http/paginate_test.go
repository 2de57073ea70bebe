package httpaction_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// pagedUpstream serves the numbers 1 to 7 in pages of 3, in the three
// styles APIs use, and two broken ones.
func pagedUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	page := func(from int) []int {
		var out []int
		for n := from; n <= 7 && n < from+3; n++ {
			out = append(out, n)
		}
		return out
	}
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	// A cursor in the body: {"data": […], "next": "c4"} until the last.
	mux.HandleFunc("/cursor", func(w http.ResponseWriter, r *http.Request) {
		from := 1
		if c := r.URL.Query().Get("cursor"); c != "" {
			from, _ = strconv.Atoi(strings.TrimPrefix(c, "c"))
		}
		body := map[string]any{"data": page(from)}
		if from+3 <= 7 {
			body["next"] = fmt.Sprintf("c%d", from+3)
		}
		write(w, body)
	})
	// A Link header, as GitHub's: rel="next" until the last page.
	mux.HandleFunc("/link", func(w http.ResponseWriter, r *http.Request) {
		p, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if p == 0 {
			p = 1
		}
		if p < 3 {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/link?page=%d&per_page=3>; rel="next", <http://%s/link?page=3>; rel="last"`, r.Host, p+1, r.Host))
		}
		write(w, page(3*(p-1)+1))
	})
	// Links on several Link header lines, as a proxy may split them: the
	// next one on the second line.
	mux.HandleFunc("/lines", func(w http.ResponseWriter, r *http.Request) {
		p, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if p == 0 {
			p = 1
		}
		w.Header().Add("Link", fmt.Sprintf(`<http://%s/lines?page=1>; rel="first"`, r.Host))
		if p < 3 {
			w.Header().Add("Link", fmt.Sprintf(`<http://%s/lines?page=3>; rel="last", <http://%s/lines?page=%d>; rel="next"`, r.Host, r.Host, p+1))
		}
		write(w, page(3*(p-1)+1))
	})
	// Offsets: a plain list; a short page is the last.
	mux.HandleFunc("/offset", func(w http.ResponseWriter, r *http.Request) {
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		write(w, page(off+1))
	})
	// A cursor that never changes.
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		write(w, map[string]any{"data": []int{1}, "next": "same"})
	})
	// A next page on another host.
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `<http://169.254.169.254/latest/meta-data>; rel="next"`)
		write(w, []int{1})
	})
	// A next page on the same host, over another scheme.
	mux.HandleFunc("/scheme", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", fmt.Sprintf(`<https://%s/scheme?page=2>; rel="next"`, r.Host))
		write(w, []int{1})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestPaginate follows each style of pages to the end, gathering the
// items in order; stops at max_pages and max_items with truncated; and
// refuses pages that loop or lead to another host or scheme.
func TestPaginate(t *testing.T) {
	up := pagedUpstream(t)
	tool := func(name, path, paginate string) string {
		return fmt.Sprintf(`
tool %q {
  description = "Numbers."
  http {
    url   = "%s%s"
    query = { per_page = 3 }
    paginate {
      %s
    }
  }
  output "numbers" {
    type  = list(integer)
    value = expr("body")
  }
  output "pages" {
    type  = integer
    value = expr("pages")
  }
  output "truncated" {
    type  = bool
    value = expr("truncated")
  }
}
`, name, up.URL, path, paginate)
	}
	cursor := `items = expr("body.data")
      next  = expr("body.next == nil ? nil : {cursor: body.next}")`
	cfg, diags := loadSource(t,
		tool("cursor", "/cursor", cursor)+
			tool("link", "/link", `items = expr("body")
      next  = expr("links.next")`)+
			tool("link_lines", "/lines", `items = expr("body")
      next  = expr("links.next")`)+
			tool("offset", "/offset", `items = expr("body")
      next  = expr("len(body) < 3 ? nil : {offset: page * 3}")`)+
			tool("few_pages", "/cursor", cursor+"\n      max_pages = 2")+
			tool("few_items", "/cursor", cursor+"\n      max_items = 4")+
			tool("loop", "/loop", cursor)+
			tool("away", "/away", `items = expr("body")
      next  = expr("links.next")`)+
			tool("scheme", "/scheme", `items = expr("body")
      next  = expr("links.next")`), nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	tests := []struct{ tool, want string }{
		{"cursor", `{"numbers":[1,2,3,4,5,6,7],"pages":3,"truncated":false}`},
		{"link", `{"numbers":[1,2,3,4,5,6,7],"pages":3,"truncated":false}`},
		{"link_lines", `{"numbers":[1,2,3,4,5,6,7],"pages":3,"truncated":false}`},
		{"offset", `{"numbers":[1,2,3,4,5,6,7],"pages":3,"truncated":false}`},
		{"few_pages", `{"numbers":[1,2,3,4,5,6],"pages":2,"truncated":true}`},
		{"few_items", `{"numbers":[1,2,3,4],"pages":2,"truncated":true}`},
	}
	for _, tt := range tests {
		res := enginetest.Call(t.Context(), t, cfg, tt.tool, `{}`)
		if res.IsError {
			t.Errorf("%s: %s", tt.tool, res.Text())
			continue
		}
		if got, _ := json.Marshal(res.Structured); string(got) != tt.want {
			t.Errorf("%s: %s, want %s", tt.tool, got, tt.want)
		}
	}
	for tool, want := range map[string]string{
		"loop":   "the upstream's pages loop: page 2 leads back to the request of page 2; check paginate's next",
		"away":   "page 1: paginate's next leads to http://169.254.169.254, another host than the upstream's http://127.0.0.1:",
		"scheme": "page 1: paginate's next leads to https://" + strings.TrimPrefix(up.URL, "http://") + ", another scheme than the upstream's " + up.URL + "; pages are followed on the upstream's own scheme and host only",
	} {
		res := enginetest.Call(t.Context(), t, cfg, tool, `{}`)
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("%s: %q, want an error with %q", tool, res.Text(), want)
		}
	}
}

// TestPaginateConfigErrors checks the paginate blocks a user can get wrong.
func TestPaginateConfigErrors(t *testing.T) {
	tests := []struct{ name, block, want string }{
		{"items not a program", `items = []
      next  = expr("nil")`, `Invalid items; items is computed from each page: write it as expr("…"), such as items = expr("body.data").`},
		{"no next", `items = expr("body")`, `Missing required argument; The argument "next" is required`},
		{"too many pages", `items = expr("body")
      next  = expr("links.next")
      max_pages = 5000`, "Invalid max_pages; max_pages is the most pages a call reads: a whole number from 1 to 1000, not 5000."},
		{"unknown variable", `items = expr("bodies")
      next  = expr("nil")`, "bodies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := loadSource(t, `
tool "t" {
  description = "d"
  http {
    url = "http://127.0.0.1:1/x"
    paginate {
      `+tt.block+`
    }
  }
}
`, nil)
			if got := diags.Error(); !diags.HasErrors() || !strings.Contains(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant %q", got, tt.want)
			}
		})
	}
}

// TestPaginateStopsAtResultSize reads pages only until their items pass
// the tool's max_result_bytes: the rest could not be shown, and holding
// them would cost memory for nothing. The result says it is truncated and
// still fits the limit.
func TestPaginateStopsAtResultSize(t *testing.T) {
	const pageItems, itemBytes = 16, 1024 // about 16 KiB of items a page
	var mu sync.Mutex
	requested := 0
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requested++
		mu.Unlock()
		p, _ := strconv.Atoi(r.URL.Query().Get("page"))
		items := make([]string, pageItems)
		for i := range items {
			items[i] = fmt.Sprintf("%d-%d-%s", p, i, strings.Repeat("x", itemBytes))
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": items, "next": p + 1})
	}))
	t.Cleanup(up.Close)
	cfg, diags := loadSource(t, fmt.Sprintf(`
tool "big" {
  description      = "Many large pages."
  max_result_bytes = 65536
  http {
    url   = "%s/items"
    query = { page = 0 }
    paginate {
      items     = expr("body.data")
      next      = expr("{page: body.next}")
      max_pages = 1000
      max_items = 1000000
    }
  }
  output "count" {
    type  = integer
    value = expr("len(body)")
  }
  output "pages" {
    type  = integer
    value = expr("pages")
  }
  output "truncated" {
    type  = bool
    value = expr("truncated")
  }
}
`, up.URL), nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	res := enginetest.Call(t.Context(), t, cfg, "big", `{}`)
	if res.IsError {
		t.Fatal(res.Text())
	}
	var got struct {
		Count, Pages int
		Truncated    bool
	}
	b, _ := json.Marshal(res.Structured)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// 64 KiB of items take four pages (a little more than 16 KiB each):
	// the page whose items pass the limit is the last one asked for.
	mu.Lock()
	n := requested
	mu.Unlock()
	if n > 4 || got.Pages != n || !got.Truncated {
		t.Errorf("%d pages requested, result %s; want at most 4 pages, all counted, and truncated", n, b)
	}
	if max := 65536 / itemBytes; got.Count >= max || got.Count < 3*pageItems {
		t.Errorf("%d items kept, want at least %d and fewer than %d (what fits in 64 KiB)", got.Count, 3*pageItems, max)
	}
}

// TestPaginateItemsFitResult shows the items gathered, cut at
// max_result_bytes, as the tool's result: not an error for a result too
// large.
func TestPaginateItemsFitResult(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := strconv.Atoi(r.URL.Query().Get("page"))
		items := make([]string, 16)
		for i := range items {
			items[i] = fmt.Sprintf("%d-%d-%s", p, i, strings.Repeat("y", 1024))
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": items, "next": p + 1})
	}))
	t.Cleanup(up.Close)
	cfg, diags := loadSource(t, fmt.Sprintf(`
tool "big" {
  description      = "Many large pages."
  max_result_bytes = 65536
  http {
    url   = "%s/items"
    query = { page = 0 }
    paginate {
      items     = expr("body.data")
      next      = expr("{page: body.next}")
      max_pages = 1000
    }
  }
  output "items" {
    type  = list(string)
    value = expr("body")
  }
}
`, up.URL), nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	res := enginetest.Call(t.Context(), t, cfg, "big", `{}`)
	if res.IsError {
		t.Fatalf("the call failed: %.300s", res.Text())
	}
}
