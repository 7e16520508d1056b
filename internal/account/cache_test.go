package account

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCredentialCacheBounds(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	hash := func(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }
	for _, tc := range []struct {
		name string
		// fill puts maxCachedCredentials entries; the ones below expiredBelow have expired by
		// the time one more is put.
		expiredBelow int
		wantLen      int
		wantKept     bool // whether entry maxCachedCredentials-1 survives
	}{
		{name: "expired entries make room", expiredBelow: 10, wantLen: maxCachedCredentials - 10 + 1, wantKept: true},
		{name: "with nothing expired the cache starts again", expiredBelow: 0, wantLen: 1, wantKept: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c credentialCache[int]
			for i := range maxCachedCredentials {
				ttl := time.Hour
				if i < tc.expiredBelow {
					ttl = time.Second
				}
				c.put(hash(i), i, t0, ttl)
			}
			now := t0.Add(time.Minute)
			c.put(hash(-1), -1, now, time.Hour)
			require.Len(t, c.entries, tc.wantLen)
			v, ok := c.get(hash(-1), now)
			require.True(t, ok)
			require.Equal(t, -1, v)
			_, ok = c.get(hash(maxCachedCredentials-1), now)
			require.Equal(t, tc.wantKept, ok)
		})
	}

	var c credentialCache[string]
	c.put([]byte("a"), "x", t0, 0)
	_, ok := c.get([]byte("a"), t0)
	require.False(t, ok, "a TTL of zero remembers nothing")
	c.put([]byte("a"), "x", t0, time.Second)
	_, ok = c.get([]byte("a"), t0.Add(time.Second))
	require.False(t, ok, "an entry is gone at its expiry")
}
