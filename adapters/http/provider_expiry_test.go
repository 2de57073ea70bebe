package httpaction

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// TestOAuth2ExpiryWithRealProvider checks the lifetime of client
// credentials tokens from the real OpenID Connect provider .ci/run starts
// (see .ci/oidc.sh): the token's expiry is the provider's expires_in; the
// token is reused while it is valid, and fetched anew from the provider
// shortly before it expires. The provider's tokens live five minutes, so
// the test moves the held token's expiry rather than waiting.
func TestOAuth2ExpiryWithRealProvider(t *testing.T) {
	issuer := strings.TrimSuffix(testservice.FromEnv(t, "MCPDECL_TEST_OIDC_URL", "set it to the issuer of zitadel/oidc's example server, which .ci/run starts"), "/")
	s := &tokenSource{api: "api", client: newTokenClient(nil, 5*time.Second)}
	s.config.TokenURL, s.config.ClientID, s.config.ClientSecret = issuer+"/oauth/token", "sid1", "verysecret"
	ctx := context.Background()
	first, err := s.accessToken(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(s.token.Expiry); left < 4*time.Minute || left > 6*time.Minute {
		t.Errorf("the token expires in %s; the provider gives five minutes", left)
	}
	if again, _ := s.accessToken(ctx, ""); again != first {
		t.Error("a valid token was fetched anew")
	}
	s.token.Expiry = time.Now().Add(5 * time.Second) // about to expire
	renewed, err := s.accessToken(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if renewed == first || time.Until(s.token.Expiry) < 4*time.Minute {
		t.Error("a token about to expire was not fetched anew from the provider")
	}
}
