// Package pgembed runs a private PostgreSQL cluster from the locally installed
// PostgreSQL server binaries.
//
// statementd needs PostgreSQL and nothing else. So that a developer (or CI, or
// a test) can run it without setting up a server by hand, pgembed initialises
// a cluster under a data folder on first use, starts postgres as a child
// process on a loopback port, and stops it again. The cluster belongs to the
// process that started it: postgres is told to die with us, and nothing ever
// depends on a server started by hand.
//
// PostgreSQL refuses to run as root, so when we are root initdb and postgres
// run as the "postgres" OS user, and the folders they write are handed to it.
//
// The cluster requires a password for every connection, over TCP and over
// its Unix socket alike (scram-sha-256), so that other local OS users cannot
// connect as its superuser. initdb sets a random superuser password, which is
// kept in Dir/superuser.password (mode 0600, owned by the user running us)
// and is part of the URLs that Cluster.URL returns. A human connects with
//
//	PGPASSWORD=$(cat DIR/superuser.password) psql -h 127.0.0.1 -p PORT -U postgres
package pgembed

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the readiness probe speaks to postgres through pgx's database/sql driver
)

// Timeouts of the cluster's life cycle. They are variables only so that the
// reasoning lives in one place; nothing changes them.
var (
	// readyTimeout bounds the wait for the first successful SELECT 1. Crash
	// recovery after a kill -9 of a big cluster can take a while; a clean
	// start takes well under a second.
	readyTimeout = 60 * time.Second
	// shutdownTimeout bounds a fast shutdown (SIGINT) before we escalate.
	shutdownTimeout = 30 * time.Second
	// bindRetries is how often a freshly picked port may be lost to another
	// process between our probe and postgres's bind.
	bindRetries = 5
	// dyingTimeout bounds the wait for the backends of a killed server to
	// exit: right after a kill -9 of statementd and its server they may
	// still hold the cluster's shared memory for a moment.
	dyingTimeout = 10 * time.Second
)

// sockPathMax is the longest socket directory we use in place: a Unix socket
// path ("<dir>/.s.PGSQL.65535") must fit in sun_path's 108 bytes, and
// PostgreSQL refuses to start when it does not.
const sockPathMax = 107 - len("/.s.PGSQL.65535")

// passwordFile is the name, in Dir, of the file holding the superuser's
// password.
const passwordFile = "superuser.password"

// superuser is the role initdb creates and we connect as.
const superuser = "postgres"

// Options configures Start.
type Options struct {
	// Dir is the data folder: the cluster lives in Dir/pgdata, Unix sockets in
	// Dir/run, the server log in Dir/postgres.log and the superuser's
	// password in Dir/superuser.password. It is created if
	// missing. When Dir is too long for a Unix socket path, sockets go to a
	// short temporary directory under os.TempDir() instead.
	Dir string
	// Port is the loopback TCP port to listen on; 0 picks a free one.
	Port int
	// Fast turns off durability (fsync, synchronous_commit,
	// full_page_writes). Only for tests: a crash can corrupt the cluster.
	Fast bool
	// Logger receives the start-up line; nil means slog.Default().
	Logger *slog.Logger
}

// Cluster is a running PostgreSQL server owned by this process.
type Cluster struct {
	dir        string
	dataDir    string
	sockDir    string
	tmpSockDir bool // sockDir is ours to remove on Stop
	logPath    string
	pwPath     string
	port       int
	// password is the superuser's; it must never be logged or end up in an
	// error message.
	password string

	cmd    *exec.Cmd
	exited chan struct{} // closed once postgres has exited and been reaped
	// waitErr is postgres's exit status; written before exited is closed.
	waitErr error

	// binDir, id and fast are how the server was launched, for Supervise to launch it again.
	binDir string
	id     *identity
	fast   bool
	// mu guards a launch by Supervise against Stop; stopping is set, and stopped closed, when
	// Stop begins, so that a supervisor gives up.
	mu       sync.Mutex
	stopping bool
	stopped  chan struct{}

	stopOnce sync.Once
	stopErr  error
	// attached is set when Start found the cluster already served by another process (a
	// statementd serve while an admin command runs): this process does not own it, so Stop
	// leaves it running.
	attached bool
}

