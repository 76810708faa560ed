package kubectldra

import (
	"github.com/spf13/cobra"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceusage"
)

func newUsageCommand(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "usage",
		Short: "Devices per DeviceClass and per pool: total, allocated, shared, free; counters and shared capacity in use",
		Example: `  kubectl dra usage
  kubectl dra usage -o json
  kubectl dra usage --from cluster.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.checkOutput(); err != nil {
				return err
			}
			objs, err := o.objects(cmd.Context(), clusterstate.Query{})
			if err != nil {
				return err
			}
			report, err := deviceusage.Compute(cmd.Context(), objs)
			if err != nil {
				return err
			}
			return o.write(report, report.WriteText)
		},
	}
}
