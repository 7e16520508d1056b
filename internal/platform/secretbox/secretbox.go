// Package secretbox encrypts the few secrets statementd must read back, such as webhook signing
// secrets, with one service-wide key that never enters the database: AES-256-GCM with a random
// nonce, so that a copy of the database alone reveals none of them and a modified value is
// detected rather than used.
//
// The key comes from STATEMENTD_SECRET_KEY (base64 of 32 bytes) or, when that is not set, from
// the file secret.key in the data dir, which LoadKey creates on first use. Every statementd
// process of a deployment (serve and admin alike) must use the same key.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the length of a key in bytes (AES-256).
const KeySize = 32

// KeyFile is the name of the generated key file in the data dir.
const KeyFile = "secret.key"

// ErrOpen is returned by Open when a sealed value was altered, truncated, or sealed with another
// key. GCM cannot tell these apart, and a caller must not either.
var ErrOpen = errors.New("secretbox: cannot open sealed value: it was altered or sealed with another key")

// Box seals and opens values with one key, and makes keyed digests with a key derived from it.
// It is safe for concurrent use.
type Box struct {
	aead      cipher.AEAD
	digestKey []byte
}

// New returns a Box for a KeySize-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secretbox: key is %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("statementd digest key v1"))
	return &Box{aead: aead, digestKey: mac.Sum(nil)}, nil
}

// Seal encrypts plain and returns the nonce followed by the ciphertext and its tag. Sealing the
// same value twice gives different results.
func (b *Box) Seal(plain []byte) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("secretbox: nonce: %w", err)
	}
	return b.aead.Seal(nonce, nonce, plain, nil), nil
}

// Digest is a keyed digest (HMAC-SHA-256) of data for purpose: it identifies a secret that a
// request carries (a PDF's password, in the request hash of an idempotency record) without
// letting anyone who lacks the key test guesses against it. The key is derived from the Box's,
// never the Box's itself; purposes give unrelated digests of the same data.
func (b *Box) Digest(purpose string, data []byte) []byte {
	mac := hmac.New(sha256.New, b.digestKey)
	mac.Write([]byte(purpose))
	mac.Write([]byte{0})
	mac.Write(data)
	return mac.Sum(nil)
}

// Open decrypts a value made by Seal with the same key. Anything else is ErrOpen.
func (b *Box) Open(sealed []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, ErrOpen
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}

// LoadKey returns the service's secret key. A configured key (the value of
// STATEMENTD_SECRET_KEY: base64 of 32 bytes) wins; otherwise the key is read from dataDir's
// secret.key, which is generated (mode 0600) when it does not exist yet. The file appears
// atomically and only once, so that processes starting together on an empty data dir all end up
// with the same key. Errors never contain key material.
func LoadKey(dataDir, configured string) ([]byte, error) {
	if configured != "" {
		key, err := decodeKey(configured)
		if err != nil {
			return nil, fmt.Errorf("secretbox: the configured secret key (STATEMENTD_SECRET_KEY) %w (generate one with: openssl rand -base64 32)", err)
		}
		return key, nil
	}
	if dataDir == "" {
		return nil, errors.New("secretbox: no secret key configured and no data dir to keep one in")
	}
	path := filepath.Join(dataDir, KeyFile)
	key, err := readKeyFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	// 0755 like pgembed's: the data dir is shared with the embedded cluster, whose server user
	// (when we run as root) must traverse it. The key file itself is 0600.
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("secretbox: create data dir: %w", err)
	}
	if err := createKeyFile(path); err != nil {
		return nil, err
	}
	// Read back what is there now: ours, or the one another process linked first.
	return readKeyFile(path)
}

// decodeKey accepts standard or URL-safe base64, padded or not, since keys are pasted from
// different tools.
func decodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(s); err == nil {
			if len(key) != KeySize {
				return nil, fmt.Errorf("is %d bytes long, it must be base64 of exactly %d bytes", len(key), KeySize)
			}
			return key, nil
		}
	}
	return nil, fmt.Errorf("is not base64, it must be base64 of exactly %d bytes", KeySize)
}

func readKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("secretbox: read key file: %w", err)
	}
	key, err := decodeKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("secretbox: key file %s %w", path, err)
	}
	return key, nil
}

// createKeyFile writes a new random key to a temporary file and hard-links it to path. The link
// fails if path exists, like O_EXCL, but unlike creating path with O_EXCL and then writing, no
// other process can ever read it half-written; losing the race is therefore not an error.
func createKeyFile(path string) (err error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("secretbox: generate key: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+KeyFile+"-*") // mode 0600
	if err != nil {
		return fmt.Errorf("secretbox: write key file: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("secretbox: write key file: %w", err)
	}
	if err := os.Link(f.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return fmt.Errorf("secretbox: write key file: %w", err)
	}
	// The new name must survive a crash too: losing the key loses every secret sealed with it.
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync()
		_ = dir.Close()
	}
	return nil
}
