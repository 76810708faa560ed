/*
Copyright 2026 The dra-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command dra-bench benchmarks dra-scheduler against upstream Kubernetes.
//
// Each subcommand lives in its own file and is listed in commands(): adding
// one is that file plus one line there.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

// command is one subcommand.
type command struct {
	// name is the word after dra-bench; summary a one-line description
	// for the command list.
	name, summary string
	// run parses args (everything after the name) and runs. A usageError
	// makes the exit code 2, an exitError its own code.
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists the subcommands in the order --help shows them.
func commands() []command {
	return []command{
		allocatorCommand(),
		schedulerCommand(),
		soakCommand(),
		compareCommand(),
	}
}

// usageError reports bad arguments (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitError ends the program with a specific code after its message.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and turns its error into an exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	case "-version", "--version", "version":
		fmt.Fprintln(stdout, version.String("dra-bench"))
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		var ue usageError
		var ee exitError
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "dra-bench %s: %v\nRun 'dra-bench %s --help' for usage.\n", c.name, err, c.name)
			return 2
		case errors.As(err, &ee):
			fmt.Fprintf(stderr, "dra-bench %s: %v\n", c.name, err)
			return ee.code
		default:
			fmt.Fprintf(stderr, "dra-bench %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "dra-bench: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `dra-bench measures dra-scheduler's DRA allocation against upstream Kubernetes.

Usage:
  dra-bench <command> [flags]

Commands:
`)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, `
Run 'dra-bench <command> --help' for a command's flags; 'dra-bench --version'
prints the version. See cmd/dra-bench/README.md.
`)
}

// withLogger returns ctx carrying a klog-formatted logger writing to w at
// the given verbosity, for contextual logging in the packages.
func withLogger(ctx context.Context, w io.Writer, verbosity int) context.Context {
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(verbosity), textlogger.Output(w)))
	return klog.NewContext(ctx, logger)
}
