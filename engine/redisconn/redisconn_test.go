package redisconn

import "testing"

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
