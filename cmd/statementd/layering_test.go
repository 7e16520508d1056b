package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sdkPackages are the packages of the Go SDK, a module of its own (gen/sdk) that this module
// reaches through the replace in go.mod.
const sdkPackages = "github.com/statementmatch/service/gen/sdk/..."

// TestLayering keeps the imports going one way (ARCHITECTURE.md): only the store package, the
// queue, the embedded cluster and this wiring import database packages; only the HTTP adapters
// and the generated servers import echo; only the HTTP adapters, the CLI, the docs' Go samples and
// the generated code import gen/; the domain packages import none of them.
func TestLayering(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../../...", sdkPackages).Output()
	require.NoError(t, err)
	const mod = "github.com/statementmatch/service/"
	rules := []struct {
		name    string
		imports func(string) bool
		allowed []string
	}{
		{"database packages", func(p string) bool {
			return strings.HasPrefix(p, "github.com/jackc/pgx") || strings.HasPrefix(p, "github.com/jmoiron/sqlx") ||
				strings.HasPrefix(p, "github.com/lib/pq") || strings.HasPrefix(p, "github.com/riverqueue/river")
		}, []string{"internal/postgres", "internal/queue", "internal/platform/pgembed", "cmd/statementd"}},
		{"echo", func(p string) bool { return strings.HasPrefix(p, "github.com/labstack/echo") },
			[]string{"gen/reconapi", "gen/parseapi", "internal/httpkit", "internal/reconhttp", "internal/parsehttp"}},
		{"generated code", func(p string) bool { return strings.HasPrefix(p, mod+"gen/") },
			[]string{"gen/", "cmd/statementctl", "openapi/samples", "internal/reconhttp", "internal/parsehttp"}},
	}
	packages := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], mod) {
			continue
		}
		packages++
		pkg := strings.TrimPrefix(fields[0], mod)
		for _, r := range rules {
			ok := false
			for _, a := range r.allowed {
				if pkg == a || strings.HasPrefix(pkg, a+"/") || strings.HasSuffix(a, "/") && strings.HasPrefix(pkg, a) {
					ok = true
				}
			}
			if ok {
				continue
			}
			for _, imp := range fields[1:] {
				require.False(t, r.imports(imp), "%s imports %s (%s are for %v only)", pkg, imp, r.name, r.allowed)
			}
		}
	}
	require.Greater(t, packages, 20, "go list found the module's packages")
}

// TestArchitectureMapsEveryPackage keeps the package map of ARCHITECTURE.md true: every package
// of the module and of the SDK module is named in the first column of its table, and the table names no other.
func TestArchitectureMapsEveryPackage(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "../../...", sdkPackages).Output()
	require.NoError(t, err)
	const mod = "github.com/statementmatch/service/"
	packages := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		packages[strings.TrimPrefix(p, mod)] = true
	}
	doc, err := os.ReadFile("../../ARCHITECTURE.md")
	require.NoError(t, err)
	mapped := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for _, name := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			mapped[name[1]] = true
		}
	}
	for p := range packages {
		require.True(t, mapped[p], "ARCHITECTURE.md's package map does not name %s", p)
	}
	for p := range mapped {
		require.True(t, packages[p], "ARCHITECTURE.md's package map names %s, which is no package", p)
	}
}
