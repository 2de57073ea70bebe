# Sourced by .ci/run, after services.sh: builds Jaeger v2 (an OpenTelemetry Collector
# distribution that receives OTLP and answers trace queries) outside the
# repository into a cache folder, once per version, and exports its path as
# MCPDECL_TEST_JAEGER. The test that reads a call's trace back from it
# starts its own, on free ports; none runs as a service. The first build
# takes about six minutes on two cores.

jaeger_version=v1.76.0 # the Go module's version; the program is Jaeger v2

ensure_jaeger() {
  build_go_program jaeger github.com/jaegertracing/jaeger/cmd/jaeger "$jaeger_version" jaeger || return 1
  MCPDECL_TEST_JAEGER=$BUILT
  export MCPDECL_TEST_JAEGER
  echo "Jaeger v2 from github.com/jaegertracing/jaeger@$jaeger_version: $MCPDECL_TEST_JAEGER"
}
