package main

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// probe is a Kubernetes HTTP probe.
type probe struct {
	HTTPGet httpGet `yaml:"httpGet"`
}

type httpGet struct{ Path, Port string }

// TestKubernetesManifest checks deploy/kubernetes.yaml against the server
// it deploys: two replicas probed on /healthz and /readyz at the port the
// Dockerfile exposes; and runs the binary as the manifest's container
// would (the Dockerfile's entrypoint, the manifest's args, its Redis URL
// pointing at the test's Redis, examples/guarded.hcl as the ConfigMap), on
// loopback ports: both probes answer 200 and the metrics port serves
// /metrics.
func TestKubernetesManifest(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var deployment struct {
		Kind string
		Spec struct {
			Replicas int
			Template struct {
				Spec struct {
					Containers []struct {
						Args  []string
						Ports []struct {
							Name          string
							ContainerPort int `yaml:"containerPort"`
						}
						Env            []struct{ Name, Value string }
						LivenessProbe  probe `yaml:"livenessProbe"`
						ReadinessProbe probe `yaml:"readinessProbe"`
					}
				}
			}
		}
	}
	// The first document is the Deployment; the Service follows.
	if err := yaml.NewDecoder(strings.NewReader(string(raw))).Decode(&deployment); err != nil {
		t.Fatal(err)
	}
	if deployment.Kind != "Deployment" || deployment.Spec.Replicas != 2 || len(deployment.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want a Deployment of two replicas of one container: %+v", deployment)
	}
	// Whatever the manifest points the replicas at, it deploys: a Service
	// for the host and port of the Redis URL.
	services := map[string][]int{}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	for {
		var doc struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     struct{ Ports []struct{ Port int } }
		}
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if doc.Kind == "Service" {
			for _, p := range doc.Spec.Ports {
				services[doc.Metadata.Name] = append(services[doc.Metadata.Name], p.Port)
			}
		}
	}
	for _, e := range deployment.Spec.Template.Spec.Containers[0].Env {
		if e.Name != "RATE_LIMIT_REDIS_URL" {
			continue
		}
		u, err := url.Parse(e.Value)
		if err != nil {
			t.Fatal(err)
		}
		port, _ := strconv.Atoi(u.Port())
		if !slices.Contains(services[u.Hostname()], port) {
			t.Errorf("RATE_LIMIT_REDIS_URL is %s, but the manifest deploys no Service %q on port %d (services: %v)", e.Value, u.Hostname(), port, services)
		}
	}
	dockerfile, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	c := deployment.Spec.Template.Spec.Containers[0]
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["mcp"] != 8080 || !strings.Contains(string(dockerfile), `"--http", "0.0.0.0:8080"`) || !strings.Contains(string(dockerfile), "EXPOSE 8080") {
		t.Errorf("the mcp port is %d; the Dockerfile serves 8080", ports["mcp"])
	}
	if c.LivenessProbe.HTTPGet != (httpGet{"/healthz", "mcp"}) || c.ReadinessProbe.HTTPGet != (httpGet{"/readyz", "mcp"}) {
		t.Errorf("probes: liveness %+v, readiness %+v; want /healthz and /readyz on the mcp port", c.LivenessProbe.HTTPGet, c.ReadinessProbe.HTTPGet)
	}

	// Run it as the container would, on loopback ports.
	redis := testservice.Redis(t)
	g := newGuarded(t)
	metricsAddr := freeAddr(t)
	args := []string{}
	for _, a := range c.Args {
		switch {
		case a == "0.0.0.0:9464":
			args = append(args, metricsAddr)
		case strings.HasPrefix(a, "/config/"):
			abs, _ := filepath.Abs(filepath.Join("..", "..", "examples", "guarded.hcl"))
			args = append(args, abs)
		default:
			args = append(args, a)
		}
	}
	env := g.env()
	for _, e := range c.Env {
		if e.Name == "RATE_LIMIT_REDIS_URL" {
			env = append(env, e.Name+"=redis://"+redis)
		}
	}
	endpoint, _, _ := startHTTPEnv(t, env, args...)
	base := strings.TrimSuffix(endpoint, "/mcp")
	for _, path := range []string{c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path} {
		resp, err := http.Get(base + path)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %v %v", path, resp, err)
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
	deadline := time.Now().Add(enginetest.Patience)
	for {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err == nil && resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the metrics port does not serve /metrics: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
