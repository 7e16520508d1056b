package pgembed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNotInstalled is wrapped by every error that reports missing PostgreSQL
// server binaries, so that callers can tell "install PostgreSQL or set
// DATABASE_URL" apart from a cluster that failed to start.
var ErrNotInstalled = errors.New("PostgreSQL server binaries (initdb, postgres) not found")

// debianRoot is where Debian and Ubuntu install server binaries; it is not on
// PATH there (only client tools are wrapped into /usr/bin), so it has to be
// searched explicitly.
const debianRoot = "/usr/lib/postgresql"

// FindBinaries returns the directory holding the initdb and postgres
// executables: the first PATH entry that has both, else the highest-versioned
// /usr/lib/postgresql/*/bin. When the PATH entries are symlinks, the directory
// they resolve to is returned, because initdb looks for postgres next to its
// own real location and both must come from the same installation.
func FindBinaries() (dir string, err error) {
	return findBinaries(os.Getenv("PATH"), debianRoot)
}

// findBinaries is FindBinaries with the PATH value and the version-directory
// root injected, so that tests can build fake installations.
func findBinaries(pathEnv, globRoot string) (string, error) {
	for _, d := range filepath.SplitList(pathEnv) {
		// An empty PATH element means the working directory; running a
		// database server found there by accident is never what we want.
		if d == "" || !hasServerBinaries(d) {
			continue
		}
		if real, err := filepath.EvalSymlinks(filepath.Join(d, "initdb")); err == nil {
			if rd := filepath.Dir(real); hasServerBinaries(rd) {
				return rd, nil
			}
		}
		return d, nil
	}

	pattern := filepath.Join(globRoot, "*", "bin")
	candidates, _ := filepath.Glob(pattern) // the pattern is constant and valid
	// Version directories sort numerically ("15" beats "9.6"), which a plain
	// string sort would get wrong.
	slices.SortFunc(candidates, func(a, b string) int {
		return compareVersions(filepath.Base(filepath.Dir(b)), filepath.Base(filepath.Dir(a)))
	})
	for _, d := range candidates {
		if hasServerBinaries(d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w on PATH or under %s: install the PostgreSQL server package (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL",
		ErrNotInstalled, pattern)
}

// hasServerBinaries reports whether dir holds the two executables we run.
// pg_ctl is not needed: postgres is started directly as our child process.
func hasServerBinaries(dir string) bool {
	return isExecutable(filepath.Join(dir, "initdb")) && isExecutable(filepath.Join(dir, "postgres"))
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// compareVersions orders dotted numeric versions such as "9.6" and "15";
// non-numeric parts count as 0 so that odd directory names sort last.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(as), len(bs)) {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x - y
		}
	}
	return 0
}

// serverVersion runs "postgres --version" and returns the full version (for
// example "15.18") and the major version as PG_VERSION spells it ("15", or
// "9.6" before PostgreSQL 10). --version works as root, before postgres's own
// root check, so it needs no credential switch.
func serverVersion(ctx context.Context, binDir string) (version, major string, err error) {
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "--version").Output()
	if err != nil {
		return "", "", fmt.Errorf("pgembed: %s --version: %w", filepath.Join(binDir, "postgres"), err)
	}
	version, major, ok := parseVersion(string(out))
	if !ok {
		return "", "", fmt.Errorf("pgembed: cannot parse PostgreSQL version from %q", strings.TrimSpace(string(out)))
	}
	return version, major, nil
}

// parseVersion parses "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)".
func parseVersion(out string) (version, major string, ok bool) {
	_, rest, found := strings.Cut(out, "(PostgreSQL) ")
	if !found {
		return "", "", false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", "", false
	}
	version = fields[0]
	parts := strings.Split(version, ".")
	// Tolerate pre-release suffixes such as "17beta1" or "16rc1".
	digits := parts[0]
	if i := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		digits = digits[:i]
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return "", "", false
	}
	if n < 10 && len(parts) > 1 {
		return version, parts[0] + "." + parts[1], true
	}
	return version, strconv.Itoa(n), true
}
