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
	"slices"

	"github.com/spf13/cobra"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocatorfeatures"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/simulate"
)

// schedulerFlags are the scheduler settings explain and fit assume.
type schedulerFlags struct {
	featureGates string
	policy       string
	scoring      string
}

func (s *schedulerFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.featureGates, "feature-gates", "", "the scheduler's --feature-gates (key=value pairs, e.g. DRAConsumableCapacity=true); default: Kubernetes 1.37's defaults")
	f.StringVar(&s.policy, "policy", string(allocator.FirstFit), "the plugin's deviceSelectionPolicy: FirstFit or Packing")
	f.StringVar(&s.scoring, "scoring", simulate.ScoreFirstAvailable, "the plugin's scoringStrategy type: FirstAvailable, MostAllocated or LeastAllocated")
}

// settings turns the flags into the scheduler's settings.
func (s *schedulerFlags) settings(gates featuregate.MutableFeatureGate) (simulate.Settings, error) {
	if s.featureGates != "" {
		if err := gates.Set(s.featureGates); err != nil {
			return simulate.Settings{}, fmt.Errorf("--feature-gates: %w", err)
		}
	}
	fts := feature.NewSchedulerFeaturesFromGates(gates)
	// Answering for a scheduler that cannot run would answer for nobody.
	if err := allocatorfeatures.CheckSupported(fts); err != nil {
		return simulate.Settings{}, fmt.Errorf("--feature-gates: dra-scheduler would not start with these: %w", err)
	}
	policy := allocator.Policy(s.policy)
	if !slices.Contains(allocator.Policies, policy) {
		return simulate.Settings{}, fmt.Errorf("--policy %q: want FirstFit or Packing", s.policy)
	}
	switch s.scoring {
	case simulate.ScoreFirstAvailable, simulate.ScoreMostAllocated, simulate.ScoreLeastAllocated:
	default:
		return simulate.Settings{}, fmt.Errorf("--scoring %q: want FirstAvailable, MostAllocated or LeastAllocated", s.scoring)
	}
	return simulate.Settings{
		Features:        allocatorfeatures.FromScheduler(fts),
		PodGroupClaims:  fts.EnableDRAWorkloadResourceClaims,
		NodeAllocatable: fts.EnableDRANodeAllocatableResources,
		Policy:          policy,
		Scoring:         s.scoring,
		NodeChecks:      nodecheck.Features{TolerationComparisonOperators: fts.EnableTaintTolerationComparisonOperators},
		NodeResources:   nodeallocatable.Features{PodLevelResources: fts.EnablePodLevelResources},
	}, nil
}

// explainFlags are explain's own.
type explainFlags struct {
	schedulerFlags
	candidates int
	preemption string
}

func (s *explainFlags) register(cmd *cobra.Command) {
	s.schedulerFlags.register(cmd)
	f := cmd.Flags()
	f.IntVar(&s.candidates, "candidates", 5, "how many nodes where the pod fits to list with their devices")
	f.StringVar(&s.preemption, "preemption", "Enabled", "the plugin's preemption: Enabled (a pod that fits nowhere is told which pods preemption would evict, and where) or Disabled")
}

// settings turns the flags into explain's settings.
func (s *explainFlags) settings(gates featuregate.MutableFeatureGate) (explain.Settings, error) {
	sched, err := s.schedulerFlags.settings(gates)
	if err != nil {
		return explain.Settings{}, err
	}
	if s.preemption != "Enabled" && s.preemption != "Disabled" {
		return explain.Settings{}, fmt.Errorf("--preemption %q: want Enabled or Disabled", s.preemption)
	}
	if s.candidates < 1 {
		return explain.Settings{}, fmt.Errorf("--candidates %d: want at least 1", s.candidates)
	}
	return explain.Settings{
		Features:        sched.Features,
		PodGroupClaims:  sched.PodGroupClaims,
		NodeAllocatable: sched.NodeAllocatable,
		Policy:          sched.Policy,
		Scoring:         sched.Scoring,
		Candidates:      s.candidates,
		NodeChecks:      sched.NodeChecks,

		PreemptionDisabled: s.preemption == "Disabled",
	}, nil
}

func newExplainCommand(o *options) *cobra.Command {
	explainCmd := &cobra.Command{
		Use:   "explain",
		Short: "Explain DRA scheduling decisions",
	}
	s := &explainFlags{}
	pod := &cobra.Command{
		Use:   "pod NAME",
		Short: "Why a pod is pending and where it could run",
		Long: `For each of the pod's claims (a template's claim named as the resourceclaim
controller names it), every node grouped by reason, with the counts of each
request's devices (matching, allocated, tainted, counters or capacity used up,
usable); the best nodes with the devices the claims would get; and the same
question with nothing allocated, which tells "too big for any node" apart from
"all taken". A pod that fits on no node now but would with some devices given
back is told where DefaultPreemption would nominate it and which pods of lower
priority it would evict there (with their priorities and the claims they free),
chosen by DefaultPreemption's rules (PodDisruptionBudgets included).`,
		Example: `  kubectl dra explain pod trainer-0 -n ml
  kubectl dra explain pod trainer-0 -n ml -o json
  kubectl get nodes,pods,resourceslices,deviceclasses,resourceclaims,resourceclaimtemplates,poddisruptionbudgets -A -o yaml > cluster.yaml
  kubectl dra explain pod trainer-0 -n ml --from cluster.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.checkOutput(); err != nil {
				return err
			}
			settings, err := s.settings(newFeatureGate())
			if err != nil {
				return err
			}
			ns, err := o.resolveNamespace()
			if err != nil {
				return err
			}
			objs, err := o.objects(cmd.Context(), clusterstate.Query{Namespace: ns, Pod: args[0], Preemption: !settings.PreemptionDisabled})
			if err != nil {
				return err
			}
			c := explain.NewCluster(objs, settings)
			p, err := c.FindPod(ns, args[0])
			if err != nil {
				return fmt.Errorf("%w (the files given to --from must include it: kubectl get pod %s -n %s -o yaml)", err, args[0], ns)
			}
			report, err := c.Pod(cmd.Context(), p)
			if err != nil {
				return fmt.Errorf("explain pod %s/%s: %w", ns, args[0], err)
			}
			return o.write(report, report.WriteText)
		},
	}
	s.register(pod)
	explainCmd.AddCommand(pod)
	return explainCmd
}
