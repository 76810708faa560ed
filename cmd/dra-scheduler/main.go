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

// Command dra-scheduler is kube-scheduler with dra-scheduler's plugins
// registered. Every kube-scheduler flag and KubeSchedulerConfiguration field
// works unchanged; profiles enable our plugins by name.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // JSON log format, as in kube-scheduler
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

func main() {
	cmd := schedulerapp.NewCommand()
	runE := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		// kube-scheduler would print "Kubernetes <version>"; name ourselves
		// and the release we embed instead.
		if f := c.Flags().Lookup("version"); f != nil && f.Value.String() != "false" {
			fmt.Fprintln(c.OutOrStdout(), version.String("dra-scheduler"))
			os.Exit(0)
		}
		return runE(c, args)
	}
	os.Exit(cli.Run(cmd))
}
