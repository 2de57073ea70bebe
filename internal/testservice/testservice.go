// Package testservice finds the services that tests talk to for real (the
// machine's Redis, the OpenID Connect provider and Prometheus that .ci/run
// starts or installs): a test that needs one fails in CI (CI=true) when it
// is missing, and is skipped elsewhere with a message that says how to
// provide it.
package testservice

import (
	"net"
	"os"
	"testing"
	"time"
)

// missing fails t in CI and skips it elsewhere, saying what is missing
// and how to provide it.
func missing(t testing.TB, what, how string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: %s", what, how)
	}
	t.Skipf("%s; %s", what, how)
}

// Redis returns the address of the machine's Redis, 127.0.0.1:6379 unless
// MCPDECL_TEST_REDIS_ADDR says otherwise, once it answers.
func Redis(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("MCPDECL_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		missing(t, "Redis at "+addr+" does not answer ("+err.Error()+")", "start it, or set MCPDECL_TEST_REDIS_ADDR")
		return ""
	}
	conn.Close()
	return addr
}

// FromEnv returns the value of the environment variable name, which names
// a service (a URL, a program's path); how says how to provide it.
func FromEnv(t testing.TB, name, how string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		missing(t, name+" is not set", how)
	}
	return v
}