// Start starts a PostgreSQL cluster in opts.Dir, running initdb first when
// the folder holds no cluster yet, and returns once the server accepts
// connections. ctx bounds only the start-up: the server keeps running until
// Stop or until this process exits (postgres gets SIGTERM when we die).
//
// Errors wrap ErrNotInstalled when no server binaries are found. A cluster
// created by another PostgreSQL major version, one already in use by another
// running server, or one without a password (created by an older version with
// trust authentication) is refused with an error saying so.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	began := time.Now()
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if opts.Dir == "" {
		return nil, errors.New("pgembed: Options.Dir is required")
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("pgembed: invalid port %d", opts.Port)
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("pgembed: %w", err)
	}
	binDir, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	version, major, err := serverVersion(ctx, binDir)
	if err != nil {
		return nil, err
	}
	id, err := lookupIdentity()
	if err != nil {
		return nil, err
	}

	// 0755 so that the server's user can traverse it when it is not us; the
	// cluster and socket folders inside are private (0700).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pgembed: create data folder: %w", err)
	}
	if err := id.checkTraversable(dir); err != nil {
		return nil, err
	}

	c := &Cluster{
		dir:     dir,
		dataDir: filepath.Join(dir, "pgdata"),
		logPath: filepath.Join(dir, "postgres.log"),
		pwPath:  filepath.Join(dir, passwordFile),
		binDir:  binDir,
		id:      id,
		fast:    opts.Fast,
		stopped: make(chan struct{}),
	}
	initialized, err := c.ensureCluster(ctx, binDir, major, id, opts.Fast)
	if err != nil {
		return nil, err
	}
	if !initialized && c.attach(ctx) {
		logger.Info("using the embedded PostgreSQL another process is running", "dir", dir, "port", c.port)
		return c, nil
	}
	if err := c.prepareSocketDir(id); err != nil {
		return nil, err
	}

	dyingUntil := time.Now().Add(dyingTimeout)
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			if port, err = freePort(); err != nil {
				c.removeSocketDir()
				return nil, err
			}
		}
		err = c.launch(ctx, binDir, port, id, opts.Fast)
		if err == nil {
			break
		}
		c.removeSocketDir()
		switch {
		case errors.Is(err, errBind) && opts.Port == 0 && attempt < bindRetries:
			// Someone took the port between our probe and postgres's bind.
		case errors.Is(err, errOldServerDying) && time.Now().Before(dyingUntil):
			// Backends of a killed server are still exiting.
			select {
			case <-ctx.Done():
				return nil, err
			case <-time.After(100 * time.Millisecond):
			}
		default:
			return nil, err
		}
		if err := c.prepareSocketDir(id); err != nil {
			return nil, err
		}
	}

	logger.Info("started embedded PostgreSQL",
		"dir", dir, "port", c.port, "version", version,
		"initdb", initialized, "took", time.Since(began).Round(time.Millisecond).String())
	return c, nil
}

