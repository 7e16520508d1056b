// Command loadgen sends HTTP requests at a constant rate (open loop) or over a fixed number of
// connections (closed loop) and reports the throughput, the answers by status and the exact
// latency percentiles (p50, p90, p99, p99.9, max).
//
//	loadgen -rate 1000 -duration 20s -url http://127.0.0.1:8080/api/v1/jobs/ID -H 'Authorization: Bearer smk_live_...'
//	loadgen -concurrency 16 -duration 20s -targets requests.txt -json
//
// An open loop (-rate) sends request i at start + i/rate whatever the earlier answers, and
// measures each latency from that scheduled time, so that a stall shows in the latency of every
// request it delayed (no coordinated omission). A closed loop (-concurrency) keeps N requests in
// flight, each connection sending its next as soon as it has read an answer: the maximum rate at
// that concurrency.
//
// The requests come from -url (repeatable) or from a -targets file in the plain HTTP format: a
// line "METHOD URL", its "Name: value" header lines, a blank line before the next request. -H
// headers are added to every request. The requests are sent in turn, round robin.
//
// The exit status is 0 when every measured answer had the -expect status, 1 when some did not
// (the run is invalid; the report says so), 2 when the run could not be made.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/statementmatch/service/internal/loadgen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		urls, headers listFlag
		targetsFile   = fs.String("targets", "", "file of requests in the plain HTTP format (METHOD URL, header lines, blank line); - reads stdin")
		method        = fs.String("method", http.MethodGet, "method of the -url requests")
		rate          = fs.Float64("rate", 0, "open loop: requests per second, sent on schedule whatever the answers")
		concurrency   = fs.Int("concurrency", 0, "closed loop: connections, each sending its next request when it has an answer")
		duration      = fs.Duration("duration", 10*time.Second, "measured duration")
		warmup        = fs.Duration("warmup", 2*time.Second, "warm-up before the measured duration: sent the same way, not recorded")
		timeout       = fs.Duration("timeout", 10*time.Second, "time-out of each request")
		expect        = fs.Int("expect", http.StatusOK, "status of a successful answer; any other answer is an error")
		maxInFlight   = fs.Int("max-in-flight", 10000, "open loop: most requests outstanding at once")
		asJSON        = fs.Bool("json", false, "print the result as one JSON object")
	)
	fs.Var(&urls, "url", "URL to request (repeatable)")
	fs.Var(&headers, "H", "header `Name: value` added to every request (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loadgen (-rate N | -concurrency N) [-duration D] (-url URL ... | -targets FILE) [-H 'Name: value' ...] [-json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "loadgen: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return fail("unexpected arguments %q", fs.Args())
	}
	if (*rate > 0) == (*concurrency > 0) {
		return fail("give exactly one of -rate (open loop) and -concurrency (closed loop), positive")
	}
	targets, err := readTargets(*targetsFile, urls, *method, stdin)
	if err != nil {
		return fail("%v", err)
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fail("-H %q: want Name: value", h)
		}
		for i := range targets {
			targets[i].Header.Add(textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(value))
		}
	}
	res, err := loadgen.Run(ctx, loadgen.Config{
		Targets: targets, Rate: *rate, Concurrency: *concurrency,
		Duration: *duration, Warmup: *warmup, Timeout: *timeout,
		ExpectStatus: *expect, MaxInFlight: *maxInFlight,
	})
	if res == nil {
		return fail("%v", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: stopped early: %v\n", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fail("%v", err)
		}
	} else if err := res.WriteText(stdout); err != nil {
		return fail("%v", err)
	}
	if !res.Valid() {
		return 1
	}
	return 0
}

func readTargets(file string, urls []string, method string, stdin io.Reader) ([]loadgen.Target, error) {
	if (file != "") == (len(urls) > 0) {
		return nil, errors.New("give either -url (one or more) or -targets")
	}
	if file == "" {
		targets := make([]loadgen.Target, len(urls))
		for i, raw := range urls {
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, fmt.Errorf("-url %q: want an http(s)://host/ URL", raw)
			}
			targets[i] = loadgen.Target{Method: method, URL: raw, Header: http.Header{}}
		}
		return targets, nil
	}
	r := stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	targets, err := loadgen.ParseTargets(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return targets, nil
}
