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

package clusterstate

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
)

// Kinds of the workloads whose pod template is read (kubectl dra fit -f).
const (
	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
	KindJob         = "Job"
	// KindJobSet is read as jobset.x-k8s.io/v1alpha2, without the JobSet
	// module: its name, namespace and each replicated job's pod template.
	KindJobSet = "JobSet"
)

// WorkloadKinds are the kinds of workloads Objects reads.
var WorkloadKinds = []string{KindDeployment, KindStatefulSet, KindJob, KindJobSet}

// Workload is the pod template of a Deployment, StatefulSet or Job, or of
// one replicated job of a JobSet: the shape of the pods it creates.
type Workload struct {
	Kind, Namespace, Name string
	// ReplicatedJob names a JobSet's replicated job; "" for other kinds.
	ReplicatedJob string
	Template      v1.PodTemplateSpec
}

// String names the workload as kubectl does: "deployment ml/train",
// "jobset ml/train (replicated job workers)".
func (w Workload) String() string {
	s := fmt.Sprintf("%s %s/%s", w.Kind, w.Namespace, w.Name)
	if w.ReplicatedJob != "" {
		s += fmt.Sprintf(" (replicated job %s)", w.ReplicatedJob)
	}
	return s
}

// jobSet is what is read of a JobSet.
type jobSet struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		ReplicatedJobs []struct {
			Name     string                  `json:"name"`
			Template batchv1.JobTemplateSpec `json:"template"`
		} `json:"replicatedJobs"`
	} `json:"spec"`
}

// decodeWorkload reads a workload's pod templates into objs.Workloads;
// strict decodes the kinds of the Kubernetes API, noting unknown fields.
func (objs *Objects) decodeWorkload(where, id, kind string, data []byte, strict func(obj any) error) error {
	add := func(meta metav1.ObjectMeta, part string, template v1.PodTemplateSpec) {
		objs.Workloads = append(objs.Workloads, Workload{Kind: kind, Namespace: meta.Namespace, Name: meta.Name, ReplicatedJob: part, Template: template})
	}
	switch kind {
	case KindDeployment:
		d := &appsv1.Deployment{}
		if err := strict(d); err != nil {
			return err
		}
		add(d.ObjectMeta, "", d.Spec.Template)
	case KindStatefulSet:
		s := &appsv1.StatefulSet{}
		if err := strict(s); err != nil {
			return err
		}
		add(s.ObjectMeta, "", s.Spec.Template)
	case KindJob:
		j := &batchv1.Job{}
		if err := strict(j); err != nil {
			return err
		}
		add(j.ObjectMeta, "", j.Spec.Template)
	case KindJobSet:
		// Not strict: the JobSet's own fields (success policy, network,
		// ...) are not this package's to know.
		js := &jobSet{}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, js); err != nil {
			return fmt.Errorf("%s: %s: %w", where, id, err)
		}
		if len(js.Spec.ReplicatedJobs) == 0 {
			return fmt.Errorf("%s: %s: spec.replicatedJobs is empty", where, id)
		}
		for _, rj := range js.Spec.ReplicatedJobs {
			add(js.Metadata, rj.Name, rj.Template.Spec.Template)
		}
	}
	return nil
}