// URL returns a connection URL for database on this cluster, as the
// superuser "postgres" over loopback TCP. It holds the superuser's password:
// log it only through url.URL.Redacted or the like.
func (c *Cluster) URL(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(superuser, c.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Done returns a channel that is closed once the server process running now
// has exited, whether through Stop or not. After Supervise restarts the
// server, Done returns the new process's channel. For a cluster another process runs (see
// attach) it is never closed: that process watches its server.
func (c *Cluster) Done() <-chan struct{} { return c.exited }

// attach connects to the cluster when another live process already serves it,
// as postmaster.pid tells (PID on line 1, port on line 4, status last), so that
// `statementd admin` works while `statementd serve` runs on the same data dir.
// It reports false when no server runs there or it does not answer with our
// password; Start then launches one as usual.
func (c *Cluster) attach(ctx context.Context) bool {
	raw, err := os.ReadFile(filepath.Join(c.dataDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(raw), "\n")
	if len(lines) < 4 {
		return false
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(lines[0]))
	port, err2 := strconv.Atoi(strings.TrimSpace(lines[3]))
	if err1 != nil || err2 != nil || pid <= 0 || port <= 0 || port > 65535 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false // a stale pid file of a server that is gone
	}
	c.port = port
	db, err := sql.Open("pgx", c.URL("postgres")+"&connect_timeout=5")
	if err != nil {
		return false
	}
	defer db.Close()
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		c.port = 0
		return false
	}
	c.attached = true
	c.exited = make(chan struct{})
	return true
}

// Stop shuts the server down with a fast shutdown (open transactions are
// rolled back, data is flushed) and waits for it to exit. If it has not
// exited within 30 s it is stopped with an immediate shutdown and, failing
// that, killed. Stop may be called more than once; later calls return the
// result of the first.
func (c *Cluster) Stop() error {
	if c.attached {
		return nil // another process owns the server
	}
	c.stopOnce.Do(func() {
		close(c.stopped)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.stopping = true
		c.stopErr = c.stop()
		c.removeSocketDir()
	})
	return c.stopErr
}

// The waits of Supervise between attempts to restart the server: doubling from the first to the
// last.
const (
	restartFirstWait = time.Second
	restartMaxWait   = 30 * time.Second
)

// Supervise restarts the server whenever it exits without Stop (killed, crashed, stopped by
// hand), on the same port and so behind the same URL, until ctx ends or Stop is called. A
// restart that fails is tried again after 1 s, then 2, 4, ... up to 30 s between attempts.
// Every exit, failed attempt and restart is logged. Meanwhile the service answers 503, as for
// any unreachable database; the pool's broken connections are replaced on their next use. For a
// cluster another process runs (see attach) it does nothing: that process supervises it.
func (c *Cluster) Supervise(ctx context.Context, logger *slog.Logger) {
	if c.attached {
		return
	}
	for {
		c.mu.Lock()
		exited := c.exited
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-c.stopped:
			return
		case <-exited:
		}
		down := time.Now()
		logger.Error("embedded PostgreSQL exited unexpectedly; restarting it",
			slog.String("exit", fmt.Sprint(c.waitErr)), slog.String("dir", c.dir), slog.Int("port", c.port))
		wait := restartFirstWait
		for attempt := 1; ; attempt++ {
			err := c.relaunch(ctx)
			if err == nil {
				logger.Warn("embedded PostgreSQL restarted", slog.Int("attempt", attempt),
					slog.String("down_for", time.Since(down).Round(time.Millisecond).String()))
				break
			}
			if errors.Is(err, errStopping) || ctx.Err() != nil {
				return // stopping: the failed attempt is the shutdown's doing
			}
			logger.Error("embedded PostgreSQL did not restart; trying again", slog.Int("attempt", attempt),
				slog.String("retry_in", wait.String()), slog.String("error", err.Error()))
			select {
			case <-ctx.Done():
				return
			case <-c.stopped:
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, restartMaxWait)
		}
	}
}

// errStopping: Stop has begun, so the server is not launched again.
var errStopping = errors.New("pgembed: the cluster is stopping")

// relaunch starts the server again on its port, unless Stop has begun.
func (c *Cluster) relaunch(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		return errStopping
	}
	if err := c.prepareSocketDir(c.id); err != nil {
		return err
	}
	if err := c.launch(ctx, c.binDir, c.port, c.id, c.fast); err != nil {
		c.removeSocketDir()
		return err
	}
	return nil
}

func (c *Cluster) stop() error {
	select {
	case <-c.exited:
		if c.waitErr != nil {
			return fmt.Errorf("pgembed: postgres had already exited: %v", c.waitErr)
		}
		return nil
	default:
	}
	// The postmaster signals its own children; SIGINT means fast shutdown.
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.exited:
		if c.waitErr != nil {
			return fmt.Errorf("pgembed: postgres shutdown: %v%s", c.waitErr, c.logTail(0))
		}
		return nil
	case <-time.After(shutdownTimeout):
	}
	// SIGQUIT is an immediate shutdown: the next start runs crash recovery.
	_ = c.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		// Each backend runs in its own session (postgres calls setsid), so
		// only the postmaster is killed here; the backends notice its death
		// and exit by themselves.
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	return fmt.Errorf("pgembed: postgres did not shut down within %v and was stopped forcibly", shutdownTimeout)
}

