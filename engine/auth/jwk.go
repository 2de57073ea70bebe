package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// Bounds on the RSA keys of a key set.
const (
	// minRSABits is the shortest RSA modulus accepted: shorter ones can be
	// factored, or soon will be.
	minRSABits = 2048
	// maxRSABits is the longest, so that a key set cannot make each check
	// of a signature arbitrarily slow.
	maxRSABits = 16384
)

// jwk is a public key of a JSON Web Key Set (RFC 7517), as read from it.
type jwk struct {
	kid string
	kty string           // "RSA", "EC" or "OKP"
	crv string           // "P-256", "P-384", "P-521" or "Ed25519"; "" for RSA
	alg string           // the algorithm the key states; "" when none
	use string           // the use the key states; "" when none
	key crypto.PublicKey // *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey
}

// signs tells whether the key may check signatures: it states no use, or
// "sig", and no algorithm other than a signing one.
func (k *jwk) signs() bool {
	return (k.use == "" || k.use == "sig") && (k.alg == "" || slices.Contains(signingAlgorithms, k.alg))
}

// fits tells whether the key is of the type alg needs (an RSA key for
// RS256, a P-256 key for ES256…) and, if it states an algorithm, whether
// that is alg.
func (k *jwk) fits(alg string) bool {
	if k.alg != "" && k.alg != alg {
		return false
	}
	switch alg {
	case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
		return k.kty == "RSA"
	case "ES256":
		return k.kty == "EC" && k.crv == "P-256"
	case "ES384":
		return k.kty == "EC" && k.crv == "P-384"
	case "ES512":
		return k.kty == "EC" && k.crv == "P-521"
	case "EdDSA":
		return k.kty == "OKP" && k.crv == "Ed25519"
	}
	return false
}

// jwkSet is a JSON Web Key Set, as read: the public keys that could be
// read, by kid, and why the others were left out.
type jwkSet struct {
	// byKID holds the keys that have a kid, signing keys or not: a token
	// naming a key meant for encryption is told so. Several keys may share
	// a kid when their types differ.
	byKID map[string][]*jwk
	// signing is how many signing keys the set holds, with a kid or
	// without; only is the one when there is exactly one, the key a token
	// without a kid is checked with.
	signing int
	only    *jwk
	// skipped says why each key left out was, by kid ("#3" for the
	// fourth key when it has none).
	skipped map[string]string
}

// find returns the keys named kid; for "", the only signing key, if the
// set holds exactly one.
func (s *jwkSet) find(kid string) []*jwk {
	if s == nil {
		return nil
	}
	if kid == "" {
		if s.only != nil {
			return []*jwk{s.only}
		}
		return nil
	}
	return s.byKID[kid]
}

// unusable says, worded for people, why the set, fetched from url, holds
// no key that can check a signature; it returns nil when it holds one.
func (s *jwkSet) unusable(url string) error {
	if s.signing > 0 {
		return nil
	}
	if len(s.skipped) == 0 {
		return fmt.Errorf("the JWKS at %s holds no key that can check a signature", url)
	}
	notes := make([]string, 0, len(s.skipped))
	for kid, why := range s.skipped {
		notes = append(notes, fmt.Sprintf("key %q: %s", kid, why))
	}
	slices.Sort(notes)
	return fmt.Errorf("the JWKS at %s holds no key that can check a signature (%s)", url, strings.Join(notes, "; "))
}

// missing says, worded for people, why the set, fetched from url, has no
// key for a token naming kid (or none: "").
func (s *jwkSet) missing(url, kid string) error {
	if err := s.unusable(url); err != nil {
		return err
	}
	if why, ok := s.skipped[kid]; ok && kid != "" {
		return fmt.Errorf("the JWKS at %s holds a key %q that cannot be used: %s", url, kid, why)
	}
	if kid == "" {
		return fmt.Errorf("the token names no key (kid) and the JWKS holds %d", s.signing)
	}
	return fmt.Errorf("the JWKS at %s holds no key %q", url, kid)
}

