package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchchart"
)

// report is what every subcommand prints: a table for people, JSON for
// machines.
type report interface {
	WriteTable(io.Writer) error
	WriteJSON(io.Writer) error
}

// writeReport prints r on stdout as a table or, with format "json", as
// JSON, and writes its JSON to jsonOut when set.
func writeReport(r report, format, jsonOut string, stdout io.Writer) error {
	var err error
	if format == "json" {
		err = r.WriteJSON(stdout)
	} else {
		err = r.WriteTable(stdout)
	}
	if err != nil {
		return err
	}
	if jsonOut != "" {
		if err := writeFile(jsonOut, r.WriteJSON); err != nil {
			return fmt.Errorf("--json-out: %w", err)
		}
	}
	return nil
}

// writeChart writes fig as SVG to path and says so on stderr unless quiet.
func writeChart(path string, fig benchchart.Figure, quiet bool, stderr io.Writer) error {
	if err := writeFile(path, func(w io.Writer) error { return benchchart.WriteSVG(w, fig) }); err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	if !quiet {
		fmt.Fprintf(stderr, "dra-bench: wrote %s\n", path)
	}
	return nil
}

// writeFile creates path (and its directory) and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(out); err != nil {
		_ = out.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return out.Close()
}

// parseFlags parses a subcommand's arguments: --help passes through,
// other errors and positional arguments are usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	return nil
}
