package openapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// fetch reads a document from an http(s) URL with client, bounded in time
// and size.
func fetch(loc string, client *http.Client) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s answered %s", loc, resp.Status)
	}
	return readCapped(resp.Body, loc)
}

// readCapped reads r whole, failing past MaxSpecBytes.
func readCapped(r io.Reader, loc string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSpecBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSpecBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB", loc, MaxSpecBytes>>20)
	}
	return b, nil
}
