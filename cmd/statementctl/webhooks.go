package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

// cmdWebhooksAdd registers a webhook endpoint and prints it with the account's signing secret.
func (a *app) cmdWebhooksAdd(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addParseFlags(fs)
	asJSON := fs.Bool("json", false, "print the endpoint, signing secret included, as JSON")
	events := fs.String("events", "", "comma-separated event `types` to receive (job.created, job.completed, job.review, job.failed, usage.threshold); default all")
	description := fs.String("description", "", "your own `note` about the endpoint")
	pos, err := a.parseArgs(fs, cmd, args, 1, 1)
	if err != nil {
		return err
	}
	body := parseclient.CreateWebhookJSONRequestBody{Url: pos[0]}
	if list := splitList(*events); len(list) > 0 {
		types := make([]parseclient.WebhookEventType, len(list))
		for i, e := range list {
			types[i] = parseclient.WebhookEventType(e)
		}
		body.Events = &types
	}
	if *description != "" {
		body.Description = description
	}
	c, err := a.parseClientOf(fs)
	if err != nil {
		return err
	}
	r, err := c.Raw.CreateWebhookWithResponse(ctx, nil, body)
	if err != nil {
		return err
	}
	if err := parseOK(r.HTTPResponse, r.Body, r.JSON201 != nil); err != nil {
		return err
	}
	w := r.JSON201.Data
	if *asJSON {
		return printJSON(a.stdout, w)
	}
	if err := printFields(a.stdout, [][2]string{
		{"id", w.Id.String()},
		{"url", w.Url},
		{"events", eventList(w.Events)},
		{"description", orDash(w.Description)},
		{"enabled", enabled(w.Enabled, w.DisabledReason)},
		{"signing secret", w.SigningSecret},
	}); err != nil {
		return err
	}
	fmt.Fprintln(a.stderr, "Keep the signing secret: receivers check every delivery with it (see 'statementctl verify-webhook -h').")
	return nil
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func eventList(events []parseclient.WebhookEventType) string {
	if len(events) == 0 {
		return "all"
	}
	names := make([]string, len(events))
	for i, e := range events {
		names[i] = string(e)
	}
	return strings.Join(names, ",")
}

func enabled(on bool, reason *string) string {
	if on {
		return "yes"
	}
	if reason != nil && *reason != "" {
		return "no: " + *reason
	}
	return "no"
}

// cmdWebhooksList prints the account's webhook endpoints, oldest first.
func (a *app) cmdWebhooksList(ctx context.Context, cmd command, args []string) error {
	c, asJSON, err := a.jsonOnlyParseCommand(cmd, args, "print the endpoints as a JSON array")
	if err != nil {
		return err
	}
	r, err := c.Raw.ListWebhooksWithResponse(ctx)
	if err != nil {
		return err
	}
	if err := parseOK(r.HTTPResponse, r.Body, r.JSON200 != nil); err != nil {
		return err
	}
	hooks := r.JSON200.Data.Webhooks
	if asJSON {
		if hooks == nil {
			hooks = []parseclient.WebhookEndpoint{}
		}
		return printJSON(a.stdout, hooks)
	}
	tw := newTable(a.stdout)
	row(tw, "ID", "ENABLED", "EVENTS", "URL", "DESCRIPTION")
	for _, w := range hooks {
		row(tw, w.Id.String(), enabled(w.Enabled, w.DisabledReason), eventList(w.Events), w.Url, orDash(w.Description))
	}
	return tw.Flush()
}

// cmdWebhooksRm deletes a webhook endpoint.
func (a *app) cmdWebhooksRm(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addParseFlags(fs)
	id, err := a.parseIDArg(fs, cmd, args)
	if err != nil {
		return err
	}
	c, err := a.parseClientOf(fs)
	if err != nil {
		return err
	}
	r, err := c.Raw.DeleteWebhookWithResponse(ctx, id)
	if err != nil {
		return err
	}
	if err := parseclient.Check(r.HTTPResponse, r.Body); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "deleted webhook %s\n", id)
	return nil
}

// cmdWebhooksTest sends a signed sample event now and prints each delivery's outcome; a
// delivery that did not succeed makes the exit code 4.
func (a *app) cmdWebhooksTest(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addParseFlags(fs)
	asJSON := fs.Bool("json", false, "print the outcome as JSON")
	event := fs.String("event", "", "event `type` of the sample; default job.completed")
	pos, err := a.parseArgs(fs, cmd, args, 0, 1)
	if err != nil {
		return err
	}
	var body parseclient.TestWebhookJSONRequestBody
	if len(pos) == 1 {
		id, err := parseID(cmd, pos[0])
		if err != nil {
			return err
		}
		body.WebhookId = &id
	}
	if *event != "" {
		e := parseclient.WebhookEventType(*event)
		body.Event = &e
	}
	c, err := a.parseClientOf(fs)
	if err != nil {
		return err
	}
	r, err := c.Raw.TestWebhookWithResponse(ctx, body)
	if err != nil {
		return err
	}
	if err := parseOK(r.HTTPResponse, r.Body, r.JSON200 != nil); err != nil {
		return err
	}
	res := r.JSON200.Data
	if *asJSON {
		err = printJSON(a.stdout, res)
	} else {
		err = printTestDeliveries(a.stdout, res)
	}
	if err != nil {
		return err
	}
	if len(res.Deliveries) == 0 {
		fmt.Fprintln(a.stderr, "no enabled webhook endpoint: nothing was sent")
	}
	failed := 0
	for _, d := range res.Deliveries {
		if !d.Success {
			failed++
		}
	}
	if failed > 0 {
		return &outcomeError{msg: fmt.Sprintf("%d of %s did not succeed", failed, plural(len(res.Deliveries), "test delivery"))}
	}
	return nil
}

