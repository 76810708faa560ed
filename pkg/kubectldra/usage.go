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
