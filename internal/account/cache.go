package account

import (
	"sync"
	"time"
)

// DefaultCredentialCacheTTL is how long a statementd process trusts what the database said of
// an access token or API key before asking again (Service.CacheTTL): a revoked credential is
// refused by every process at most this long after its revocation.
const DefaultCredentialCacheTTL = 5 * time.Second

// maxCachedCredentials bounds a cache's memory (about 200 bytes an entry): past it, expired
// entries are dropped, and if none has expired the cache starts again empty.
const maxCachedCredentials = 100_000

// credentialCache remembers, for ttl from the lookup, what the Store returned for a credential's
// hash: the record, revoked or not. Unknown credentials are never remembered, so guessing
// fills nothing. Safe for concurrent use; the zero value with a ttl of zero remembers nothing.
type credentialCache[V any] struct {
	mu      sync.Mutex
	entries map[string]cachedCredential[V]
}

type cachedCredential[V any] struct {
	value   V
	expires time.Time
}

// get returns the value remembered for hash if it is younger than its ttl at now.
func (c *credentialCache[V]) get(hash []byte, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[string(hash)]
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.value, true
}

// put remembers v for hash until now+ttl; a ttl of zero or less remembers nothing.
func (c *credentialCache[V]) put(hash []byte, v V, now time.Time, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]cachedCredential[V]{}
	}
	if len(c.entries) >= maxCachedCredentials {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= maxCachedCredentials {
			clear(c.entries)
		}
	}
	c.entries[string(hash)] = cachedCredential[V]{value: v, expires: now.Add(ttl)}
}
