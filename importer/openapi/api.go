package openapi

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// apiDecl is the http_api block and the variables it reads.
type apiDecl struct {
	name     string
	title    string
	baseURL  string // the default of the base URL variable
	baseNote string // why the base URL needs setting, when it does
	auth     *authDecl
	authNote string // a security scheme left out, when one is
	// fixed are the parameters every tool sends with one value, which
	// the http_api sends instead (see liftFixed).
	fixed []Fixed
}

// authDecl is the auth block: one scheme.
type authDecl struct {
	kind      string   // bearer, basic, api_key, oauth2
	in, param string   // api_key: "header" or "query", and its name
	tokenURL  string   // oauth2: the client credentials flow's token URL
	scopes    []string // oauth2: those the operations require
	// keys are API keys in headers that the document requires along with
	// the scheme (security: [{a: [], b: []}] asks for both), sent as the
	// http_api's headers.
	keys   []extraKey
	scheme string // the security scheme's name in the document
	env    []string
	// synthetic is set for an api_key made from the operations' own
	// credential parameters, the document's schemes giving none (see
	// credentialAuth); scheme is then "".
	synthetic bool
}

// extraKey is an API key sent in a header besides the auth scheme.
type extraKey struct {
	header, scheme, env, variable string
}

// api reads the servers and the security schemes.
func (b *builder) api() (*apiDecl, error) {
	info := obj(b.spec.Root["info"])
	d := &apiDecl{title: strings.TrimSpace(str(info["title"]))}
	base, note := b.serverURL()
	if b.opts.BaseURL != "" {
		base, note = b.opts.BaseURL, ""
	}
	d.name = b.opts.Name
	if d.name == "" {
		// A short title says it best (pet_store); else the host does
		// (github for api.github.com).
		if t := snake(d.title); t != "" && len(t) <= 24 {
			d.name = t
		} else if h := hostName(base); h != "" {
			d.name = h
		} else {
			d.name = identifier(d.title, "api")
		}
	}
	d.name = identifier(d.name, "api")
	if len(d.name) > 32 {
		d.name = strings.TrimRight(d.name[:32], "_")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if b.opts.BaseURL != "" {
			return nil, fmt.Errorf("--base-url %q is not an absolute http or https URL", b.opts.BaseURL)
		}
		note = fmt.Sprintf("the document's server URL %q is not absolute; pass --base-url, or set the variable", base)
		base = "http://localhost"
		if u != nil && strings.HasPrefix(u.Path, "/") {
			base += u.Path
		}
	}
	d.baseURL, d.baseNote = strings.TrimRight(base, "/"), note
	d.auth, d.authNote = b.security()
	d.setEnv()
	return d, nil
}

// setEnv names the environment variables of the auth's credentials.
func (d *apiDecl) setEnv() {
	if d.auth != nil {
		up := strings.ToUpper(d.name)
		switch d.auth.kind {
		case "bearer":
			d.auth.env = []string{up + "_TOKEN"}
		case "basic":
			d.auth.env = []string{up + "_USERNAME", up + "_PASSWORD"}
		case "api_key":
			d.auth.env = []string{up + "_API_KEY"}
		case "oauth2":
			d.auth.env = []string{up + "_CLIENT_ID", up + "_CLIENT_SECRET"}
		}
		for i := range d.auth.keys {
			k := &d.auth.keys[i]
			id := identifier(k.header, "key")
			k.env, k.variable = strings.ToUpper(d.name+"_"+id), d.name+"_"+id
			d.auth.env = append(d.auth.env, k.env)
		}
	}
}

