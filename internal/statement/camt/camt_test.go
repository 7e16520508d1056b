package camt

import (
	"errors"
	"os"
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	statementtest.SetDecimalJSON()
	os.Exit(m.Run())
}

// parseFinished parses and finishes as the engine does, and checks that Stream reads the same.
func parseFinished(t testing.TB, data []byte) (*statement.Statement, error) {
	t.Helper()
	return statementtest.ParsedAndStreamed(t, data, statement.Options{}, Parse, Stream)
}

func TestCorpusGolden(t *testing.T) {
	t.Parallel()
	statementtest.RunCorpus(t, statementtest.CorpusDir, func(t *testing.T, path string, data []byte) {
		st, err := parseFinished(t, data)
		require.NoError(t, err)
		statementtest.Golden(t, statementtest.GoldenPath(path, ".xml"), st, statementtest.EscapeHTML())
	})
}

// checkConsistent asserts what every successful parse must hold: sections delimit the
// transactions, and each transaction's Raw is an Ntry element.
func checkConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.NotNil(t, st.Transactions)
	statementtest.RequireSections(t, st)
	for _, tx := range st.Transactions {
		require.False(t, tx.Date.IsZero())
		require.Contains(t, tx.Raw, "Ntry")
		require.NotEmpty(t, tx.Pos.Path)
	}
}

func TestCorpusConsistent(t *testing.T) {
	t.Parallel()
	for _, path := range statementtest.CorpusFiles(t, statementtest.CorpusDir) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		st, err := parseFinished(t, data)
		require.NoError(t, err, path)
		checkConsistent(t, st)
	}
}

// mustKind asserts err is a *statement.Error of kind.
func mustKind(t *testing.T, err error, kind error) *statement.Error {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, kind)
	var se *statement.Error
	require.True(t, errors.As(err, &se))
	return se
}
