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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchcompare"
)

func compareCommand() command {
	return command{
		name:    "compare",
		summary: "two JSON reports side by side: medians, new/old, and a Mann-Whitney p-value where --count gave repeated samples",
		run:     runCompare,
	}
}

func runCompare(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dra-bench compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: dra-bench compare OLD.json NEW.json

Compares two reports of dra-bench allocator or scheduler (--format json or
--json-out) benchmark by benchmark: the median of each metric in both, the
ratio new/old and the change, marked better or worse. Where both reports have
at least 4 results of a benchmark (--count 4 or more), the change carries the
p-value of a Mann-Whitney U test and reads "~" when p >= 0.05: not
significant. Both reports' builds and machines are printed first: compare
runs of one machine, made one after the other.
`)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() != 2 {
		return usageError{errors.New("want two reports: OLD.json NEW.json")}
	}
	old, err := benchcompare.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	new, err := benchcompare.ReadFile(fs.Arg(1))
	if err != nil {
		return err
	}
	if old.Tool != new.Tool {
		return usageError{fmt.Errorf("%s is a %q report, %s a %q one: compare reports of one subcommand", fs.Arg(0), old.Tool, fs.Arg(1), new.Tool)}
	}
	return benchcompare.WriteTable(stdout, old, new, benchcompare.Compare(old, new))
}
