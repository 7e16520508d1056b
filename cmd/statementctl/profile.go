package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Saved profiles (statementctl login): addresses and credentials in a file of the user's
// (mode 0600), used when neither a flag nor an environment variable gives a setting.
const (
	envProfile = "STATEMENT_PROFILE"
	envConfig  = "STATEMENT_CONFIG"
	// defaultProfile is used when no profile is named; it may not exist.
	defaultProfile = "default"
)

// profile is one saved set of settings.
type profile struct {
	name           string
	BaseURL        string `json:"base_url,omitempty"`
	SandboxBaseURL string `json:"sandbox_base_url,omitempty"`
	ParseBaseURL   string `json:"parse_base_url,omitempty"`
	ClientID       string `json:"client_id,omitempty"`
	ClientSecret   string `json:"client_secret,omitempty"`
	APIKey         string `json:"api_key,omitempty"`
}

// configFile is the file the profiles are saved in.
type configFile struct {
	Profiles map[string]profile `json:"profiles"`
}

// addProfileFlag registers --profile.
func addProfileFlag(fs *flag.FlagSet) {
	fs.String("profile", "", "saved `profile` to take settings from (statementctl login); default $"+envProfile+", else \""+defaultProfile+"\" when saved")
}

// configPath is where the profiles are saved: $STATEMENT_CONFIG, else statementctl/config.json
// in the user's configuration directory ($XDG_CONFIG_HOME or ~/.config on Linux).
func (a *app) configPath() (string, error) {
	if p := a.getenv(envConfig); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", usagef("no configuration directory for the profiles (%v): set %s", err, envConfig)
	}
	return filepath.Join(dir, "statementctl", "config.json"), nil
}

