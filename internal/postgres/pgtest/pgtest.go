// Package pgtest gives every database test its own fresh, migrated
// PostgreSQL database, so that tests can run in parallel without seeing each
// other's rows and without a server set up by hand.
//
// The server is the one at DATABASE_URL when that is set (its role needs
// CREATEDB), otherwise one private cluster per test process started with
// pgembed from the locally installed PostgreSQL binaries. Migrations run once
// per process into a template database; each test then gets a cheap copy of
// it with CREATE DATABASE ... TEMPLATE, which is dropped when the test ends.
//
// A package that uses pgtest must stop the cluster from its TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// or, when TestMain has its own clean-up to do after the tests, with Run:
//
//	func TestMain(m *testing.M) {
//		code := pgtest.Run(m)
//		cleanUp()
//		os.Exit(code)
//	}
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/platform/pgembed"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/migrations"
)

// templateLockKey is the pg_advisory_lock key that serialises template
// creation between test processes sharing one DATABASE_URL server (go test
// runs packages in parallel). Arbitrary, but fixed: "pgtest" in ASCII.
const templateLockKey int64 = 0x706774657374

// setupTimeout bounds starting the cluster and building the template.
const setupTimeout = 3 * time.Minute

var (
	// runCalled is set by Run (and so by Main), which stops the cluster.
	runCalled atomic.Bool

	setupOnce sync.Once
	shared    *server
	setupErr  error
)

// server is the PostgreSQL server the tests of this process use.
type server struct {
	base     *url.URL // maintenance database; test URLs swap the path
	admin    *sql.DB  // connection to base, for CREATE and DROP DATABASE
	template string

	cluster *pgembed.Cluster // nil when DATABASE_URL is used
	tmpDir  string           // the cluster's folder, removed by Run
}

// Main runs the tests of a package, then stops the embedded cluster (if one
// was started) and removes its folder, and exits with the tests' status.
// Call it (or Run) from TestMain; New refuses to work without either, because
// the cluster and its temporary folder would otherwise outlive the tests.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit: it runs the tests, stops the embedded
// cluster and removes its folder, and returns the exit code (non-zero when
// the tests failed or the clean-up did), so that TestMain can clean up its
// own things before it calls os.Exit with it.
func Run(m *testing.M) int {
	runCalled.Store(true)
	code := m.Run()
	if err := shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// New returns a fresh, migrated database for this test, dropped when the test ends.
func New(t testing.TB) *sqlx.DB {
	t.Helper()
	db, _ := NewURL(t)
	return db
}

// NewURL is New that also returns the database's connection URL, for code
// under test that opens its own connections (such as statementd's start-up).
func NewURL(t testing.TB) (db *sqlx.DB, url string) {
	t.Helper()
	if !runCalled.Load() {
		t.Fatal("pgtest: this package has no TestMain calling pgtest.Main or pgtest.Run; add: func TestMain(m *testing.M) { pgtest.Main(m) }")
	}
	setupOnce.Do(func() { shared, setupErr = setup() })
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	s := shared

	name := databaseName(t.Name())
	ctx := t.Context()
	create := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " TEMPLATE " + pgx.Identifier{s.template}.Sanitize()
	if _, err := s.admin.ExecContext(ctx, create); err != nil {
		t.Fatalf("pgtest: create test database: %v", err)
	}
	url = s.urlFor(name)
	db, err := postgres.Open(ctx, url)
	if err != nil {
		s.drop(name)
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		_ = db.Close()
		if err := s.drop(name); err != nil {
			t.Errorf("pgtest: drop test database: %v", err)
		}
	})
	return db, url
}

