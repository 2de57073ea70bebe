package redisconn

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		url  string
		want target
	}{
		{"redis://cache", target{network: "tcp", addr: "cache:6379", serverName: "cache"}},
		{"redis://", target{network: "tcp", addr: "localhost:6379", serverName: "localhost"}},
		{"redis://:pw@10.0.0.1:6380/2", target{network: "tcp", addr: "10.0.0.1:6380", password: "pw", db: 2, serverName: "10.0.0.1"}},
		{"redis://alice:p%40ss@[::1]:7000/", target{network: "tcp", addr: "[::1]:7000", user: "alice", password: "p@ss", serverName: "::1"}},
		{"redis://justapassword@h", target{network: "tcp", addr: "h:6379", password: "justapassword", serverName: "h"}},
		{"rediss://redis.example.com:6380/1", target{network: "tcp", addr: "redis.example.com:6380", db: 1, tls: true, serverName: "redis.example.com"}},
		{"unix:///run/redis.sock", target{network: "unix", addr: "/run/redis.sock"}},
		{"unix://:pw@/run/redis.sock?db=3", target{network: "unix", addr: "/run/redis.sock", password: "pw", db: 3}},
	}
	for _, tt := range tests {
		got, reason := parseURL(tt.url)
		if got == nil {
			t.Errorf("%s: %s", tt.url, reason)
			continue
		}
		if *got != tt.want {
			t.Errorf("%s\ngot  %+v\nwant %+v", tt.url, *got, tt.want)
		}
	}
}

// TestTLSHandshakeBounded checks that a Redis over TLS that accepts a
// connection and never answers its handshake is given the exchange's time,
// as one that never answers a request: the exchange ends at its deadline,
// not at the TLS library's own timeout of 10 s.
func TestTLSHandshakeBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		// Each connection is read and never answered, until the client
		// closes it.
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				_, _ = io.Copy(io.Discard, c)
				c.Close()
			}()
		}
	}()
	c, err := Open("rediss://"+ln.Addr().String(), "the test store")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Check(context.Background())
	want := "Redis at " + ln.Addr().String() + ", the test store, could not be reached: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a TLS handshake that hangs: %v; want %q and the exchange's deadline", err, want)
	}
}
