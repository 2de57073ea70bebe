# Sourced by .ci/run: builds Jaeger v2 (an OpenTelemetry Collector
# distribution that receives OTLP and answers trace queries) outside the
# repository into a cache folder, once per version, and exports its path as
# MCPDECL_TEST_JAEGER. The test that reads a call's trace back from it
# starts its own, on free ports; none runs as a service. The first build
# takes about six minutes on two cores.

jaeger_version=v1.76.0 # the Go module's version; the program is Jaeger v2

ensure_jaeger() {
  local dir="${MCPDECL_CI_CACHE:-$HOME/.cache/mcpdecl-ci}/jaeger-$jaeger_version"
  if [ ! -x "$dir/jaeger" ]; then
    echo "building Jaeger ($jaeger_version) into $dir"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && go mod init jaeger-ci >/dev/null 2>&1 &&
      GOFLAGS=-mod=mod go get "github.com/jaegertracing/jaeger/cmd/jaeger@$jaeger_version" >/dev/null 2>&1 &&
      GOFLAGS=-mod=mod go build -o jaeger.tmp github.com/jaegertracing/jaeger/cmd/jaeger &&
      mv jaeger.tmp jaeger) ||
      { echo "FAIL: could not build Jaeger (github.com/jaegertracing/jaeger/cmd/jaeger@$jaeger_version)" >&2; return 1; }
  fi
  MCPDECL_TEST_JAEGER="$dir/jaeger"
  export MCPDECL_TEST_JAEGER
  echo "Jaeger v2 from github.com/jaegertracing/jaeger@$jaeger_version: $MCPDECL_TEST_JAEGER"
}
