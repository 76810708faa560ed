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
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/pkg/simulate"
)

// fitFlags are fit's own.
type fitFlags struct {
	schedulerFlags
	file                string
	replicatedJob       string
	count, limit        int
	examples            int
	ignoreNodeResources bool
}

func (s *fitFlags) register(cmd *cobra.Command) {
	s.schedulerFlags.register(cmd)
	f := cmd.Flags()
	f.StringVarP(&s.file, "filename", "f", "", "a file with the Pod to count copies of (or a Deployment, StatefulSet, Job or JobSet whose pods to count), and the ResourceClaimTemplates and ResourceClaims it needs that the cluster lacks; - is standard input")
	f.StringVar(&s.replicatedJob, "replicated-job", "", "with -f, the replicated job of the file's JobSet whose pods to count")
	f.IntVar(&s.count, "count", 1, "how many copies must fit for exit code 0")
	f.IntVar(&s.limit, "limit", 0, "stop counting once this many fit; 0: count them all")
	f.IntVar(&s.examples, "examples", 3, "how many nodes of each reason the next copy does not fit to show with their devices")
	f.BoolVar(&s.ignoreNodeResources, "ignore-node-resources", false, "count devices only: leave out pods per node, cpu, memory, ephemeral storage and hugepages")
}

// errTooFew is fit's answer when fewer than --count fit: exit code 1,
// after the report.
var errTooFew = &exitError{code: 1}

func newFitCommand(o *options) *cobra.Command {
	s := &fitFlags{}
	fit := &cobra.Command{
		Use:   "fit (pod NAME | -f FILE [--replicated-job NAME])",
		Short: "How many more of a pod fit now, on which nodes with which devices, and what stops the next one",
		Long: `fit places copies of a pod into a simulation of the cluster, one after another,
with dra-scheduler's own allocator, device selection policy, node checks (node
name, affinity and selector, cordons, taints, allocated claims' nodes) and
NodeResourcesFit's pods, cpu, memory, ephemeral storage and hugepages, until
none fits; each copy gets claims of its own from the pod's templates and the
specs of its pre-created claims (allocated claims are shared by every copy).
The file holds a Pod, or a Deployment, StatefulSet, Job or JobSet whose pod
template is each copy (a JobSet's replicated job named by --replicated-job).
It says how many fit, where, and what stops the next one, node by node
grouped by reason. The count is exact when every device is a node's own;
otherwise, and for checks it does not simulate, it says why not.

Exit code: 0 when at least --count fit, 1 when fewer, 2 on errors.`,
		Example: `  kubectl dra fit pod trainer-0 -n ml
  kubectl dra fit -f worker.yaml --count 16 -o json
  kubectl dra fit -f worker.yaml --from cluster.yaml
  kubectl get deployment web -n ml -o yaml | kubectl dra fit -f - --count 4
  kubectl dra fit -f jobset.yaml --replicated-job workers --count 16`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := s.run(cmd, o, args)
			switch {
			case errors.Is(err, errTooFew):
				cmd.SilenceErrors = true // the report said it
			case err != nil:
				return &exitError{code: 2, err: err}
			}
			return err
		},
	}
	s.register(fit)
	return fit
}

// run answers the question: reads the shape and the cluster, counts,
// writes the report.
func (s *fitFlags) run(cmd *cobra.Command, o *options, args []string) error {
	if err := o.checkOutput(); err != nil {
		return err
	}
	switch {
	case s.file == "" && (len(args) != 2 || args[0] != "pod"):
		return fmt.Errorf("want pod NAME or -f FILE")
	case s.file != "" && len(args) > 0:
		return fmt.Errorf("-f %s: no arguments besides it", s.file)
	case s.count < 0 || s.limit < 0 || s.examples < 0:
		return fmt.Errorf("--count, --limit and --examples: want 0 or more")
	}
	settings, err := s.settings(newFeatureGate())
	if err != nil {
		return err
	}
	settings.IgnoreNodeResources = s.ignoreNodeResources
	ns, err := o.resolveNamespace()
	if err != nil {
		return err
	}
	shape, what, objs, err := s.shape(cmd, o, ns, args)
	if err != nil {
		return err
	}
	simObjs, notes := explain.SimulationObjects(objs)
	snap := simulate.NewSnapshot(simObjs, settings)
	count, err := snap.Fork().Count(cmd.Context(), shape, simulate.CountOptions{Limit: s.limit, Examples: s.examples})
	if err != nil {
		return fmt.Errorf("fit %s: %w", what.copies(2), err)
	}
	report := newFitReport(what, shape, count, s.count, len(simObjs.Nodes), append(objs.Notes, notes...))
	if err := o.write(report, report.WriteText); err != nil {
		return err
	}
	if !report.Fits {
		return errTooFew
	}
	return nil
}