// ensureCluster runs initdb unless Dir/pgdata already holds a cluster, and
// refuses a cluster of another major version or one without a password file.
// It sets c.password, and reports whether it ran initdb.
func (c *Cluster) ensureCluster(ctx context.Context, binDir, major string, id *identity, fast bool) (bool, error) {
	pgVersion, err := os.ReadFile(filepath.Join(c.dataDir, "PG_VERSION"))
	if err == nil {
		if have := strings.TrimSpace(string(pgVersion)); have != major {
			return false, fmt.Errorf("pgembed: the cluster in %s was created by PostgreSQL %s, but the server binaries in %s are PostgreSQL %s: "+
				"install PostgreSQL %s, upgrade the cluster with pg_upgrade, or move %s away to start an empty one",
				c.dataDir, have, binDir, major, have, c.dataDir)
		}
		c.password, err = readPassword(c.pwPath)
		if errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("pgembed: the cluster in %s has no password file %s: it was created by an older version that let every local user connect without a password; "+
				"delete %s to start an empty cluster with password authentication (development clusters only: this deletes all its data)",
				c.dataDir, c.pwPath, c.dataDir)
		}
		if err != nil {
			return false, err
		}
		return false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("pgembed: %w", err)
	}

	// We create pgdata ourselves (rather than letting initdb do it) because
	// when we are root, the server's user cannot write Dir.
	if err := os.MkdirAll(c.dataDir, 0o700); err != nil {
		return false, fmt.Errorf("pgembed: %w", err)
	}
	if err := id.chown(c.dataDir); err != nil {
		return false, err
	}

	// The password file is written before initdb, so that a cluster never
	// exists without it; a failed initdb leaves no cluster behind, and the
	// next attempt writes a new password.
	password, err := newPassword()
	if err != nil {
		return false, err
	}
	if err := writePassword(c.pwPath, password); err != nil {
		return false, err
	}
	// initdb reads the password from a file (not the command line, which
	// every local user can see). It runs as the server's user, so the file
	// is handed to it, and it is removed as soon as initdb is done.
	pwfile, err := writeInitdbPwfile(c.dir, password, id)
	if err != nil {
		return false, err
	}

	args := []string{
		"-D", c.dataDir,
		"-U", superuser,
		"--pwfile=" + pwfile,
		// Both local (Unix socket) and host (TCP) connections.
		"--auth=scram-sha-256",
		"-E", "UTF8", "--locale=C",
	}
	if fast {
		args = append(args, "-N") // skip fsync of the new cluster
	}
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"), args...)
	cmd.Dir = c.dir // postgres's user may not be able to read our working directory
	cmd.Env = childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: id.cred}
	out, err := cmd.CombinedOutput()
	if rmErr := os.Remove(pwfile); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		return false, fmt.Errorf("pgembed: remove initdb password file: %w", rmErr)
	}
	if err != nil {
		return false, fmt.Errorf("pgembed: initdb %s as %s failed: %w\n%s", c.dataDir, id.name, err, tail(out, 20))
	}
	c.password = password
	return true, nil
}

