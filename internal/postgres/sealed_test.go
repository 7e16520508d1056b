package postgres_test

import (
	"bytes"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/platform/secretbox"
)

// TestParseJobStoreSealsAProtectedFile: the decrypted content of a protected file (a Sealed
// upload) is stored with every chunk sealed, so no chunk holds its content in the clear, and is
// read back whole by a store with the same key; a store without a key neither stores nor reads
// one.
func TestParseJobStoreSealsAProtectedFile(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	key := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(key)
	box, err := secretbox.New(key)
	require.NoError(t, err)

	// Three chunks and a bit, each with a marker that must not be stored as it is.
	content := bytes.Repeat([]byte("PLAINTEXT-MARKER "), (3*256<<10)/17+100)
	f := fileOf("protected.pdf", content)
	f.Sealed = true
	j := b.newJob(b.account, b.now)
	require.ErrorContains(t, b.store.Create(ctx, j, f, b.charge(100), idempotency.Key{}), "no Sealer",
		"a store without a key refuses a file that must be sealed")

	b.store.Sealer = box
	require.NoError(t, b.store.Create(ctx, j, f, b.charge(100), idempotency.Key{}))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM uploads WHERE sealed AND size = $1`, len(content)))
	require.Equal(t, 4, b.count(t, `SELECT count(*) FROM upload_chunks c JOIN uploads u ON u.id = c.upload_id WHERE u.sealed`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM upload_chunks WHERE position('PLAINTEXT-MARKER'::bytea in data) > 0`),
		"no chunk holds the content in the clear")

	got, err := b.store.ReadFile(ctx, j.ID)
	require.NoError(t, err)
	require.Equal(t, content, got, "the content is read back whole")

	b.store.Sealer = nil
	_, err = b.store.ReadFile(ctx, j.ID)
	require.ErrorContains(t, err, "no Sealer", "a store without the key cannot read it")
	other, err := secretbox.New(bytes.Repeat([]byte{7}, secretbox.KeySize))
	require.NoError(t, err)
	b.store.Sealer = other
	_, err = b.store.ReadFile(ctx, j.ID)
	require.ErrorIs(t, err, secretbox.ErrOpen, "nor can one with another key")
}
