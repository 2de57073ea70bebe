package cache

import (
	"bytes"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"

	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// Inputs are what a configuration's cache namespace is made of (see
// Namespace): what the loader read to make it.
type Inputs struct {
	// Files are the contents of its files, wherever they are.
	Files [][]byte
	// Read are the SHA-256 sums of the files it read with file().
	Read [][sha256.Size]byte
	// Variables is the object of its variables' values (var), the
	// sensitive ones marked.
	Variables cty.Value
	// Env is what env() read, by name: the value, or nil when the
	// variable was not set.
	Env map[string]*string
}

// Namespace is what a configuration's cache keys start from (see
// Policy.SetNamespace): a hash of the contents of its files and of the
// files it read with file(), of its variables' values, and of its
// secrets: the values of sensitive variables and what env() read. A
// configuration that changed (a mapping, an upstream's base_url, a
// variable, a schema in a file) reads none of the results an earlier one
// kept, in memory or in Redis, and neither does one holding other
// credentials (another tenant's key, given to the same files), whose
// results were fetched as someone else; replicas serving the same
// configuration with the same secrets share theirs. The secrets enter the
// hash through a slow key derivation (see secretsDigest), so that a key
// in Redis is no quick test of a guessed secret.
func Namespace(in Inputs) string {
	sums := make([][sha256.Size]byte, 0, len(in.Files)+len(in.Read))
	for _, f := range in.Files {
		sums = append(sums, sha256.Sum256(f))
	}
	sums = append(sums, in.Read...)
	slices.SortFunc(sums, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	h := sha256.New()
	for _, s := range sums {
		h.Write(s[:])
	}
	// secrets are the sensitive values, written as the public ones are:
	// each name, a NUL, its value, a NUL.
	var secrets []byte
	if vars := in.Variables; vars.Type().IsObjectType() && vars.IsWhollyKnown() && !vars.IsNull() {
		values := vars.AsValueMap()
		for _, name := range slices.Sorted(maps.Keys(values)) {
			v, sensitive := values[name], false
			if v.ContainsMarked() {
				v, _ = v.UnmarkDeep()
				sensitive = true
			}
			g, err := mapping.FromCty(v)
			if err != nil {
				continue
			}
			b, err := jsonenc.Append(nil, g)
			if err != nil {
				continue
			}
			part := slices.Concat([]byte(name), []byte{0}, b, []byte{0})
			if sensitive {
				secrets = append(secrets, part...)
			} else {
				h.Write(part)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(in.Env)) {
		secrets = append(secrets, "env:"+name...)
		if v := in.Env[name]; v != nil {
			secrets = append(append(append(secrets, '='), *v...), 0)
		} else {
			secrets = append(secrets, 0) // not set: apart from set to ""
		}
	}
	if len(secrets) > 0 {
		h.Write(secretsDigest(secrets, h.Sum(nil)))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// secretIterations is how many rounds of PBKDF2-HMAC-SHA256 the secrets
// of the namespace go through: some milliseconds once per load, a great
// many for whoever tries guesses of a secret against a key in Redis.
const secretIterations = 50_000

// secretsDigest derives what secrets add to the namespace, salted with
// the rest of it (so that one guess tests one configuration only).
func secretsDigest(secrets, salt []byte) []byte {
	k, err := pbkdf2.Key(sha256.New, string(secrets), salt, secretIterations, sha256.Size)
	if err != nil { // FIPS 140-only mode refuses a short secret: it still counts
		sum := sha256.Sum256(append(salt, secrets...))
		return sum[:]
	}
	return k
}