// printTestDeliveries writes a table of the test deliveries' outcomes.
func printTestDeliveries(w io.Writer, res parseclient.WebhookTestResult) error {
	tw := newTable(w)
	row(tw, "WEBHOOK", "URL", "EVENT", "RESULT", "STATUS", "TIME", "ERROR")
	for _, d := range res.Deliveries {
		result, status := "ok", "-"
		if !d.Success {
			result = "failed"
		}
		if d.StatusCode != nil {
			status = fmt.Sprint(*d.StatusCode)
		}
		row(tw, d.WebhookId.String(), d.Url, string(res.Event), result, status, fmt.Sprintf("%d ms", d.DurationMs), orDash(d.Error))
	}
	return tw.Flush()
}

// cmdWebhooksDeliveries prints the deliveries to an endpoint, newest first.
func (a *app) cmdWebhooksDeliveries(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addParseFlags(fs)
	asJSON := fs.Bool("json", false, "print the deliveries, with every attempt, as a JSON array")
	limit := fs.Int("limit", 20, "show at most `N` deliveries; 0 shows all")
	id, err := a.parseIDArg(fs, cmd, args)
	if err != nil {
		return err
	}
	if *limit < 0 {
		return &usageError{msg: "--limit must not be negative", cmd: cmd.name}
	}
	c, err := a.parseClientOf(fs)
	if err != nil {
		return err
	}
	deliveries := take(c.AllWebhookDeliveries(ctx, id), *limit)
	if *asJSON {
		_, err := printJSONSeq(a.stdout, deliveries)
		return err
	}
	tw := newTable(a.stdout)
	row(tw, "DELIVERY", "EVENT", "STATUS", "ATTEMPTS", "CREATED", "LAST ATTEMPT")
	for d, err := range deliveries {
		if err != nil {
			_ = tw.Flush()
			return err
		}
		row(tw, d.Id.String(), string(d.Event), string(d.Status), fmt.Sprint(d.AttemptsCount), timeOrDash(&d.CreatedAt), lastAttempt(d.Attempts))
	}
	return tw.Flush()
}

// lastAttempt summarises the latest of a delivery's attempts: "204 in 3 ms", or its error.
func lastAttempt(attempts []parseclient.WebhookDeliveryAttempt) string {
	if len(attempts) == 0 {
		return "-"
	}
	last := attempts[0]
	for _, at := range attempts[1:] {
		if at.Attempt > last.Attempt {
			last = at
		}
	}
	s := ""
	if last.StatusCode != nil {
		s = fmt.Sprintf("%d in %d ms", *last.StatusCode, last.DurationMs)
	}
	if last.Error != nil && *last.Error != "" {
		s = strings.TrimSpace(s + " " + *last.Error)
	}
	if s == "" {
		return "-"
	}
	return s
}

// headerFlag collects repeated --header 'Name: value' flags.
type headerFlag struct{ h http.Header }

func (f *headerFlag) String() string { return "" }

func (f *headerFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("%q is not 'Name: value'", s)
	}
	f.h.Add(name, strings.TrimSpace(value))
	return nil
}

// cmdVerifyWebhook checks a webhook delivery's signature offline, as a receiver would: exit 0
// when it is valid, 5 with the reason when not.
func (a *app) cmdVerifyWebhook(_ context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	fs.String("secret", "", "the account's signing `secret` (whsec_...); default $"+envWebhookSecret)
	headers := &headerFlag{h: http.Header{}}
	fs.Var(headers, "header", "a header of the delivery, as `'Name: value'`; repeat it for X-Service-Signature and X-Service-Timestamp, or webhook-id, webhook-timestamp and webhook-signature (or all)")
	bodyFile := fs.String("body-file", "", "read the body from `FILE` instead of stdin; either way the raw bytes as received (printf '%s', not echo, adds no newline)")
	tolerance := fs.Duration("tolerance", parseclient.DefaultWebhookTolerance, "accept a signature timestamp at most this `duration` from now")
	if _, err := a.parseArgs(fs, cmd, args, 0, 0); err != nil {
		return err
	}
	secret, _ := setting(fs, "secret", a.getenv, envWebhookSecret, "")
	switch {
	case secret == "":
		return usagef("no signing secret: pass --secret or set %s", envWebhookSecret)
	case len(headers.h) == 0:
		return &usageError{msg: "no headers: pass the delivery's signature headers with --header 'Name: value'", cmd: cmd.name}
	case *tolerance <= 0:
		return &usageError{msg: "--tolerance must be positive", cmd: cmd.name}
	}
	body, err := a.webhookBody(*bodyFile)
	if err != nil {
		return err
	}
	if _, err := parseclient.VerifyWebhook(secret, headers.h, body, *tolerance); err != nil {
		return &signatureError{err: err}
	}
	id := headers.h.Get("X-Service-Delivery-Id")
	if id == "" {
		id = headers.h.Get("webhook-id")
	}
	if id == "" {
		fmt.Fprintln(a.stdout, "valid")
	} else {
		fmt.Fprintf(a.stdout, "valid: delivery %s\n", id)
	}
	return nil
}

// webhookBody reads the delivery's raw body from path, or from stdin when path is empty.
func (a *app) webhookBody(path string) ([]byte, error) {
	if path != "" {
		body, err := os.ReadFile(path)
		if err != nil {
			return nil, usagef("cannot read the body: %v", err)
		}
		return body, nil
	}
	if a.stdinTerminal {
		return nil, usagef("no body: pipe the delivery's raw body on stdin or pass --body-file")
	}
	body, err := io.ReadAll(a.stdin)
	if err != nil {
		return nil, usagef("cannot read the body from stdin: %v", err)
	}
	return body, nil
}
