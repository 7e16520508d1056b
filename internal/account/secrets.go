package account

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// Credential prefixes. A prefix says what a credential is when it turns up in a log or a
// support ticket, and lets secret scanners find leaked ones.
const (
	ClientIDPrefix      = "cli_"
	ClientSecretPrefix  = "cs_"
	AccessTokenPrefix   = "sat_"
	APIKeyPrefix        = "smk_live_"
	SigningSecretPrefix = "whsec_"
	// apiKeyDisplayLen is how much of a key is kept in clear for display: the prefix and four
	// random characters.
	apiKeyDisplayLen = len(APIKeyPrefix) + 4
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomBase62 returns n random base62 characters from crypto/rand, without modulo bias.
func randomBase62(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, 64)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			panic("crypto/rand failed: " + err.Error()) // the platform has no randomness: nothing is safe
		}
		for _, b := range buf {
			// 248 = 4*62: bytes at or above it would favour the first characters.
			if b < 248 && len(out) < n {
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out)
}

// secretChars is the number of base62 characters of every secret: 43 carry 256 bits.
const secretChars = 43

// NewClientID returns a new public client id.
func NewClientID() string { return ClientIDPrefix + randomBase62(24) }

// NewClientSecret returns a new client secret and its hash.
func NewClientSecret() (secret string, hash []byte) {
	secret = ClientSecretPrefix + randomBase62(secretChars)
	return secret, Hash(secret)
}

// NewAccessToken returns a new bearer token and its hash.
func NewAccessToken() (token string, hash []byte) {
	token = AccessTokenPrefix + randomBase62(secretChars)
	return token, Hash(token)
}

// NewAPIKey returns a new API key, its hash and its display prefix.
func NewAPIKey() (key string, hash []byte, prefix string) {
	key = APIKeyPrefix + randomBase62(secretChars)
	return key, Hash(key), key[:apiKeyDisplayLen]
}

// NewSigningSecret returns a new webhook signing secret: "whsec_" and base64 of 32 random
// bytes, the Standard Webhooks form, so stock verifiers accept it.
func NewSigningSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return SigningSecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Hash returns the SHA-256 of a credential. Credentials are 256-bit random values, so a fast
// hash is as safe as a slow one and lets a lookup by hash find them.
func Hash(credential string) []byte {
	h := sha256.Sum256([]byte(credential))
	return h[:]
}

// Matches reports whether credential hashes to hash, in constant time.
func Matches(credential string, hash []byte) bool {
	return subtle.ConstantTimeCompare(Hash(credential), hash) == 1
}

// LooksLikeAPIKey reports whether s has the form of an API key, so that a malformed one can be
// refused without a database lookup.
func LooksLikeAPIKey(s string) bool { return hasFormat(s, APIKeyPrefix) }

// LooksLikeClientID reports whether s has the form of a client id ("cli_" and base62
// characters, at most 128 in all), so that one no client can have (text PostgreSQL cannot even
// hold, such as a NUL byte) is refused without a database lookup.
func LooksLikeClientID(s string) bool {
	rest, ok := strings.CutPrefix(s, ClientIDPrefix)
	if !ok || rest == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62, rest[i]) < 0 {
			return false
		}
	}
	return true
}

// LooksLikeAccessToken reports whether s has the form of an access token.
func LooksLikeAccessToken(s string) bool { return hasFormat(s, AccessTokenPrefix) }

func hasFormat(s, prefix string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || len(rest) < 32 || len(rest) > 128 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62, rest[i]) < 0 {
			return false
		}
	}
	return true
}
