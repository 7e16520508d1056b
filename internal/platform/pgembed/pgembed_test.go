package pgembed

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/stretchr/testify/require"
)

// dataDir returns a fresh folder the server's user can reach. t.TempDir is
// 0700 and owned by us, which the postgres user cannot traverse when the
// tests run as root.
func dataDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	require.NoError(t, os.Chmod(filepath.Dir(d), 0o711))
	require.NoError(t, os.Chmod(d, 0o711))
	return d
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// start starts a cluster and stops it when the test ends.
func start(t *testing.T, opts Options) *Cluster {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	began := time.Now()
	c, err := Start(context.Background(), opts)
	require.NoError(t, err)
	t.Logf("cluster in %s started in %v", opts.Dir, time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

func open(t *testing.T, c *Cluster) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", c.URL("postgres"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func setting(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	require.NoError(t, db.QueryRow("SELECT current_setting($1)", name).Scan(&v))
	return v
}

func TestStartQueryStop(t *testing.T) {
	t.Parallel()
	port, err := freePort()
	require.NoError(t, err)
	tests := []struct {
		name      string
		opts      func(t *testing.T) Options
		wantFsync string
		// wantSockUnder is the folder the socket directory must be in.
		wantSockUnder func(dir string) string
	}{
		{
			name:          "defaults",
			opts:          func(t *testing.T) Options { return Options{Dir: dataDir(t)} },
			wantFsync:     "on",
			wantSockUnder: func(dir string) string { return dir },
		},
		{
			name:          "fast with fixed port",
			opts:          func(t *testing.T) Options { return Options{Dir: dataDir(t), Fast: true, Port: port} },
			wantFsync:     "off",
			wantSockUnder: func(dir string) string { return dir },
		},
		{
			name: "long dir puts sockets in temp",
			opts: func(t *testing.T) Options {
				return Options{Dir: filepath.Join(dataDir(t), strings.Repeat("d", 100)), Fast: true}
			},
			wantFsync:     "off",
			wantSockUnder: func(string) string { return os.TempDir() },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts(t)
			c := start(t, opts)
			if opts.Port != 0 {
				require.Equal(t, opts.Port, c.port)
			}
			require.Equal(t, fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/app?sslmode=disable", c.password, c.port), c.URL("app"))

			db := open(t, c)
			var one int
			require.NoError(t, db.QueryRow("SELECT 1").Scan(&one))
			require.Equal(t, tt.wantFsync, setting(t, db, "fsync"))
			require.Equal(t, "UTF8", setting(t, db, "server_encoding"))
			require.Equal(t, "C", setting(t, db, "lc_collate"))
			require.Equal(t, "127.0.0.1", setting(t, db, "listen_addresses"))
			require.Equal(t, c.sockDir, setting(t, db, "unix_socket_directories"))
			require.Equal(t, filepath.Clean(tt.wantSockUnder(opts.Dir)), filepath.Dir(c.sockDir))
			require.FileExists(t, filepath.Join(opts.Dir, "postgres.log"))
			require.NoError(t, db.Close())

			tmpSock := c.tmpSockDir
			require.NoError(t, c.Stop())
			require.NoError(t, c.Stop(), "Stop is idempotent")
			require.NoFileExists(t, filepath.Join(c.dataDir, "postmaster.pid"), "fast shutdown removes the pid file")
			if tmpSock {
				require.NoDirExists(t, c.sockDir, "the temporary socket directory is removed")
			}
		})
	}
}

func TestRestartKeepsData(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	c := start(t, Options{Dir: dir, Fast: true})
	db := open(t, c)
	_, err := db.Exec("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')")
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.NoError(t, c.Stop())

	c2 := start(t, Options{Dir: dir, Fast: true})
	require.Equal(t, c.password, c2.password, "the password is read back from the data folder")
	var v string
	require.NoError(t, open(t, c2).QueryRow("SELECT v FROM kept").Scan(&v))
	require.Equal(t, "still here", v)
}

// connectErr tries one query on dsn and returns its error.
func connectErr(t *testing.T, dsn string) error {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	defer db.Close()
	var one int
	return db.QueryRow("SELECT 1").Scan(&one)
}

// TestPasswordIsRequired is not parallel because it clears the libpq password
// variables, so that the driver cannot find a password elsewhere.
func TestPasswordIsRequired(t *testing.T) {
	t.Setenv("PGPASSWORD", "")
	require.NoError(t, os.Unsetenv("PGPASSWORD"))
	t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "none"))

	dir := dataDir(t)
	c := start(t, Options{Dir: dir, Fast: true})

	pwPath := filepath.Join(dir, "superuser.password")
	fi, err := os.Stat(pwPath)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.Equal(t, uint32(os.Geteuid()), fi.Sys().(*syscall.Stat_t).Uid, "the password file belongs to us, not to the server's user")
	b, err := os.ReadFile(pwPath)
	require.NoError(t, err)
	require.Equal(t, c.password+"\n", string(b))
	require.Len(t, c.password, 43, "32 random bytes, base64url")
	leftovers, err := filepath.Glob(filepath.Join(dir, ".*"))
	require.NoError(t, err)
	require.Empty(t, leftovers, "initdb's password file is removed")

	u, err := url.Parse(c.URL("postgres"))
	require.NoError(t, err)
	pw, ok := u.User.Password()
	require.True(t, ok)
	require.Equal(t, c.password, pw)

	host := fmt.Sprintf("127.0.0.1:%d", c.port)
	for name, dsn := range map[string]string{
		"tcp without password":         "postgres://postgres@" + host + "/postgres?sslmode=disable",
		"tcp with wrong password":      "postgres://postgres:wrong@" + host + "/postgres?sslmode=disable",
		"tcp with empty password":      "postgres://postgres:@" + host + "/postgres?sslmode=disable",
		"other role without password":  "postgres://nobody@" + host + "/postgres?sslmode=disable",
		"socket without password":      fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", c.sockDir, c.port),
		"socket with wrong password":   fmt.Sprintf("host=%s port=%d user=postgres password=wrong dbname=postgres sslmode=disable", c.sockDir, c.port),
		"tcp with password of another": "postgres://postgres:" + strings.Repeat("A", 43) + "@" + host + "/postgres?sslmode=disable",
	} {
		t.Run(name, func(t *testing.T) {
			err := connectErr(t, dsn)
			require.Error(t, err)
			var pgErr *pgconn.PgError
			require.ErrorAs(t, err, &pgErr)
			require.Equal(t, "28", pgErr.Code[:2], "refused for authentication: %v", err)
		})
	}

	require.NoError(t, connectErr(t, c.URL("postgres")), "the URL's password is accepted over TCP")
	require.NoError(t, connectErr(t, fmt.Sprintf("host=%s port=%d user=postgres password=%s dbname=postgres sslmode=disable",
		c.sockDir, c.port, c.password)), "and over the Unix socket")

	// No trust (or peer) line is left in pg_hba.conf.
	var methods []string
	rows, err := open(t, c).Query("SELECT DISTINCT auth_method FROM pg_hba_file_rules")
	require.NoError(t, err)
	for rows.Next() {
		var m string
		require.NoError(t, rows.Scan(&m))
		methods = append(methods, m)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"scram-sha-256"}, methods)
	require.Equal(t, "scram-sha-256", setting(t, open(t, c), "password_encryption"))
}