// parseJWKS reads a JSON Web Key Set: {"keys": [...]}, or, as some servers
// publish, a single key. Keys that cannot serve to check a signature —
// symmetric ones (kty oct), those of a type or curve not supported, or
// malformed ones — are left out, and noted; a set may hold no usable key
// (see [jwkSet.unusable]), so that removing every key revokes them all.
// It fails only when data is not a key set at all.
func parseJWKS(data []byte) (*jwkSet, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
		Kty  string            `json:"kty"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		var terr *json.UnmarshalTypeError
		if errors.As(err, &terr) {
			return nil, errors.New("it is not a JSON object with a list of keys")
		}
		return nil, err
	}
	if doc.Keys == nil {
		if doc.Kty == "" {
			return nil, errors.New("it has no keys member")
		}
		doc.Keys = []json.RawMessage{data}
	}
	set := &jwkSet{byKID: map[string][]*jwk{}, skipped: map[string]string{}}
	for i, raw := range doc.Keys {
		k, err := parseJWK(raw)
		if err != nil {
			name := fmt.Sprintf("#%d", i)
			if k != nil && k.kid != "" {
				name = k.kid
			}
			set.skipped[name] = err.Error()
			continue
		}
		if k.kid != "" {
			set.byKID[k.kid] = append(set.byKID[k.kid], k)
		}
		if k.signs() {
			set.signing++
			set.only = k
		}
	}
	if set.signing != 1 {
		set.only = nil
	}
	return set, nil
}

// parseJWK reads one public key. When it cannot be used, it says why, and
// returns what it read of the key (its kid) if it could read that.
func parseJWK(data []byte) (*jwk, error) {
	var m struct {
		Kty string `json:"kty"`
		Kid string `json:"kid"`
		Use string `json:"use"`
		Alg string `json:"alg"`
		Crv string `json:"crv"`
		N   string `json:"n"`
		E   string `json:"e"`
		X   string `json:"x"`
		Y   string `json:"y"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		var terr *json.UnmarshalTypeError
		if errors.As(err, &terr) && terr.Field != "" {
			// The other members were read: the kid, for the note.
			return &jwk{kid: m.Kid}, fmt.Errorf("its %s is not a string", terr.Field)
		}
		return nil, errors.New("it is not a JSON object")
	}
	k := &jwk{kid: m.Kid, kty: m.Kty, crv: m.Crv, alg: m.Alg, use: m.Use}
	var err error
	switch m.Kty {
	case "RSA":
		k.crv = ""
		k.key, err = rsaKey(m.N, m.E)
	case "EC":
		k.key, err = ecKey(m.Crv, m.X, m.Y)
	case "OKP":
		k.key, err = okpKey(m.Crv, m.X)
	case "oct":
		err = errors.New("symmetric keys (kty oct) are never used: a public key set must not hold a shared secret")
	case "":
		err = errors.New("it has no key type (kty)")
	default:
		err = fmt.Errorf("its key type (kty) %q is not supported", m.Kty)
	}
	if err != nil {
		return &jwk{kid: m.Kid}, err
	}
	return k, nil
}

// member decodes the base64url member name of a key (padding, which RFC
// 7518 forbids, is tolerated).
func member(name, value string) ([]byte, error) {
	if value == "" {
		return nil, fmt.Errorf("it has no %s", name)
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(value, "="))
	if err != nil {
		return nil, fmt.Errorf("its %s is not base64url-encoded", name)
	}
	return b, nil
}

// rsaKey reads an RSA public key.
func rsaKey(n64, e64 string) (*rsa.PublicKey, error) {
	nb, err := member("n", n64)
	if err != nil {
		return nil, err
	}
	eb, err := member("e", e64)
	if err != nil {
		return nil, err
	}
	n := new(big.Int).SetBytes(nb)
	switch bits := n.BitLen(); {
	case bits < minRSABits:
		return nil, fmt.Errorf("the RSA key is %d bits long, fewer than %d", bits, minRSABits)
	case bits > maxRSABits:
		return nil, fmt.Errorf("the RSA key is %d bits long, more than %d", bits, maxRSABits)
	case n.Bit(0) == 0:
		return nil, errors.New("the RSA modulus (n) is even")
	}
	e := new(big.Int).SetBytes(eb)
	if !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 || e.Bit(0) == 0 {
		return nil, errors.New("the RSA exponent (e) is not an odd number between 3 and 2³¹-1")
	}
	return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
}

// ecKey reads an elliptic-curve public key, and checks that its point is on
// its curve.
func ecKey(crv, x64, y64 string) (*ecdsa.PublicKey, error) {
	var curve elliptic.Curve
	switch crv {
	case "P-256":
		curve = elliptic.P256()
	case "P-384":
		curve = elliptic.P384()
	case "P-521":
		curve = elliptic.P521()
	case "":
		return nil, errors.New("it has no curve (crv)")
	default:
		return nil, fmt.Errorf("its curve (crv) %q is not supported", crv)
	}
	x, err := member("x", x64)
	if err != nil {
		return nil, err
	}
	y, err := member("y", y64)
	if err != nil {
		return nil, err
	}
	size := (curve.Params().BitSize + 7) / 8
	if len(x) > size || len(y) > size {
		return nil, fmt.Errorf("its coordinates are longer than the %d bytes of %s", size, crv)
	}
	// The uncompressed form: 4, then x and y, each left-padded to size.
	point := make([]byte, 1+2*size)
	point[0] = 4
	copy(point[1+size-len(x):], x)
	copy(point[1+2*size-len(y):], y)
	key, err := ecdsa.ParseUncompressedPublicKey(curve, point)
	if err != nil {
		return nil, fmt.Errorf("its point is not on the curve %s", crv)
	}
	return key, nil
}

// okpKey reads an Ed25519 public key.
func okpKey(crv, x64 string) (ed25519.PublicKey, error) {
	switch crv {
	case "Ed25519":
	case "":
		return nil, errors.New("it has no curve (crv)")
	default:
		return nil, fmt.Errorf("its curve (crv) %q is not supported", crv)
	}
	x, err := member("x", x64)
	if err != nil {
		return nil, err
	}
	if len(x) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("its x is %d bytes long, not %d", len(x), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(x), nil
}