// serverURL is the document's first server URL, its variables set to
// their defaults, resolved against the document's location.
func (b *builder) serverURL() (string, string) {
	root := b.spec.Root
	if b.spec.Version[0] == '2' {
		host := str(root["host"])
		scheme := "https"
		if schemes := list(root["schemes"]); len(schemes) > 0 {
			scheme = str(schemes[0])
			for _, s := range schemes {
				if s == "https" {
					scheme = "https"
				}
			}
		}
		basePath := str(root["basePath"])
		if host == "" {
			return b.relative(basePath)
		}
		return scheme + "://" + host + basePath, ""
	}
	servers := list(root["servers"])
	if len(servers) == 0 {
		return b.relative("/")
	}
	s := obj(servers[0])
	u := str(s["url"])
	for name, v := range obj(s["variables"]) {
		def := fmt.Sprint(obj(v)["default"])
		u = strings.ReplaceAll(u, "{"+name+"}", def)
	}
	if strings.HasPrefix(u, "//") {
		u = "https:" + u
	}
	if !strings.Contains(u, "://") {
		return b.relative(u)
	}
	return u, ""
}

// relative resolves a relative server URL against the document's location
// when it was read from a URL.
func (b *builder) relative(ref string) (string, string) {
	loc, err := url.Parse(b.spec.Location)
	if err == nil && (loc.Scheme == "http" || loc.Scheme == "https") {
		r, err := url.Parse(ref)
		if err == nil {
			return loc.ResolveReference(r).String(), ""
		}
	}
	return ref, ""
}

// security picks the scheme of the http_api's auth: the first of the
// document's global requirements that a tool can send, else the one most
// operations require.
func (b *builder) security() (*authDecl, string) {
	a, left := b.pickScheme()
	if a != nil {
		a.keys = b.companions(a.scheme)
	}
	return a, left
}

// companions are the API keys in headers that a requirement naming scheme
// asks for along with it: the first such requirement of the document, or
// of its operations, decides.
func (b *builder) companions(scheme string) []extraKey {
	schemes := b.schemes()
	reqs := list(b.spec.Root["security"])
	for _, p := range sortedKeys(obj(b.spec.Root["paths"])) {
		for _, m := range methods {
			reqs = append(reqs, list(obj(obj(obj(b.spec.Root["paths"])[p])[m])["security"])...)
		}
	}
	for _, req := range reqs {
		r := obj(req)
		if _, ok := r[scheme]; !ok || len(r) < 2 {
			continue
		}
		var keys []extraKey
		for _, name := range sortedKeys(r) {
			if name == scheme {
				continue
			}
			v, _, _, err := b.spec.deref(schemes[name], b.spec.Location)
			s := obj(v)
			if err == nil && strings.EqualFold(str(s["type"]), "apiKey") && str(s["in"]) == "header" && headerToken(str(s["name"])) {
				keys = append(keys, extraKey{header: str(s["name"]), scheme: name})
			}
		}
		return keys
	}
	return nil
}

// schemes are the document's security schemes, by name.
func (b *builder) schemes() map[string]any {
	if b.spec.Version[0] == '2' {
		return obj(b.spec.Root["securityDefinitions"])
	}
	return obj(obj(b.spec.Root["components"])["securitySchemes"])
}