func TestTrustClusterWithoutPasswordIsRefused(t *testing.T) {
	t.Parallel()
	binDir, err := FindBinaries()
	require.NoError(t, err)
	_, major, err := serverVersion(context.Background(), binDir)
	require.NoError(t, err)
	// What an older version left behind: a cluster, but no password file.
	dir := dataDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "pgdata"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pgdata", "PG_VERSION"), []byte(major+"\n"), 0o600))
	_, err = Start(context.Background(), Options{Dir: dir, Logger: quietLogger()})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "\n", "one line")
	require.ErrorContains(t, err, "has no password file "+filepath.Join(dir, "superuser.password"))
	require.ErrorContains(t, err, "delete "+filepath.Join(dir, "pgdata"))
}

func TestWrongPasswordFileFailsFast(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	c := start(t, Options{Dir: dir, Fast: true})
	require.NoError(t, c.Stop())
	other, err := newPassword()
	require.NoError(t, err)
	require.NoError(t, writePassword(filepath.Join(dir, "superuser.password"), other))

	began := time.Now()
	_, err = Start(context.Background(), Options{Dir: dir, Fast: true, Logger: quietLogger()})
	require.ErrorContains(t, err, "refused the superuser password in "+filepath.Join(dir, "superuser.password"))
	require.ErrorContains(t, err, "password authentication failed")
	require.NotContains(t, err.Error(), other, "the password is not in the error")
	require.Less(t, time.Since(began), readyTimeout/2, "no waiting for the readiness timeout")
	require.NoFileExists(t, filepath.Join(dir, "pgdata", "postmaster.pid"), "the server that refused us was stopped")
}

func TestStalePostmasterPidDoesNotBlockStart(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	c := start(t, Options{Dir: dir, Fast: true})
	// Like a statementd killed with kill -9 together with its server: the
	// postmaster's process group is killed (its backends, each in a session
	// of its own, follow when they notice) and postmaster.pid stays behind.
	require.NoError(t, syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL))
	<-c.Done()
	require.FileExists(t, filepath.Join(dir, "pgdata", "postmaster.pid"))
	require.Error(t, c.Stop(), "Stop reports that postgres had died")

	// No waiting for the backends to die: a supervisor restarts at once.
	c2 := start(t, Options{Dir: dir, Fast: true})
	var one int
	require.NoError(t, open(t, c2).QueryRow("SELECT 1").Scan(&one))

	log, err := os.ReadFile(filepath.Join(dir, "postgres.log"))
	require.NoError(t, err)
	require.Contains(t, string(log), "database system was interrupted", "the second start ran crash recovery")
	t.Logf("postgres was launched %d times", strings.Count(string(log), "starting postgres on port"))
}

