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

package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchchart"
	"github.com/dra-scheduler/dra-scheduler/pkg/benchcompare"
)

// report is what every subcommand prints: a table for people, JSON for
// machines.
type report interface {
	WriteTable(io.Writer) error
	WriteJSON(io.Writer) error
}

// Output formats of the measuring subcommands.
const (
	formatTable    = "table"
	formatJSON     = "json"
	formatBenchfmt = "benchfmt"
)

// checkFormat refuses an unknown --format.
func checkFormat(format string) error {
	switch format {
	case formatTable, formatJSON, formatBenchfmt:
		return nil
	}
	return fmt.Errorf("--format %q: want table, json or benchfmt", format)
}

// writeReport prints r on stdout as a table, as JSON or in the Go
// benchmark format (for benchstat), and writes its JSON to jsonOut when
// set.
func writeReport(r report, format, jsonOut string, stdout io.Writer) error {
	var err error
	switch format {
	case formatJSON:
		err = r.WriteJSON(stdout)
	case formatBenchfmt:
		err = writeBenchfmt(r, stdout)
	default:
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

// writeBenchfmt writes r's results in the Go benchmark format, read back
// from its JSON form as dra-bench compare reads it.
func writeBenchfmt(r report, w io.Writer) error {
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		return err
	}
	parsed, err := benchcompare.Parse(buf.Bytes())
	if err != nil {
		return err
	}
	return benchcompare.WriteBenchfmt(w, parsed)
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
