package httpaction

import (
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// assertionType is how a client says it authenticates with a signed JWT
// (RFC 7523, section 2.2): private_key_jwt, in OpenID Connect's words.
const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// assertionLifetime is how long a client assertion is valid: it is made
// for one token request.
const assertionLifetime = 2 * time.Minute

// signer makes the client assertions of a private_key_jwt client: a JWT
// that the client issues about itself for the token endpoint, signed with
// its private key.
type signer struct {
	method jwt.SigningMethod
	key    any    // *rsa.PrivateKey or *ecdsa.PrivateKey
	kid    string // the key's id, when the identity provider needs one
}

// newSigner reads a PEM private key: RSA (signing RS256) or ECDSA on P-256,
// P-384 or P-521 (ES256, ES384, ES512). Its errors never quote the key.
func newSigner(pem []byte, kid string) (*signer, error) {
	if k, err := jwt.ParseRSAPrivateKeyFromPEM(pem); err == nil {
		if k.N.BitLen() < 2048 {
			return nil, fmt.Errorf("the RSA key has %d bits; use 2048 or more", k.N.BitLen())
		}
		return &signer{method: jwt.SigningMethodRS256, key: k, kid: kid}, nil
	}
	k, err := jwt.ParseECPrivateKeyFromPEM(pem)
	if err != nil {
		return nil, errors.New("it is not a PEM-encoded RSA or ECDSA private key (PKCS #1, PKCS #8 or SEC 1)")
	}
	switch k.Curve {
	case elliptic.P256():
		return &signer{method: jwt.SigningMethodES256, key: k, kid: kid}, nil
	case elliptic.P384():
		return &signer{method: jwt.SigningMethodES384, key: k, kid: kid}, nil
	case elliptic.P521():
		return &signer{method: jwt.SigningMethodES512, key: k, kid: kid}, nil
	}
	return nil, errors.New("the ECDSA key is not on P-256, P-384 or P-521")
}

// assertion is a new client assertion of clientID for the token endpoint
// at tokenURL: iss and sub the client, aud the endpoint, a unique jti, and
// an expiry two minutes away.
func (s *signer) assertion(clientID, tokenURL string) (string, error) {
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	now := time.Now()
	t := jwt.NewWithClaims(s.method, jwt.RegisteredClaims{
		Issuer:    clientID,
		Subject:   clientID,
		Audience:  jwt.ClaimStrings{tokenURL},
		ID:        hex.EncodeToString(jti),
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(assertionLifetime)),
	})
	if s.kid != "" {
		t.Header["kid"] = s.kid
	}
	return t.SignedString(s.key)
}

// withAssertion returns config authenticating with a new client assertion
// instead of a secret, when the client has a private key.
func (s *tokenSource) withAssertion(config clientcredentials.Config) (clientcredentials.Config, error) {
	if s.signer == nil {
		return config, nil
	}
	a, err := s.signer.assertion(config.ClientID, config.TokenURL)
	if err != nil {
		return config, fmt.Errorf("could not sign the client assertion of http_api %q: %w", s.api, err)
	}
	params := url.Values{}
	for k, v := range config.EndpointParams {
		params[k] = v
	}
	params.Set("client_assertion_type", assertionType)
	params.Set("client_assertion", a)
	config.EndpointParams = params
	config.ClientSecret = ""
	config.AuthStyle = oauth2.AuthStyleInParams // client_id in the form, and no secret
	return config, nil
}
