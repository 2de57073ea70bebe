package httpaction

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestLoadWarnings checks that settings which load but weaken security are
// warned about, on the attribute, while narrower ones are not.
func TestLoadWarnings(t *testing.T) {
	const dyn = "http {\n  url = expr(\"args.v\")\n"
	tests := []struct{ name, src, want string }{{
		name: "insecure_skip_verify",
		src:  "http_api \"x\" {\n  base_url = \"https://127.0.0.1:1\"\n  tls {\n    insecure_skip_verify = true\n  }\n}\n",
		want: "4:5-4:32: TLS certificates are not verified",
	}, {
		name: "insecure_skip_verify false",
		src:  "http_api \"x\" {\n  base_url = \"https://127.0.0.1:1\"\n  tls {\n    insecure_skip_verify = false\n  }\n}\n",
	}, {
		name: "a wildcard over a top-level domain",
		src:  dyn + "  allowed_hosts = [\"api.example.com\", \"*.com\"]\n}",
		want: `3:39-3:46: Very wide allowed_hosts: "*.com" allows every host under the top-level domain "com"`,
	}, {
		name: "a wildcard over a domain",
		src:  dyn + "  allowed_hosts = [\"*.example.com\"]\n}",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := newFixture(t).decode(tt.src)
			if diags.HasErrors() {
				t.Fatalf("errors:\n%s", diagsText(diags))
			}
			var warnings hcl.Diagnostics
			for _, d := range diags {
				if d.Severity == hcl.DiagWarning {
					warnings = append(warnings, d)
				}
			}
			got := ""
			if len(warnings) > 0 {
				got = rangeText(*warnings[0].Subject) + ": " + warnings[0].Summary + ": " + warnings[0].Detail
			}
			switch {
			case tt.want == "" && len(warnings) > 0:
				t.Errorf("unexpected warning:\n%s", diagsText(warnings))
			case tt.want != "" && (len(warnings) != 1 || len(got) < len(tt.want) || got[:len(tt.want)] != tt.want):
				t.Errorf("got\n%swant %s…", diagsText(warnings), tt.want)
			}
		})
	}
}