// TestRunningClusterThatRefusesOurPasswordIsRefused: a server runs in the folder, but its
// password is not the one the folder holds, so Start can neither use it nor start another.
func TestRunningClusterThatRefusesOurPasswordIsRefused(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	start(t, Options{Dir: dir, Fast: true})
	require.NoError(t, os.WriteFile(filepath.Join(dir, passwordFile), []byte("not-the-password\n"), 0o600))
	_, err := Start(context.Background(), Options{Dir: dir, Fast: true, Logger: quietLogger()})
	require.Error(t, err)
	require.Contains(t, err.Error(), "already in use by another running PostgreSQL")
	require.Contains(t, err.Error(), `lock file "postmaster.pid" already exists`, "postgres's own message is surfaced")
}

func TestOtherMajorVersionIsRefused(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "pgdata"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pgdata", "PG_VERSION"), []byte("9.6\n"), 0o600))
	_, err := Start(context.Background(), Options{Dir: dir, Logger: quietLogger()})
	require.ErrorContains(t, err, "was created by PostgreSQL 9.6, but the server binaries")
	require.ErrorContains(t, err, "pg_upgrade")
}

func TestUntraversableParentIsExplained(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root hands the cluster to another OS user")
	}
	parent := t.TempDir() // 0700, owned by root
	_, err := Start(context.Background(), Options{Dir: filepath.Join(parent, "data"), Logger: quietLogger()})
	require.ErrorContains(t, err, "is not traversable by OS user \"postgres\"")
	require.ErrorContains(t, err, "chmod o+x")
}

func TestStartLogsOneLine(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	c := start(t, Options{Dir: dataDir(t), Fast: true, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	require.NoError(t, c.Stop())
	out := buf.String()
	require.Equal(t, 1, strings.Count(out, "\n"), out)
	require.Contains(t, out, `msg="started embedded PostgreSQL"`)
	require.Contains(t, out, fmt.Sprintf("port=%d", c.port))
	require.Contains(t, out, "version=")
	require.Contains(t, out, "dir=")
	require.NotContains(t, out, c.password)
	log, err := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
	require.NoError(t, err)
	require.NotContains(t, string(log), c.password)
}

// TestSecondStartAttachesToRunningCluster: while one process serves the cluster (statementd
// serve), another Start on the same folder (statementd admin) uses it instead of failing, and its
// Stop leaves the server running for its owner.
func TestSecondStartAttachesToRunningCluster(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	owner := start(t, Options{Dir: dir, Fast: true})
	_, err := open(t, owner).Exec("CREATE TABLE shared (v text); INSERT INTO shared VALUES ('seen')")
	require.NoError(t, err)

	guest := start(t, Options{Dir: dir, Fast: true})
	require.Equal(t, owner.port, guest.port, "the guest uses the owner's server")
	var v string
	require.NoError(t, open(t, guest).QueryRow("SELECT v FROM shared").Scan(&v))
	require.Equal(t, "seen", v)
	require.NoError(t, guest.Stop())

	require.NoError(t, connectErr(t, owner.URL("postgres")), "the owner's server still runs after the guest stops")
}

// syncBuffer is a log sink that tests read while the supervisor writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSuperviseRestartsADeadServer: a server killed under a running service (its whole process
// group, as the OOM killer or an operator might) is started again on the same port, so the
// service's pool reaches it again through the same URL with the data intact, and the log says
// what happened. Stop ends the supervision.
func TestSuperviseRestartsADeadServer(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	c := start(t, Options{Dir: dir}) // durable: a kill must not lose committed rows
	db := open(t, c)
	_, err := db.Exec("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')")
	require.NoError(t, err)
	var logs syncBuffer
	supervised := make(chan struct{})
	go func() {
		c.Supervise(context.Background(), slog.New(slog.NewJSONHandler(&logs, nil)))
		close(supervised)
	}()

	for kill := 1; kill <= 2; kill++ {
		c.mu.Lock()
		pid, exited := c.cmd.Process.Pid, c.exited
		c.mu.Unlock()
		require.NoError(t, syscall.Kill(-pid, syscall.SIGKILL))
		<-exited
		deadline := time.Now().Add(60 * time.Second)
		for strings.Count(logs.String(), "embedded PostgreSQL restarted") < kill {
			require.True(t, time.Now().Before(deadline), "not restarted within 60 s:\n%s", logs.String())
			time.Sleep(50 * time.Millisecond)
		}
		var v string
		for {
			err := db.QueryRow("SELECT v FROM kept").Scan(&v)
			if err == nil {
				break
			}
			require.True(t, time.Now().Before(deadline), "the same pool does not reach the restarted server: %v", err)
			time.Sleep(50 * time.Millisecond)
		}
		require.Equal(t, "still here", v)
	}
	require.Equal(t, 2, strings.Count(logs.String(), "embedded PostgreSQL exited unexpectedly; restarting it"))

	require.NoError(t, db.Close())
	require.NoError(t, c.Stop())
	select {
	case <-supervised:
	case <-time.After(10 * time.Second):
		t.Fatal("Supervise did not return after Stop")
	}
	require.Equal(t, 2, strings.Count(logs.String(), "embedded PostgreSQL restarted"), "a stopped server is not restarted")
}
