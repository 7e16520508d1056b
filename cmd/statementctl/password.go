package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// passwordEnv holds the password of a protected PDF, for scripts: a value on the command line
// would be visible to every user of the machine in the process list.
const passwordEnv = "STATEMENT_PDF_PASSWORD"

// addPasswordFlag adds --password, which asks for the statement's password. It takes no value.
func addPasswordFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("password", false, "the statement is a PDF protected by a password: ask for it (typed without echo on a terminal, "+
		"otherwise one line read from stdin); "+passwordEnv+" gives it without asking")
}

// refusePasswordValue refuses --password=VALUE before the flags are parsed, so that the value
// is neither accepted nor repeated in the error.
func refusePasswordValue(args []string, cmd string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		if strings.HasPrefix(a, "--password=") || strings.HasPrefix(a, "-password=") {
			return &usageError{cmd: cmd, msg: "--password takes no value: type the password when asked, or set " + passwordEnv +
				" (a value on the command line is visible to every user of the machine)"}
		}
	}
	return nil
}

// password is the password to send with the statement: that of STATEMENT_PDF_PASSWORD, else
// asked for when ask is set, else none. Asked, it is read without echo from a terminal, or as
// one line from a piped stdin.
func (a *app) password(ask bool) (string, error) {
	if pw := a.getenv(passwordEnv); pw != "" {
		return pw, nil
	}
	if !ask {
		return "", nil
	}
	var pw string
	if a.stdinTerminal && a.readPassword != nil {
		fmt.Fprint(a.stderr, "Password of the statement: ")
		b, err := a.readPassword()
		fmt.Fprintln(a.stderr)
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		pw = string(b)
	} else {
		line, err := bufio.NewReader(a.stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read the password from stdin: %w", err)
		}
		pw = strings.TrimRight(line, "\r\n")
	}
	if pw == "" {
		return "", &usageError{msg: "--password: no password was given"}
	}
	return pw, nil
}