// databaseName makes a unique database name that still shows which test
// created it, for whoever inspects a shared server.
func databaseName(testName string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(testName) {
		if b.Len() >= 40 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	random := make([]byte, 6)
	_, _ = rand.Read(random) // never fails on Linux
	return "test_" + b.String() + "_" + hex.EncodeToString(random)
}

func (s *server) urlFor(database string) string {
	u := *s.base
	u.Path = "/" + database
	u.RawPath = ""
	return u.String()
}

// drop removes a test database. FORCE (PostgreSQL 13+) ends connections a
// test leaked, so one sloppy test cannot break the next.
func (s *server) drop(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}

// setup connects to DATABASE_URL or starts the embedded cluster, and makes
// sure the template database exists.
func setup() (_ *server, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	s := &server{}
	defer func() {
		if err != nil {
			_ = s.close()
		}
	}()

	if raw := os.Getenv("DATABASE_URL"); raw != "" {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			return nil, errors.New("pgtest: DATABASE_URL must be a postgres://user@host:port/database URL (or unset, to use an embedded cluster)")
		}
		s.base = u
	} else {
		if err := s.startCluster(ctx); err != nil {
			return nil, err
		}
	}

	s.admin, err = sql.Open("pgx", s.base.String())
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	var canCreate bool
	err = s.admin.QueryRowContext(ctx,
		"SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&canCreate)
	if err != nil {
		return nil, fmt.Errorf("pgtest: connect to %s: %w", s.base.Redacted(), err)
	}
	if !canCreate {
		return nil, fmt.Errorf("pgtest: the role of DATABASE_URL (%s) cannot create databases: grant it CREATEDB, or unset DATABASE_URL to use an embedded cluster",
			s.base.Redacted())
	}
	if err := s.ensureTemplate(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// startCluster starts the process's private cluster in a temporary folder.
func (s *server) startCluster(ctx context.Context) error {
	dir, err := os.MkdirTemp(clusterParent(), "pgtest-")
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	s.tmpDir = dir
	// MkdirTemp makes it 0700; when we are root the cluster runs as the
	// postgres user, which must be able to traverse it (pgembed creates
	// and hands over the folders inside).
	if err := os.Chmod(dir, 0o711); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	s.cluster, err = pgembed.Start(ctx, pgembed.Options{
		Dir:  dir,
		Fast: true,
		// The start-up line is noise in test output; failures come back as errors.
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return fmt.Errorf("pgtest: no DATABASE_URL set and the embedded PostgreSQL cluster did not start: %w", err)
	}
	s.base, err = url.Parse(s.cluster.URL("postgres"))
	return err
}

// shmMinFree is the free space /dev/shm needs before the test cluster goes
// there: the cluster with its WAL and a few copies of the template takes
// a few hundred MB, and Docker's default /dev/shm is only 64 MB.
const shmMinFree = 2 << 30

// clusterParent picks the folder for the test cluster: /dev/shm when it is a
// roomy tmpfs, because copying the template on disk takes ~200 ms per test
// even with fsync off while in memory it takes ~25 ms; else os.TempDir().
func clusterParent() string {
	const shm = "/dev/shm"
	var st syscall.Statfs_t
	if err := syscall.Statfs(shm, &st); err != nil || uint64(st.Bavail)*uint64(st.Bsize) < shmMinFree {
		return os.TempDir()
	}
	if syscall.Access(shm, 0o3) != nil { // W_OK|X_OK
		return os.TempDir()
	}
	return shm
}

// ensureTemplate creates the migrated template database, named after a hash
// of the migration files so that a changed migration gets a new template,
// unless a process sharing the server has already made it.
func (s *server) ensureTemplate(ctx context.Context) error {
	s.template = "tmpl_" + migrationsHash()

	conn, err := s.admin.Conn(ctx)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return fmt.Errorf("pgtest: lock template creation: %w", err)
	}
	defer func() {
		// The lock belongs to the session, and conn.Close returns the session
		// to the pool rather than ending it, so release the lock explicitly.
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", templateLockKey)
	}()

	var exists bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", s.template).Scan(&exists); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if exists {
		return nil
	}

	// Build under another name and rename at the end, so that a process
	// killed mid-migration never leaves a half-migrated template behind.
	wip := s.template + "_wip"
	for _, stmt := range []string{
		"DROP DATABASE IF EXISTS " + pgx.Identifier{wip}.Sanitize() + " WITH (FORCE)",
		"CREATE DATABASE " + pgx.Identifier{wip}.Sanitize(),
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("pgtest: template database: %w", err)
		}
	}
	db, err := postgres.Open(ctx, s.urlFor(wip))
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	err = postgres.Migrate(ctx, db.DB)
	// CREATE DATABASE ... TEMPLATE refuses a template with open connections.
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("pgtest: migrate template database: %w", err)
	}
	rename := "ALTER DATABASE " + pgx.Identifier{wip}.Sanitize() + " RENAME TO " + pgx.Identifier{s.template}.Sanitize()
	if _, err := conn.ExecContext(ctx, rename); err != nil {
		return fmt.Errorf("pgtest: template database: %w", err)
	}
	return nil
}

// migrationsHash identifies the migration files' names and contents.
func migrationsHash() string {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		panic(err) // an embed.FS cannot fail to read
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// shutdown stops what setup started.
func shutdown() error {
	if shared == nil {
		return nil
	}
	return shared.close()
}

func (s *server) close() error {
	var errs []error
	if s.admin != nil {
		errs = append(errs, s.admin.Close())
	}
	if s.cluster != nil {
		if err := s.cluster.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("pgtest: stop embedded PostgreSQL: %w", err))
		}
	}
	if s.tmpDir != "" {
		errs = append(errs, os.RemoveAll(s.tmpDir))
	}
	return errors.Join(errs...)
}
