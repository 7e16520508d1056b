package pgembed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFindBinariesFindsInstalledServer(t *testing.T) {
	t.Parallel()
	dir, err := FindBinaries()
	require.NoError(t, err, "the PostgreSQL server must be installed on every machine that runs these tests")
	require.FileExists(t, filepath.Join(dir, "initdb"))
	require.FileExists(t, filepath.Join(dir, "postgres"))
}

// fakeInstall creates dir with the named (empty, executable) files.
func fakeInstall(t *testing.T, dir string, names ...string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, n := range names {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755))
	}
	return dir
}

func TestFindBinaries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// setup builds a fake file system under root and returns the PATH
		// value and the path expected back ("" for ErrNotInstalled).
		setup func(t *testing.T, root string) (pathEnv, want string)
	}{
		{
			name: "PATH wins over version directories",
			setup: func(t *testing.T, root string) (string, string) {
				fakeInstall(t, filepath.Join(root, "lib", "15", "bin"), "initdb", "postgres")
				onPath := fakeInstall(t, filepath.Join(root, "usr", "bin"), "initdb", "postgres", "pg_ctl")
				return "/nonexistent" + string(os.PathListSeparator) + onPath, onPath
			},
		},
		{
			name: "PATH entry with only initdb is skipped",
			setup: func(t *testing.T, root string) (string, string) {
				onPath := fakeInstall(t, filepath.Join(root, "usr", "bin"), "initdb")
				return onPath, fakeInstall(t, filepath.Join(root, "lib", "13", "bin"), "initdb", "postgres")
			},
		},
		{
			name: "PATH symlinks resolve to the real installation",
			setup: func(t *testing.T, root string) (string, string) {
				real := fakeInstall(t, filepath.Join(root, "lib", "14", "bin"), "initdb", "postgres")
				link := filepath.Join(root, "local", "bin")
				require.NoError(t, os.MkdirAll(link, 0o755))
				for _, n := range []string{"initdb", "postgres"} {
					require.NoError(t, os.Symlink(filepath.Join(real, n), filepath.Join(link, n)))
				}
				return link, real
			},
		},
		{
			name: "highest version sorts numerically",
			setup: func(t *testing.T, root string) (string, string) {
				fakeInstall(t, filepath.Join(root, "lib", "9.6", "bin"), "initdb", "postgres")
				fakeInstall(t, filepath.Join(root, "lib", "10", "bin"), "initdb", "postgres")
				return "", fakeInstall(t, filepath.Join(root, "lib", "15", "bin"), "initdb", "postgres")
			},
		},
		{
			name: "incomplete or non-executable versions are skipped",
			setup: func(t *testing.T, root string) (string, string) {
				fakeInstall(t, filepath.Join(root, "lib", "17", "bin"), "initdb") // client-only
				d := fakeInstall(t, filepath.Join(root, "lib", "16", "bin"), "initdb", "postgres")
				require.NoError(t, os.Chmod(filepath.Join(d, "postgres"), 0o644))
				return "", fakeInstall(t, filepath.Join(root, "lib", "12", "bin"), "initdb", "postgres")
			},
		},
		{
			name: "nothing installed",
			setup: func(t *testing.T, root string) (string, string) {
				return fakeInstall(t, filepath.Join(root, "usr", "bin"), "psql", "pg_ctl"), ""
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			pathEnv, want := tt.setup(t, root)
			got, err := findBinaries(pathEnv, filepath.Join(root, "lib"))
			if want == "" {
				require.ErrorIs(t, err, ErrNotInstalled)
				return
			}
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

func TestFindBinariesMissingErrorText(t *testing.T) {
	t.Parallel()
	root := t.TempDir() // no version directories: nothing installed
	_, err := findBinaries(t.TempDir(), root)
	require.ErrorIs(t, err, ErrNotInstalled)
	// One line that tells the user both ways out.
	require.Equal(t, "PostgreSQL server binaries (initdb, postgres) not found on PATH or under "+root+"/*/bin: "+
		"install the PostgreSQL server package (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL", err.Error())
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out, version, major string
		ok                  bool
	}{
		{"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n", "15.18", "15", true},
		{"postgres (PostgreSQL) 17beta1\n", "17beta1", "17", true},
		{"postgres (PostgreSQL) 9.6.24\n", "9.6.24", "9.6", true},
		{"postgres (PostgreSQL) 16.4", "16.4", "16", true},
		{"something else", "", "", false},
		{"postgres (PostgreSQL) ", "", "", false},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSpace(tt.out), func(t *testing.T) {
			t.Parallel()
			version, major, ok := parseVersion(tt.out)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.version, version)
			require.Equal(t, tt.major, major)
		})
	}
}
