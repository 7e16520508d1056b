package secretbox_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/platform/secretbox"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	key := make([]byte, secretbox.KeySize)
	_, err := rand.Read(key)
	require.NoError(t, err)
	return key
}

func newBox(t *testing.T) *secretbox.Box {
	t.Helper()
	box, err := secretbox.New(newKey(t))
	require.NoError(t, err)
	return box
}

func TestSealOpenRoundTrip(t *testing.T) {
	t.Parallel()
	box := newBox(t)
	for _, plain := range [][]byte{nil, []byte("x"), []byte("whsec_" + strings.Repeat("A", 44)), bytes.Repeat([]byte{0}, 4096)} {
		sealed, err := box.Seal(plain)
		require.NoError(t, err)
		if len(plain) >= 8 {
			require.False(t, bytes.Contains(sealed, plain), "the sealed value does not contain the plain text")
		}
		opened, err := box.Open(sealed)
		require.NoError(t, err)
		require.Equal(t, string(plain), string(opened))
	}
}

func TestSealUsesAFreshNonceEachTime(t *testing.T) {
	t.Parallel()
	box := newBox(t)
	a, err := box.Seal([]byte("same"))
	require.NoError(t, err)
	b, err := box.Seal([]byte("same"))
	require.NoError(t, err)
	require.NotEqual(t, a, b)
}

func TestOpenDetectsTampering(t *testing.T) {
	t.Parallel()
	box := newBox(t)
	sealed, err := box.Seal([]byte("whsec_secret"))
	require.NoError(t, err)
	for i := range sealed {
		changed := bytes.Clone(sealed)
		changed[i] ^= 0x01
		_, err := box.Open(changed)
		require.ErrorIs(t, err, secretbox.ErrOpen, "flipped bit in byte %d", i)
	}
	for _, short := range [][]byte{nil, sealed[:12], sealed[:len(sealed)-1]} {
		_, err := box.Open(short)
		require.ErrorIs(t, err, secretbox.ErrOpen, "truncated to %d bytes", len(short))
	}
}

func TestOpenWithAnotherKeyFails(t *testing.T) {
	t.Parallel()
	sealed, err := newBox(t).Seal([]byte("whsec_secret"))
	require.NoError(t, err)
	_, err = newBox(t).Open(sealed)
	require.ErrorIs(t, err, secretbox.ErrOpen)
}

func TestNewRefusesKeysOfTheWrongSize(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 16, 24, 31, 33} {
		_, err := secretbox.New(make([]byte, n))
		require.Error(t, err, "%d bytes", n)
	}
}

func TestLoadKeyCreatesTheKeyFileOnceWithMode0600(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data") // does not exist yet
	first, err := secretbox.LoadKey(dir, "")
	require.NoError(t, err)
	require.Len(t, first, secretbox.KeySize)

	info, err := os.Stat(filepath.Join(dir, secretbox.KeyFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	again, err := secretbox.LoadKey(dir, "")
	require.NoError(t, err)
	require.Equal(t, first, again, "the second load reads the same key")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
}

func TestConcurrentLoadKeyOnAnEmptyDirAgree(t *testing.T) {
	t.Parallel()
	for range 20 {
		dir := t.TempDir()
		const n = 16
		keys := make([][]byte, n)
		errs := make([]error, n)
		var start, wg sync.WaitGroup
		start.Add(1)
		for i := range n {
			wg.Go(func() {
				start.Wait()
				keys[i], errs[i] = secretbox.LoadKey(dir, "")
			})
		}
		start.Done()
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, keys[0], keys[i], "every loader gets the same key")
		}
	}
}

func TestConfiguredKeyWins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fromFile, err := secretbox.LoadKey(dir, "")
	require.NoError(t, err)

	want := newKey(t)
	for name, encoded := range map[string]string{
		"standard base64":            base64.StdEncoding.EncodeToString(want),
		"unpadded base64":            base64.RawStdEncoding.EncodeToString(want),
		"URL-safe base64":            base64.URLEncoding.EncodeToString(want),
		"with a trailing line break": base64.StdEncoding.EncodeToString(want) + "\n",
	} {
		got, err := secretbox.LoadKey(dir, encoded)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
		require.NotEqual(t, fromFile, got, name)
	}

	// A configured key never creates a key file.
	empty := t.TempDir()
	_, err = secretbox.LoadKey(empty, base64.StdEncoding.EncodeToString(want))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(empty, secretbox.KeyFile))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestBadConfiguredKeyIsAClearError(t *testing.T) {
	t.Parallel()
	for name, configured := range map[string]string{
		"not base64":    "this is not base64!",
		"too short":     base64.StdEncoding.EncodeToString(make([]byte, 16)),
		"too long":      base64.StdEncoding.EncodeToString(make([]byte, 64)),
		"a hex key":     strings.Repeat("ab", 32) + "zz",
		"only a prefix": "whsec_",
	} {
		_, err := secretbox.LoadKey(t.TempDir(), configured)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "STATEMENTD_SECRET_KEY", name)
		require.Contains(t, err.Error(), "32 bytes", name)
		require.NotContains(t, err.Error(), configured, "%s: the error does not repeat the key", name)
	}
}

func TestCorruptKeyFileIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, secretbox.KeyFile), []byte("short\n"), 0o600))
	_, err := secretbox.LoadKey(dir, "")
	require.ErrorContains(t, err, secretbox.KeyFile)
}

func TestLoadKeyNeedsADataDirWithoutAConfiguredKey(t *testing.T) {
	t.Parallel()
	_, err := secretbox.LoadKey("", "")
	require.Error(t, err)
}

func TestDigestIsKeyedAndPurposeBound(t *testing.T) {
	t.Parallel()
	a, b := newBox(t), newBox(t)
	d := a.Digest("password", []byte("01011985"))
	require.Len(t, d, 32)
	require.Equal(t, d, a.Digest("password", []byte("01011985")), "the same key, purpose and data give the same digest")
	require.NotEqual(t, d, b.Digest("password", []byte("01011985")), "another key gives another digest")
	require.NotEqual(t, d, a.Digest("other", []byte("01011985")), "another purpose gives another digest")
	require.NotEqual(t, d, a.Digest("password", []byte("01011986")))
	require.NotEqual(t, a.Digest("pass", []byte("word")), a.Digest("passw", []byte("ord")), "purpose and data do not run together")
}
