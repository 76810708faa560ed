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
	"strings"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/simulate"
)

// shape reads the pod whose copies are counted, what it is (a pod, or a
// workload's pod template), and the cluster.
func (s *fitFlags) shape(cmd *cobra.Command, o *options, ns string, args []string) (simulate.Shape, fitShape, *clusterstate.Objects, error) {
	if s.file == "" {
		name := args[1]
		objs, err := o.objects(cmd.Context(), clusterstate.Query{Namespace: ns, Pod: name, BoundPods: true})
		if err != nil {
			return simulate.Shape{}, fitShape{}, nil, err
		}
		var pod *v1.Pod
		for _, p := range objs.Pods {
			if p.Namespace == ns && p.Name == name {
				pod = p
			}
		}
		if pod == nil {
			return simulate.Shape{}, fitShape{}, nil, fmt.Errorf("pod %s/%s is not in the input (the files given to --from must include it: kubectl get pod %s -n %s -o yaml)", ns, name, name, ns)
		}
		// A pending pod is the first copy; a bound one is counted
		// among the pods that hold their node already.
		return simulate.Shape{Pod: pod, Self: pod.Spec.NodeName == ""}, podShape(pod), objs, nil
	}
	kinds := append([]string{clusterstate.KindPod, clusterstate.KindResourceClaimTemplate, clusterstate.KindResourceClaim}, clusterstate.WorkloadKinds...)
	file := &clusterstate.Objects{Kinds: kinds}
	if err := file.ReadFiles(o.stdin, s.file); err != nil {
		return simulate.Shape{}, fitShape{}, nil, err
	}
	pod, workload, err := s.filePod(file)
	if err != nil {
		return simulate.Shape{}, fitShape{}, nil, err
	}
	if pod.Namespace == "" {
		pod.Namespace = ns
	}
	what := podShape(pod)
	if workload != nil {
		what = fitShape{Kind: workload.Kind, Name: pod.Namespace + "/" + workload.Name, ReplicatedJob: workload.ReplicatedJob}
	}
	pod.Spec.NodeName = "" // a copy is placed anew
	for _, obj := range file.Templates {
		if obj.Namespace == "" {
			obj.Namespace = pod.Namespace
		}
	}
	for _, obj := range file.Claims {
		if obj.Namespace == "" {
			obj.Namespace = pod.Namespace
		}
	}
	objs, err := o.objects(cmd.Context(), clusterstate.Query{Namespace: pod.Namespace, BoundPods: true, Templates: true})
	if err != nil {
		return simulate.Shape{}, fitShape{}, nil, err
	}
	objs.Notes = append(objs.Notes, file.Notes...)
	return simulate.Shape{Pod: pod, Templates: file.Templates, Claims: file.Claims}, what, objs, nil
}

// filePod returns a copy of the one Pod of the file, or a pod made from
// the pod template of its one workload (Deployment, StatefulSet, Job, or
// the JobSet's replicated job --replicated-job names) and that workload.
func (s *fitFlags) filePod(file *clusterstate.Objects) (*v1.Pod, *clusterstate.Workload, error) {
	workloads := file.Workloads
	if s.replicatedJob != "" {
		var named []clusterstate.Workload
		for _, w := range workloads {
			if w.Kind == clusterstate.KindJobSet && w.ReplicatedJob == s.replicatedJob {
				named = append(named, w)
			}
		}
		if len(named) == 0 {
			return nil, nil, fmt.Errorf("-f %s: no JobSet has a replicated job %q (%s)", s.file, s.replicatedJob, describeWorkloads(workloads))
		}
		workloads = named
	}
	switch {
	case len(file.Pods)+len(workloads) == 0:
		return nil, nil, fmt.Errorf("-f %s: no Pod, Deployment, StatefulSet, Job or JobSet in it", s.file)
	case len(file.Pods)+len(workloads) > 1:
		return nil, nil, fmt.Errorf("-f %s: want one Pod or workload, found %d pods and %s; a JobSet's replicated job is chosen with --replicated-job",
			s.file, len(file.Pods), describeWorkloads(workloads))
	case len(file.Pods) == 1:
		return file.Pods[0].DeepCopy(), nil, nil
	}
	return workloadPod(workloads[0]), &workloads[0], nil
}

// podShape names a pod as the shape.
func podShape(pod *v1.Pod) fitShape {
	return fitShape{Kind: "Pod", Name: pod.Namespace + "/" + pod.Name}
}

// workloadPod is a pod as the workload's controller creates it: its pod
// template, named after the workload (and a JobSet's replicated job).
func workloadPod(w clusterstate.Workload) *v1.Pod {
	pod := &v1.Pod{ObjectMeta: *w.Template.ObjectMeta.DeepCopy(), Spec: *w.Template.Spec.DeepCopy()}
	pod.Namespace, pod.Name = w.Namespace, w.Name
	if w.ReplicatedJob != "" {
		pod.Name += "-" + w.ReplicatedJob
	}
	return pod
}

// describeWorkloads lists workloads for a message.
func describeWorkloads(workloads []clusterstate.Workload) string {
	if len(workloads) == 0 {
		return "no workload"
	}
	names := make([]string, len(workloads))
	for i, w := range workloads {
		names[i] = w.String()
	}
	return strings.Join(names, ", ")
}
