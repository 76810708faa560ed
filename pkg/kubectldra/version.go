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

package kubectldra

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

// programName is how the plugin names itself in its version line.
const programName = "kubectl-dra"

// newVersionCommand is `kubectl dra version`: the same line as
// `kubectl dra --version`, for users who expect a subcommand as kubectl
// has.
func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version, git commit and the Kubernetes release it embeds",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(c.OutOrStdout(), version.String(programName))
			return err
		},
	}
}