// readConfig reads the profiles; a missing file has none. A file that others may read is
// refused: it holds secrets.
func (a *app) readConfig() (configFile, string, error) {
	path, err := a.configPath()
	if err != nil {
		return configFile{}, "", err
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return configFile{Profiles: map[string]profile{}}, path, nil
	}
	if err != nil {
		return configFile{}, path, usagef("cannot read the profiles: %v", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return configFile{}, path, usagef("%s holds secrets but others may read it (mode %04o): run chmod 600 %s", path, info.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return configFile{}, path, usagef("cannot read the profiles: %v", err)
	}
	var cfg configFile
	if err := json.Unmarshal(data, &cfg); err != nil {
		return configFile{}, path, usagef("%s is not a statementctl profile file: %v", path, err)
	}
	if cfg.Profiles == nil {
		cfg.Profiles = map[string]profile{}
	}
	return cfg, path, nil
}

// profileName is the profile a command names: --profile, else $STATEMENT_PROFILE, else the
// default; named reports whether it was asked for (so that a missing one is an error).
func (a *app) profileName(fs *flag.FlagSet) (name string, named bool) {
	if f := fs.Lookup("profile"); f != nil && given(fs, "profile") {
		return f.Value.String(), true
	}
	if v := a.getenv(envProfile); v != "" {
		return v, true
	}
	return defaultProfile, false
}

// profileOf returns the profile the command uses (empty when none is saved and none named).
func (a *app) profileOf(fs *flag.FlagSet) (profile, error) {
	name, named := a.profileName(fs)
	cfg, path, err := a.readConfig()
	if err != nil {
		// Even with no profile named: the default one may hold the settings the user expects.
		return profile{}, err
	}
	p, ok := cfg.Profiles[name]
	if !ok {
		if named {
			return profile{}, usagef("no profile %q in %s: save it with statementctl login --profile %s", name, path, name)
		}
		return profile{}, nil
	}
	p.name = name
	return p, nil
}

// fromProfile completes a setting read from a flag or the environment: value when it has
// one, else the profile's saved value, else def.
func fromProfile(value, source string, p profile, saved, def string) (string, string) {
	switch {
	case value != "":
		return value, source
	case saved != "":
		return saved, "profile " + p.name
	}
	return def, "the default"
}

// cmdLogin saves a profile: the base URLs and credentials given by flags or the environment,
// asked for on a terminal when none are given, checked against the APIs first.
func (a *app) cmdLogin(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	fs.String("profile", "", "the `name` to save the profile as; default $"+envProfile+", else "+defaultProfile)
	fs.String("base-url", "", "Reconciliation API production base `URL`; default $"+envBaseURL)
	fs.String("sandbox-base-url", "", "Reconciliation API sandbox base `URL`")
	fs.String("parse-base-url", "", "Parsing API base `URL`; default $"+envParseBaseURL)
	fs.String("client-id", "", "API client `id`; default $"+envClientID)
	fs.String("client-secret", "", "API client `secret`; default $"+envClientSecret+" (asked for on a terminal)")
	fs.String("api-key", "", "Parsing API `key`; default $"+envAPIKey+" (asked for on a terminal)")
	noVerify := fs.Bool("no-verify", false, "save without checking the credentials against the APIs")
	fs.Bool("verbose", false, "trace each HTTP request and response on stderr (credentials masked)")
	if _, err := a.parseArgs(fs, cmd, args, 0, 0); err != nil {
		return err
	}
	name, _ := a.profileName(fs)
	p := profile{name: name}
	p.BaseURL, _ = setting(fs, "base-url", a.getenv, envBaseURL, "")
	p.SandboxBaseURL, _ = setting(fs, "sandbox-base-url", func(string) string { return "" }, "", "")
	p.ParseBaseURL, _ = setting(fs, "parse-base-url", a.getenv, envParseBaseURL, "")
	p.ClientID, _ = setting(fs, "client-id", a.getenv, envClientID, "")
	p.ClientSecret, _ = setting(fs, "client-secret", a.getenv, envClientSecret, "")
	p.APIKey, _ = setting(fs, "api-key", a.getenv, envAPIKey, "")
	if err := a.askMissing(&p); err != nil {
		return err
	}
	if p.ClientID == "" && p.APIKey == "" {
		return &usageError{msg: "nothing to save: give --client-id and --client-secret, --api-key, or their environment variables", cmd: cmd.name}
	}
	if (p.ClientID == "") != (p.ClientSecret == "") {
		return &usageError{msg: "a client id needs its secret, and a secret its id", cmd: cmd.name}
	}
	for _, u := range []struct {
		value *string
		flag  string
	}{{&p.BaseURL, "base-url"}, {&p.SandboxBaseURL, "sandbox-base-url"}, {&p.ParseBaseURL, "parse-base-url"}} {
		if *u.value == "" {
			continue
		}
		var err error
		if *u.value, err = normalizeBaseURL(*u.value, "--"+u.flag+" (or its variable)"); err != nil {
			return err
		}
	}
	verbose := fs.Lookup("verbose").Value.String() == "true"
	if !*noVerify {
		if err := a.verifyProfile(ctx, p, verbose); err != nil {
			return err
		}
	}
	path, err := a.saveProfile(p)
	if err != nil {
		return err
	}
	var what []string
	if p.ClientID != "" {
		what = append(what, "API client "+p.ClientID)
	}
	if p.APIKey != "" {
		what = append(what, "API key "+maskKey(p.APIKey))
	}
	fmt.Fprintf(a.stdout, "saved profile %s (%s) in %s\n", name, strings.Join(what, ", "), path)
	return nil
}

// askMissing asks on a terminal for the credentials that were not given: all of them when
// none were, or the secret of a given client id.
func (a *app) askMissing(p *profile) error {
	if !a.stdinTerminal || a.readPassword == nil {
		return nil
	}
	in := bufio.NewReader(a.stdin)
	line := func(prompt string) (string, error) {
		fmt.Fprint(a.stderr, prompt)
		s, err := in.ReadString('\n')
		if err != nil && s == "" {
			return "", fmt.Errorf("read %s: %w", strings.TrimSuffix(prompt, ": "), err)
		}
		return strings.TrimSpace(s), nil
	}
	secret := func(prompt string) (string, error) {
		fmt.Fprint(a.stderr, prompt)
		b, err := a.readPassword()
		fmt.Fprintln(a.stderr)
		return strings.TrimSpace(string(b)), err
	}
	var err error
	none := p.ClientID == "" && p.APIKey == ""
	if none {
		if p.ClientID, err = line("Reconciliation API client id (empty for none): "); err != nil {
			return err
		}
	}
	if p.ClientID != "" && p.ClientSecret == "" {
		if p.ClientSecret, err = secret("Client secret: "); err != nil {
			return err
		}
	}
	if none {
		if p.APIKey, err = secret("Parsing API key (empty for none): "); err != nil {
			return err
		}
	}
	return nil
}

// verifyProfile checks the profile's credentials: a token and the limits for the API client,
// the status for the API key.
func (a *app) verifyProfile(ctx context.Context, p profile, verbose bool) error {
	if p.ClientID != "" {
		base := p.BaseURL
		if base == "" {
			base = defaultReconURL
		}
		c, err := a.reconClient(reconSettings{BaseURL: base, ClientID: p.ClientID, ClientSecret: p.ClientSecret, Verbose: verbose})
		if err != nil {
			return err
		}
		if _, err := c.GetLimits(ctx); err != nil {
			return fmt.Errorf("the API client does not work at %s (nothing saved; --no-verify saves anyway): %w", base, err)
		}
	}
	if p.APIKey != "" {
		base := p.ParseBaseURL
		if base == "" {
			base = defaultParseURL
		}
		c, err := a.parseClient(parseSettings{BaseURL: base, APIKey: p.APIKey, Verbose: verbose})
		if err != nil {
			return err
		}
		if _, err := c.GetStatus(ctx); err != nil {
			return fmt.Errorf("the API key does not work at %s (nothing saved; --no-verify saves anyway): %w", base, err)
		}
	}
	return nil
}

// saveProfile writes p into the profile file, replacing a profile of its name, through a
// temporary file renamed into place; the file is 0600 and a new directory 0700.
func (a *app) saveProfile(p profile) (string, error) {
	cfg, path, err := a.readConfig()
	if err != nil {
		return path, err
	}
	cfg.Profiles[p.name] = p
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return path, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return path, fmt.Errorf("save the profile: %w", err)
	}
	if _, err := writeFile(path, strings.NewReader(string(data)+"\n")); err != nil {
		return path, fmt.Errorf("save the profile: %w", err)
	}
	return path, nil
}

// maskKey shows a key's prefix and its last 4 characters.
func maskKey(k string) string {
	if len(k) <= 12 {
		return "****"
	}
	prefix, _, _ := strings.Cut(k, "_")
	return prefix + "_****" + k[len(k)-4:]
}
