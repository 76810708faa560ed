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
