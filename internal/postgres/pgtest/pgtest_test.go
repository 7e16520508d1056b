package pgtest_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
)

// TestMain uses Run rather than Main so that it can check Run's clean-up.
func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	if dir := pgtest.ClusterDir(); dir != "" {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "pgtest.Run left the cluster folder %s behind (%v)\n", dir, err)
			code = 1
		}
	}
	os.Exit(code)
}

func currentDatabase(t *testing.T, db *sqlx.DB) string {
	t.Helper()
	var name string
	require.NoError(t, db.Get(&name, "SELECT current_database()"))
	return name
}

func countAccounts(t *testing.T, db *sqlx.DB) int {
	t.Helper()
	var n int
	require.NoError(t, db.Get(&n, "SELECT count(*) FROM accounts"))
	return n
}

func TestDatabasesAreSeparateAndMigrated(t *testing.T) {
	t.Parallel()
	db1, url1 := pgtest.NewURL(t)
	db2, url2 := pgtest.NewURL(t)
	require.NotEqual(t, url1, url2)
	require.NotEqual(t, currentDatabase(t, db1), currentDatabase(t, db2))

	for _, db := range []*sqlx.DB{db1, db2} {
		var version int64
		require.NoError(t, db.Get(&version, "SELECT max(version_id) FROM goose_db_version"))
		require.Positive(t, version)
		require.Zero(t, countAccounts(t, db))
	}

	_, err := db1.Exec("INSERT INTO accounts (name) VALUES ('only in db1')")
	require.NoError(t, err)
	require.Equal(t, 1, countAccounts(t, db1))
	require.Zero(t, countAccounts(t, db2), "writes in one test database are invisible in another")

	// The template is fully migrated, so migrating again is a no-op.
	require.NoError(t, postgres.Migrate(t.Context(), db2.DB))
}

// TestParallelTestsAreIsolated runs tests at the same time that each write
// and then expect to see only their own row.
func TestParallelTestsAreIsolated(t *testing.T) {
	t.Parallel()
	var seen sync.Map
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			db := pgtest.New(t)
			name := currentDatabase(t, db)
			_, dup := seen.LoadOrStore(name, true)
			require.False(t, dup, "database %s handed out twice", name)

			_, err := db.Exec("INSERT INTO accounts (name) VALUES ($1)", name)
			require.NoError(t, err)
			require.Equal(t, 1, countAccounts(t, db))
		})
	}
}

func TestDatabaseIsDroppedAfterTheTest(t *testing.T) {
	t.Parallel()
	var name string
	t.Run("user", func(t *testing.T) { // not parallel: Run returns after its cleanup
		name = currentDatabase(t, pgtest.New(t))
	})
	var exists bool
	require.NoError(t, pgtest.New(t).Get(&exists, "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name))
	require.False(t, exists, "database %s of a finished test still exists", name)
}

func TestAccountsSchema(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)

	var a struct {
		ID        string `db:"id"`
		ReconPlan string `db:"recon_plan"`
		ParsePlan string `db:"parse_plan"`
	}
	require.NoError(t, db.Get(&a, "INSERT INTO accounts (name) VALUES ('Acme') RETURNING id, recon_plan, parse_plan"))
	require.Len(t, a.ID, 36)
	require.Equal(t, "standard", a.ReconPlan)
	require.Equal(t, "free", a.ParsePlan)

	tests := []struct {
		name   string
		insert string
	}{
		{"empty name", "INSERT INTO accounts (name) VALUES ('')"},
		{"name over 200 characters", "INSERT INTO accounts (name) VALUES (repeat('x', 201))"},
		{"unknown recon plan", "INSERT INTO accounts (name, recon_plan) VALUES ('a', 'gold')"},
		{"unknown parse plan", "INSERT INTO accounts (name, parse_plan) VALUES ('a', 'enterprise')"},
		{"missing name", "INSERT INTO accounts DEFAULT VALUES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := db.Exec(tt.insert)
			require.Error(t, err)
		})
	}
}

func TestEmbeddedClusterURLHasPassword(t *testing.T) {
	t.Parallel()
	if os.Getenv("DATABASE_URL") != "" {
		t.Skip("DATABASE_URL is set: no embedded cluster")
	}
	_, raw := pgtest.NewURL(t)
	u, err := url.Parse(raw)
	require.NoError(t, err)
	pw, ok := u.User.Password()
	require.True(t, ok, "the embedded cluster requires a password")
	require.NotEmpty(t, pw)
	require.NotContains(t, u.Redacted(), pw)
}
