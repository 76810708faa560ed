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

package schedulerapp

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

// Name is the scheduler name our profiles use and pods select with
// spec.schedulerName.
const Name = "dra-scheduler"

// RegistryOptions lists dra-scheduler's plugins for kube-scheduler's
// out-of-tree registry, for one scheduler. Profiles enable them by name.
func RegistryOptions(plugins draallocator.Options) []app.Option {
	return []app.Option{app.WithPlugin(draallocator.Name, draallocator.NewFactory(plugins))}
}

// NewCommand returns the dra-scheduler command: kube-scheduler's command with
// our plugins registered.
func NewCommand() *cobra.Command {
	cmd := app.NewSchedulerCommand(RegistryOptions(draallocator.Options{})...)
	cmd.Use = Name
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error { return explainStartupError(run(c, args)) }
	return cmd
}

// RunJSONArgs runs dra-scheduler's command with a JSON-encoded argument
// list and returns its exit code. Tests and dra-bench re-execute their own
// binary this way to run a scheduler as a separate process (its peak RSS
// measurable, and kube-scheduler's os.Exit on stop confined to it).
func RunJSONArgs(encoded string) int {
	var args []string
	if err := json.Unmarshal([]byte(encoded), &args); err != nil {
		fmt.Fprintf(os.Stderr, "dra-scheduler arguments %q: %v\n", encoded, err)
		return 2
	}
	cmd := NewCommand()
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
