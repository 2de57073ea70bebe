// Command baseline is the server mcpdecl is measured against: the same
// tools written by hand, the way a Go developer would, on the official MCP
// Go SDK at the release mcpdecl started from (v1.8.0, unpatched: this
// directory is a module of its own). It serves stdio, or stateless
// streamable HTTP with plain JSON answers with -http.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on ADDR at /mcp instead of stdio")
	upstream := flag.String("upstream", "", "base URL of the upstream")
	dbPath := flag.String("db", "", "SQLite database of the top tool")
	filler := flag.Int("tools", 4, "tools to register in all: the four real ones, then filler tools that are only listed")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on ADDR (for the harness's -cpuprofile)")
	flag.Parse()
	if *pprofAddr != "" {
		// The blank import of net/http/pprof registers its handlers on
		// http.DefaultServeMux, which nothing else here uses.
		go func() { log.Println(http.ListenAndServe(*pprofAddr, nil)) }()
	}

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	db, err := sql.Open("sqlite", *dbPath)
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(10)

	s := mcp.NewServer(&mcp.Implementation{Name: "baseline", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "slideshow", Description: "The slideshow's author, date and title."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, slideshowOut, error) {
			var body struct {
				Slideshow slideshowOut `json:"slideshow"`
			}
			if err := getJSON(ctx, client, *upstream+"/json", &body); err != nil {
				return nil, slideshowOut{}, err
			}
			return nil, body.Slideshow, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "blob", Description: "Fetches a body of n bytes and says how long it was."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
			N int `json:"n"`
		}) (*mcp.CallToolResult, blobOut, error) {
			var body struct {
				Data string `json:"data"`
			}
			if err := getJSON(ctx, client, fmt.Sprintf("%s/blob?n=%d", *upstream, in.N), &body); err != nil {
				return nil, blobOut{}, err
			}
			return nil, blobOut{Size: len(body.Data)}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Runs echo."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, echoOut, error) {
			out, err := exec.CommandContext(ctx, "echo", in.Text).Output()
			if err != nil {
				return nil, echoOut{}, err
			}
			return nil, echoOut{Stdout: strings.TrimSpace(string(out))}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "top", Description: "The five dearest items."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, topOut, error) {
			rows, err := db.QueryContext(ctx, "SELECT name, price FROM items ORDER BY price DESC LIMIT 5")
			if err != nil {
				return nil, topOut{}, err
			}
			defer rows.Close()
			var out topOut
			for rows.Next() {
				var it item
				if err := rows.Scan(&it.Name, &it.Price); err != nil {
					return nil, topOut{}, err
				}
				out.Rows = append(out.Rows, it)
			}
			return nil, out, rows.Err()
		})

	for i := 4; i < *filler; i++ {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("filler_%d", i), Description: "A tool that is only listed."},
			func(_ context.Context, _ *mcp.CallToolRequest, in fillerIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Q}}}, nil, nil
			})
	}

	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "url=http://%s/mcp\n", ln.Addr())
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	log.Fatal(http.Serve(ln, mux))
}

type fillerIn struct {
	Q string `json:"q" jsonschema:"any text"`
}

type slideshowOut struct {
	Author string `json:"author"`
	Date   string `json:"date"`
	Title  string `json:"title"`
}

type blobOut struct {
	Size int `json:"size"`
}

type echoOut struct {
	Stdout string `json:"stdout"`
}

type item struct {
	Name  string  `json:"name"`
	Price float64 `json:"price"`
}

type topOut struct {
	Rows []item `json:"rows"`
}

func getJSON(ctx context.Context, client *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return fmt.Errorf("upstream: %s", resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