// pickScheme chooses the scheme of the http_api's auth (see security).
func (b *builder) pickScheme() (*authDecl, string) {
	schemes := b.schemes()
	if len(schemes) == 0 {
		return nil, ""
	}
	var candidates []string
	for _, req := range list(b.spec.Root["security"]) {
		candidates = append(candidates, sortedKeys(obj(req))...)
	}
	if len(candidates) == 0 {
		counts := map[string]int{}
		for _, item := range obj(b.spec.Root["paths"]) {
			for _, m := range methods {
				for _, req := range list(obj(obj(item)[m])["security"]) {
					for k := range obj(req) {
						counts[k]++
					}
				}
			}
		}
		for k := range counts {
			candidates = append(candidates, k)
		}
		sort.Slice(candidates, func(i, j int) bool {
			ci, cj := counts[candidates[i]], counts[candidates[j]]
			return ci > cj || ci == cj && candidates[i] < candidates[j]
		})
	}
	var left []string
	for _, name := range candidates {
		v, _, _, err := b.spec.deref(schemes[name], b.spec.Location)
		if err != nil {
			continue
		}
		s := obj(v)
		typ := strings.ToLower(str(s["type"]))
		switch {
		case typ == "oauth2" && b.tokenURL(s) != "":
			return &authDecl{kind: "oauth2", scheme: name, tokenURL: b.tokenURL(s), scopes: b.scopes(name)}, strings.Join(left, "; ")
		case typ == "http" && strings.EqualFold(str(s["scheme"]), "bearer"),
			typ == "oauth2", typ == "openidconnect":
			return &authDecl{kind: "bearer", scheme: name}, strings.Join(left, "; ")
		case typ == "http" && strings.EqualFold(str(s["scheme"]), "basic"), typ == "basic":
			return &authDecl{kind: "basic", scheme: name}, strings.Join(left, "; ")
		case typ == "apikey" && (str(s["in"]) == "header" && headerToken(str(s["name"])) || str(s["in"]) == "query" && str(s["name"]) != ""):
			return &authDecl{kind: "api_key", in: str(s["in"]), param: str(s["name"]), scheme: name}, strings.Join(left, "; ")
		default:
			left = append(left, fmt.Sprintf("the security scheme %q (%s) cannot be sent by an http_api", name, describeScheme(s)))
		}
	}
	return nil, strings.Join(left, "; ")
}

// tokenURL is the token URL of an OAuth2 scheme's client credentials flow
// (Swagger 2.0's "application" flow), made absolute against the base URL;
// "" when it has none, or one that a client secret may not be sent to
// (plain http but on a loopback address).
func (b *builder) tokenURL(scheme map[string]any) string {
	raw := str(obj(obj(scheme["flows"])["clientCredentials"])["tokenUrl"])
	if raw == "" && str(scheme["flow"]) == "application" {
		raw = str(scheme["tokenUrl"])
	}
	if raw == "" {
		return ""
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if !ref.IsAbs() {
		base, _ := b.serverURL()
		if b.opts.BaseURL != "" {
			base = b.opts.BaseURL
		}
		bu, err := url.Parse(base)
		if err != nil || !bu.IsAbs() {
			return ""
		}
		ref = bu.ResolveReference(ref)
	}
	host := ref.Hostname()
	if ref.Scheme != "https" && !(ref.Scheme == "http" && (host == "localhost" || host == "127.0.0.1" || host == "::1")) {
		return ""
	}
	return ref.String()
}

// scopes are the scopes that the document's requirements of the scheme
// called name ask for, globally or by operation, sorted.
func (b *builder) scopes(name string) []string {
	seen := map[string]bool{}
	add := func(reqs any) {
		for _, req := range list(reqs) {
			for _, sc := range list(obj(req)[name]) {
				if sc, ok := sc.(string); ok && sc != "" && !strings.ContainsAny(sc, " \t\r\n") {
					seen[sc] = true
				}
			}
		}
	}
	add(b.spec.Root["security"])
	for _, item := range obj(b.spec.Root["paths"]) {
		for _, m := range methods {
			add(obj(obj(item)[m])["security"])
		}
	}
	return sortedKeys(seen)
}

func describeScheme(s map[string]any) string {
	parts := []string{str(s["type"])}
	if v := str(s["scheme"]); v != "" {
		parts = append(parts, v)
	}
	if v := str(s["in"]); v != "" {
		parts = append(parts, "in "+v)
	}
	return strings.Join(parts, " ")
}

// hostName is a short name for an API from its base URL's host: github for
// api.github.com, petstore for petstore.swagger.io; "" for an address or
// localhost.
func hostName(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" || u.Hostname() == "localhost" || strings.Trim(u.Hostname(), "0123456789.:[]") == "" {
		return ""
	}
	labels := strings.Split(strings.ToLower(u.Hostname()), ".")
	if len(labels) < 2 {
		return snake(labels[0])
	}
	return snake(labels[len(labels)-2]) // the registered name: github of api.github.com
}