// newPassword returns a random superuser password: 32 bytes from
// crypto/rand, base64url-encoded (43 characters, safe in URLs and files).
func newPassword() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("pgembed: generate superuser password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// writePassword stores password in path, mode 0600 and owned by us: only the
// client side (this process) needs it, not the server's user. The file is
// replaced atomically so that a crash never leaves a truncated password.
func writePassword(path, password string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*") // mode 0600
	if err != nil {
		return fmt.Errorf("pgembed: write password file: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("pgembed: write password file: %w", err)
	}
	if _, err := f.WriteString(password + "\n"); err != nil {
		return fmt.Errorf("pgembed: write password file: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("pgembed: write password file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("pgembed: write password file: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("pgembed: write password file: %w", err)
	}
	return nil
}

// readPassword reads the superuser's password back from path. Errors wrap
// os.ErrNotExist when there is no such file.
func readPassword(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("pgembed: read the superuser password: %w", err)
	}
	password := strings.TrimSpace(string(b))
	if password == "" {
		return "", fmt.Errorf("pgembed: the superuser password file %s is empty", path)
	}
	return password, nil
}

// writeInitdbPwfile writes password to a new temporary file in dir that the
// server's user (who runs initdb) can read and nobody else can, and returns
// its path. The caller removes it.
func writeInitdbPwfile(dir, password string, id *identity) (_ string, err error) {
	f, err := os.CreateTemp(dir, ".initdb-pwfile-*") // mode 0600
	if err != nil {
		return "", fmt.Errorf("pgembed: initdb password file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("pgembed: initdb password file: %w", cerr)
		}
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	if _, err := f.WriteString(password + "\n"); err != nil {
		return "", fmt.Errorf("pgembed: initdb password file: %w", err)
	}
	if err := id.chown(f.Name()); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// prepareSocketDir creates the folder for postgres's Unix socket. The socket
// is not used by us (we connect over TCP) but postgres wants one, and it lets
// a human connect with psql -h <dir>.
func (c *Cluster) prepareSocketDir(id *identity) error {
	c.sockDir, c.tmpSockDir = filepath.Join(c.dir, "run"), false
	if len(c.sockDir) > sockPathMax {
		d, err := os.MkdirTemp("", "pgembed-")
		if err != nil {
			return fmt.Errorf("pgembed: socket directory: %w", err)
		}
		c.sockDir, c.tmpSockDir = d, true
	} else if err := os.MkdirAll(c.sockDir, 0o700); err != nil {
		return fmt.Errorf("pgembed: socket directory: %w", err)
	}
	if err := id.chown(c.sockDir); err != nil {
		c.removeSocketDir()
		return err
	}
	if err := id.checkTraversable(c.sockDir); err != nil {
		c.removeSocketDir()
		return err
	}
	return nil
}

func (c *Cluster) removeSocketDir() {
	if c.tmpSockDir {
		_ = os.RemoveAll(c.sockDir)
		c.tmpSockDir = false
	}
}

// Start-up failures that Start retries.
var (
	// errBind: the port was taken.
	errBind = errors.New("port in use")
	// errOldServerDying: processes of a previous, killed server still hold
	// the cluster's shared memory.
	errOldServerDying = errors.New("processes of a previous server are still running")
)

// launch starts postgres on port and waits until it accepts connections.
func (c *Cluster) launch(ctx context.Context, binDir string, port int, id *identity, fast bool) error {
	logFile, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pgembed: server log: %w", err)
	}
	defer logFile.Close() // postgres has its own copy of the descriptor
	logStart, _ := logFile.Seek(0, io.SeekEnd)
	fmt.Fprintf(logFile, "pgembed: %s starting postgres on port %d\n", time.Now().Format(time.RFC3339), port)

	sockDirs := c.sockDir
	if strings.ContainsAny(sockDirs, `, "`) {
		// The setting is a comma-separated list with double-quoting.
		sockDirs = `"` + strings.ReplaceAll(sockDirs, `"`, `""`) + `"`
	}
	args := []string{
		"-D", c.dataDir,
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=" + sockDirs,
	}
	if fast {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	// Not CommandContext: the server must outlive the start-up context.
	cmd := exec.Command(filepath.Join(binDir, "postgres"), args...)
	cmd.Dir = c.dir
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: id.cred,
		// Its own process group keeps a terminal's Ctrl-C away from postgres,
		// so that we decide when and how it shuts down (after our requests
		// have drained, not at the same moment).
		Setpgid: true,
		// SIGTERM (a smart shutdown, which completes once our connections
		// are gone) if we die without calling Stop.
		Pdeathsig: syscall.SIGTERM,
	}

	c.port, c.cmd, c.exited, c.waitErr = port, cmd, make(chan struct{}), nil
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the *thread* that forked the child exits, not
		// the process. Go retires a thread whose goroutine ends while locked
		// to it, so this goroutine keeps its thread locked for the life of
		// postgres and never unlocks it: the thread ends only after postgres.
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("pgembed: start postgres: %w", err)
	}

	if err := c.waitReady(ctx, logStart); err != nil {
		select {
		case <-c.exited:
		default:
			_ = c.stop()
		}
		return err
	}
	return nil
}

// waitReady polls with SELECT 1 until the server answers, it exits, or
// readyTimeout (or ctx) runs out.
func (c *Cluster) waitReady(ctx context.Context, logStart int64) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	db, err := sql.Open("pgx", c.URL("postgres")+"&connect_timeout=5")
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	defer db.Close()

	var lastErr error
	for {
		pingCtx, pingCancel := context.WithTimeout(ctx, 5*time.Second)
		var one int
		lastErr = db.QueryRowContext(pingCtx, "SELECT 1").Scan(&one)
		pingCancel()
		if lastErr == nil {
			return nil
		}
		// Class 28 (invalid authorization): the password file does not
		// belong to this cluster. Retrying would not help.
		var pgErr *pgconn.PgError
		if errors.As(lastErr, &pgErr) && strings.HasPrefix(pgErr.Code, "28") {
			return fmt.Errorf("pgembed: the cluster in %s refused the superuser password in %s (%s): "+
				"put back the password file that belongs to this cluster, or delete %s to start an empty one (development clusters only: this deletes all its data)",
				c.dataDir, c.pwPath, pgErr.Message, c.dataDir)
		}
		select {
		case <-c.exited:
			return c.startupFailure(logStart)
		case <-ctx.Done():
			return fmt.Errorf("pgembed: postgres did not accept connections within %v (%v; last error: %v)%s",
				readyTimeout, ctx.Err(), lastErr, c.logTail(logStart))
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// startupFailure explains why postgres exited before accepting connections,
// from its log.
func (c *Cluster) startupFailure(logStart int64) error {
	log := c.logTail(logStart)
	switch {
	case strings.Contains(log, "could not bind") || strings.Contains(log, "could not create any TCP/IP sockets"):
		return fmt.Errorf("pgembed: postgres could not listen on 127.0.0.1:%d: %w%s", c.port, errBind, log)
	case strings.Contains(log, "pre-existing shared memory block"):
		return fmt.Errorf("pgembed: %w on the cluster in %s%s", errOldServerDying, c.dataDir, log)
	case strings.Contains(log, `lock file "postmaster.pid" already exists`):
		return fmt.Errorf("pgembed: the cluster in %s is already in use by another running PostgreSQL (another statementd using the same data folder?)%s",
			c.dataDir, log)
	default:
		return fmt.Errorf("pgembed: postgres exited during start-up (%v)%s", c.waitErr, log)
	}
}

// logTail returns the last lines postgres wrote to its log since offset,
// formatted to be appended to an error message.
func (c *Cluster) logTail(offset int64) string {
	f, err := os.Open(c.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	const maxBytes = 8 << 10
	if fi, err := f.Stat(); err == nil && fi.Size()-offset > maxBytes {
		offset = fi.Size() - maxBytes
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	if t := tail(b, 20); t != "" {
		return "; last lines of " + c.logPath + ":\n" + t
	}
	return ""
}

// tail returns the last n non-empty lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(b, nil))), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// childEnv is the environment of initdb and postgres: ours, minus libpq
// variables such as PGDATA or PGPORT that could redirect them, with the C
// locale so that server messages (which we match on) are in English.
func childEnv() []string {
	env := make([]string, 0, len(os.Environ())+1)
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C")
}

// freePort asks the kernel for a free loopback port. Another process may take
// it before postgres binds it; Start retries in that case.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgembed: pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
