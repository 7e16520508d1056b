// Package statementtest is the test harness the statement parsers share: the corpus under
// testdata/corpus, the golden files under testdata/golden with the -update flag that rewrites
// them, and the decimal settings the service runs with. Only tests import it.
package statementtest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// Update is the -update flag: the golden tests rewrite their golden files from the parser's
// output instead of comparing with them (review each change by hand against its source file).
// It is registered once per test binary, by the package that imports statementtest.
var Update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the parser's output")

// CorpusDir is where a parser package keeps the real statement files its tests read.
const CorpusDir = "testdata/corpus"

// GoldenDir is where a parser package keeps the golden JSON of its corpus files.
const GoldenDir = "testdata/golden"

// SetDecimalJSON sets the decimal package as the service sets it at start: amounts are JSON
// numbers with their stated decimals. Call it from TestMain, before m.Run.
func SetDecimalJSON() {
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false
}

// CorpusFiles returns the paths of the files in dir, in name order: every regular file but
// SOURCES.md, which says where the others come from. It fails t when there are none.
func CorpusFiles(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		if e.Name() != "SOURCES.md" && !e.IsDir() {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	require.NotEmpty(t, files, "no corpus files in %s", dir)
	return files
}

// AddCorpus adds every corpus file in dir to the fuzzer's seeds.
func AddCorpus(f *testing.F, dir string) {
	f.Helper()
	for _, path := range CorpusFiles(f, dir) {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(data)
	}
}

// RunCorpus runs test on every corpus file in dir, each as a parallel subtest named after the
// file.
func RunCorpus(t *testing.T, dir string, test func(t *testing.T, path string, data []byte)) {
	t.Helper()
	for _, path := range CorpusFiles(t, dir) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			test(t, path, data)
		})
	}
}

// GoldenPath returns the golden file of a corpus file: its name in GoldenDir, without the
// extension ext if it has it (pass "" to keep the whole name), and with ".json" added.
func GoldenPath(corpusPath, ext string) string {
	name := filepath.Base(corpusPath)
	if ext != "" {
		name = strings.TrimSuffix(name, ext)
	}
	return filepath.Join(GoldenDir, name+".json")
}

// Option changes how Golden writes a statement.
type Option func(*options)

type options struct {
	escapeHTML bool
}

// EscapeHTML writes '<', '>' and '&' in strings as \u003c, \u003e and \u0026, as
// json.MarshalIndent does. Without it they stay as they are, so that Raw reads like the file.
func EscapeHTML() Option { return func(o *options) { o.escapeHTML = true } }

// Marshal writes the statement as the golden files hold it: JSON indented by two spaces, with
// a final newline.
func Marshal(t testing.TB, st *statement.Statement, opts ...Option) []byte {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(o.escapeHTML)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(st))
	return b.Bytes()
}

// Golden compares the finished statement st with the golden file at goldenPath and fails t
// at the first line that differs; with -update it rewrites the file instead.
func Golden(t *testing.T, goldenPath string, st *statement.Statement, opts ...Option) {
	t.Helper()
	got := Marshal(t, st, opts...)
	if *Update {
		require.NoError(t, os.WriteFile(goldenPath, got, 0o644))
		return
	}
	want, err := os.ReadFile(goldenPath)
	require.NoError(t, err, "run go test -update to create the golden file")
	if bytes.Equal(want, got) {
		return
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			t.Fatalf("%s differs at line %d:\nwant %s\ngot  %s\n(go test -update rewrites it)", goldenPath, i+1, wl[i], gl[i])
		}
	}
	t.Fatalf("%s differs in length: %d lines, want %d (go test -update rewrites it)", goldenPath, len(gl), len(wl))
}

// RequireSections asserts that the sections of st delimit its transactions in order, without
// gaps or overlap, and cover every one of them.
func RequireSections(t testing.TB, st *statement.Statement) {
	t.Helper()
	next := 0
	for i, s := range st.Sections {
		require.Equal(t, next, s.First, "section %d starts where the one before it ended", i)
		require.GreaterOrEqual(t, s.Count, 0)
		require.LessOrEqual(t, s.First+s.Count, len(st.Transactions))
		next = s.First + s.Count
	}
	require.Equal(t, len(st.Transactions), next, "every transaction belongs to a section")
}

// RequireSane asserts what any successful parse must hold, whatever the input (for hostile and
// fuzz tests): sections delimit the transactions, every text field is UTF-8, and Finish and JSON
// encoding work.
func RequireSane(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.NotNil(t, st.Transactions)
	RequireSections(t, st)
	for _, x := range st.Transactions {
		for _, s := range []string{x.Raw, x.Description, x.Reference, x.CounterpartyName, x.CounterpartyAccount, x.Currency} {
			require.True(t, utf8.ValidString(s), "%q", s)
		}
	}
	statement.Finish(st)
	_, err := json.Marshal(st)
	require.NoError(t, err)
}

// Finished completes a parser's result as the engine does: statement.Finish on a statement
// parsed without error. It is for a package's parseFinished:
//
//	return statementtest.Finished(Parse(data, statement.Options{}))
func Finished(st *statement.Statement, err error) (*statement.Statement, error) {
	if err != nil {
		return nil, err
	}
	statement.Finish(st)
	return st, nil
}

// ParsedAndStreamed parses data with parse and with stream, finishes both as the engine does,
// and fails t unless they agree: the same error, or the same statement, the stream's
// transactions the same each time they are read. It returns parse's result. It is for a
// package whose parser also streams:
//
//	return statementtest.ParsedAndStreamed(t, data, statement.Options{}, Parse, Stream)
func ParsedAndStreamed(t testing.TB, data []byte, opts statement.Options,
	parse func([]byte, statement.Options) (*statement.Statement, error),
	stream func([]byte, statement.Options) (*statement.Stream, error)) (*statement.Statement, error) {
	t.Helper()
	st, err := Finished(parse(data, opts))
	s, serr := stream(data, opts)
	if err != nil || serr != nil {
		require.Equal(t, fmt.Sprint(err), fmt.Sprint(serr), "Stream fails as Parse does")
		return nil, err
	}
	got := Collect(t, s)
	want := *st
	if len(want.Transactions) == 0 {
		want.Transactions = nil
	}
	require.Equal(t, &want, got, "Stream reads the statement Parse reads")
	return st, nil
}

// Collect reads a stream's finished transactions twice, fails t unless both readings agree, and
// returns the finished statement with the transactions it read (nil when none).
func Collect(t testing.TB, s *statement.Stream) *statement.Statement {
	t.Helper()
	var readings [2][]statement.Transaction
	for k := range readings {
		require.NoError(t, s.Finished(func(tx *statement.Transaction) bool {
			readings[k] = append(readings[k], *tx)
			return true
		}))
	}
	require.Equal(t, readings[0], readings[1], "a stream reads the same transactions each time")
	require.Len(t, readings[0], s.Count)
	if len(readings[0]) > 0 {
		require.Equal(t, readings[0][0].Pos, s.First)
	}
	st := *s.Statement
	st.Transactions = readings[0]
	return &st
}
