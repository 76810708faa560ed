package schedulerapp

import (
	"github.com/spf13/cobra"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

// Name is the scheduler name our profiles use and pods select with
// spec.schedulerName.
const Name = "dra-scheduler"

// RegistryOptions lists dra-scheduler's plugins for kube-scheduler's
// out-of-tree registry. Profiles enable them by name.
func RegistryOptions() []app.Option {
	return []app.Option{app.WithPlugin(draallocator.Name, draallocator.New)}
}

// NewCommand returns the dra-scheduler command: kube-scheduler's command with
// our plugins registered.
func NewCommand() *cobra.Command {
	cmd := app.NewSchedulerCommand(RegistryOptions()...)
	cmd.Use = Name
	return cmd
}
