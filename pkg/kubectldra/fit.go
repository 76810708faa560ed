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
	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/pkg/simulate"
)

// fitFlags are fit's own.
type fitFlags struct {
	schedulerFlags
	file                string
	count, limit        int
	examples            int
	ignoreNodeResources bool
}

func (s *fitFlags) register(cmd *cobra.Command) {
	s.schedulerFlags.register(cmd)
	f := cmd.Flags()
	f.StringVarP(&s.file, "filename", "f", "", "a file with the Pod to count copies of, and the ResourceClaimTemplates and ResourceClaims it needs that the cluster lacks; - is standard input")
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
		Use:   "fit (pod NAME | -f FILE)",
		Short: "How many more of a pod fit now, on which nodes with which devices, and what stops the next one",
		Long: `fit places copies of a pod into a simulation of the cluster, one after another,
with dra-scheduler's own allocator, device selection policy, node checks (node
name, affinity and selector, cordons, taints, allocated claims' nodes) and
NodeResourcesFit's pods, cpu, memory, ephemeral storage and hugepages, until
none fits; each copy gets claims of its own from the pod's templates and the
specs of its pre-created claims (allocated claims are shared by every copy).
It says how many fit, where, and what stops the next one, node by node
grouped by reason. The count is exact when every device is a node's own;
otherwise, and for checks it does not simulate, it says why not.

Exit code: 0 when at least --count fit, 1 when fewer, 2 on errors.`,
		Example: `  kubectl dra fit pod trainer-0 -n ml
  kubectl dra fit -f worker.yaml --count 16 -o json
  kubectl dra fit -f worker.yaml --from cluster.yaml`,
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
	shape, objs, err := s.shape(cmd, o, ns, args)
	if err != nil {
		return err
	}
	simObjs, notes := explain.SimulationObjects(objs)
	snap := simulate.NewSnapshot(simObjs, settings)
	count, err := snap.Fork().Count(cmd.Context(), shape, simulate.CountOptions{Limit: s.limit, Examples: s.examples})
	if err != nil {
		return fmt.Errorf("fit pod %s/%s: %w", shape.Pod.Namespace, shape.Pod.Name, err)
	}
	report := newFitReport(shape, count, s.count, len(simObjs.Nodes), append(objs.Notes, notes...))
	if err := o.write(report, report.WriteText); err != nil {
		return err
	}
	if !report.Fits {
		return errTooFew
	}
	return nil
}

// shape reads the pod whose copies are counted and the cluster.
func (s *fitFlags) shape(cmd *cobra.Command, o *options, ns string, args []string) (simulate.Shape, *clusterstate.Objects, error) {
	if s.file == "" {
		name := args[1]
		objs, err := o.objects(cmd.Context(), clusterstate.Query{Namespace: ns, Pod: name, BoundPods: true})
		if err != nil {
			return simulate.Shape{}, nil, err
		}
		var pod *v1.Pod
		for _, p := range objs.Pods {
			if p.Namespace == ns && p.Name == name {
				pod = p
			}
		}
		if pod == nil {
			return simulate.Shape{}, nil, fmt.Errorf("pod %s/%s is not in the input (the files given to --from must include it: kubectl get pod %s -n %s -o yaml)", ns, name, name, ns)
		}
		// A pending pod is the first copy; a bound one is counted
		// among the pods that hold their node already.
		return simulate.Shape{Pod: pod, Self: pod.Spec.NodeName == ""}, objs, nil
	}
	file := &clusterstate.Objects{Kinds: []string{clusterstate.KindPod, clusterstate.KindResourceClaimTemplate, clusterstate.KindResourceClaim}}
	if err := file.ReadFiles(o.stdin, s.file); err != nil {
		return simulate.Shape{}, nil, err
	}
	if len(file.Pods) != 1 {
		return simulate.Shape{}, nil, fmt.Errorf("-f %s: want exactly one Pod, found %d", s.file, len(file.Pods))
	}
	pod := file.Pods[0].DeepCopy()
	if pod.Namespace == "" {
		pod.Namespace = ns
	}
	pod.Spec.NodeName = "" // a copy is placed anew
	for _, obj := range file.Templates {
		if obj.Namespace == "" {
			obj.Namespace = ns
		}
	}
	for _, obj := range file.Claims {
		if obj.Namespace == "" {
			obj.Namespace = ns
		}
	}
	objs, err := o.objects(cmd.Context(), clusterstate.Query{Namespace: pod.Namespace, BoundPods: true, Templates: true})
	if err != nil {
		return simulate.Shape{}, nil, err
	}
	objs.Notes = append(objs.Notes, file.Notes...)
	return simulate.Shape{Pod: pod, Templates: file.Templates, Claims: file.Claims}, objs, nil
}
