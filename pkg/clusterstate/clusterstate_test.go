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

package clusterstate_test

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	cgotesting "k8s.io/client-go/testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// dump is what `kubectl get nodes,pods,resourceslices,deviceclasses,
// resourceclaims,resourceclaimtemplates,devicetaintrules,services -A -o
// yaml` prints, shortened.
const dump = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node-1}}
- apiVersion: v1
  kind: Pod
  metadata: {name: trainer, namespace: team}
  spec:
    containers: [{name: c, image: x}]
    resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: node-1-gpu}
  spec: {driver: gpu.example.com, nodeName: node-1, pool: {name: node-1, generation: 1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu.example.com}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaimTemplate
  metadata: {name: one-gpu, namespace: team}
  spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceTaintRule
  metadata: {name: maintenance}
  spec:
    deviceSelector: {driver: gpu.example.com}
    taint: {key: maintenance, effect: NoSchedule}
- {apiVersion: v1, kind: Service, metadata: {name: web, namespace: team}}
`

func TestEveryKindIsReadUnlessKindsNarrowsThem(t *testing.T) {
	all := &clusterstate.Objects{}
	if err := all.Add("dump.yaml", strings.NewReader(dump)); err != nil {
		t.Fatal(err)
	}
	if len(all.Nodes) != 1 || len(all.Pods) != 1 || len(all.Slices) != 1 || len(all.Classes) != 1 || len(all.Templates) != 1 || len(all.TaintRules) != 1 {
		t.Errorf("read %d nodes, %d pods, %d slices, %d classes, %d templates, %d rules; want one of each",
			len(all.Nodes), len(all.Pods), len(all.Slices), len(all.Classes), len(all.Templates), len(all.TaintRules))
	}
	if want := []string{`dump.yaml: document 1, items[6]: skipped Service "team/web" (not used by the allocator)`}; !reflect.DeepEqual(all.Notes, want) {
		t.Errorf("notes %q, want %q", all.Notes, want)
	}
	if got := all.Templates[0].Spec.Spec.Devices.Requests[0].Exactly; got.Count != 1 || got.AllocationMode != resourceapi.DeviceAllocationModeExactCount {
		t.Errorf("template request %+v, want the API server's defaults (one device, ExactCount)", got)
	}
	if got := all.TaintRules[0].Spec.Taint.Effect; got != resourceapi.DeviceTaintEffectNoSchedule {
		t.Errorf("taint rule effect %q", got)
	}

	narrow := &clusterstate.Objects{Kinds: []string{clusterstate.KindResourceSlice, clusterstate.KindDeviceClass}}
	if err := narrow.Add("dump.yaml", strings.NewReader(dump)); err != nil {
		t.Fatal(err)
	}
	if len(narrow.Nodes)+len(narrow.Pods)+len(narrow.Templates)+len(narrow.TaintRules) != 0 || len(narrow.Slices) != 1 || len(narrow.Classes) != 1 {
		t.Errorf("with Kinds set, read %+v; want only the slice and the class", narrow)
	}
	if len(narrow.Notes) != 5 {
		t.Errorf("notes %q, want one per skipped object (5)", narrow.Notes)
	}
}

func TestGetReadsTheSameKindsFromAnAPIServer(t *testing.T) {
	pod := objects.MakePod("trainer", "team").ClaimFromTemplate("gpu", "one-gpu").Obj()
	client := fake.NewClientset([]runtime.Object{
		objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj(), pod,
		objects.MakePod("other", "team").Obj(),
		objects.MakeSlice("node-1-gpu", "gpu.example.com", "node-1").Device("gpu-0", nil).Obj(),
		objects.DeviceClass("gpu.example.com", "gpu.example.com"),
		objects.ClaimTemplate("one-gpu", "team", "gpu", "gpu.example.com", 1),
		objects.ClaimTemplate("elsewhere", "other-team", "gpu", "gpu.example.com", 1),
		objects.Claim("taken", "other-team", objects.ClaimSpec("gpu", "gpu.example.com", 1)),
		objects.DeviceTaintRule("maintenance", "gpu.example.com", "node-1", "gpu-0", resourceapi.DeviceTaint{Key: "m", Effect: resourceapi.DeviceTaintEffectNoSchedule}),
	}...)

	objs, err := clusterstate.Get(t.Context(), client, clusterstate.Query{Namespace: "team", Pod: "trainer"})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Nodes) != 2 || len(objs.Slices) != 1 || len(objs.Classes) != 1 || len(objs.Claims) != 1 || len(objs.TaintRules) != 1 {
		t.Errorf("read %d nodes, %d slices, %d classes, %d claims, %d rules; want 2, 1, 1, 1 (from every namespace), 1",
			len(objs.Nodes), len(objs.Slices), len(objs.Classes), len(objs.Claims), len(objs.TaintRules))
	}
	if len(objs.Pods) != 1 || objs.Pods[0].Name != "trainer" {
		t.Errorf("pods %v, want only the one asked about", objs.Pods)
	}
	if len(objs.Templates) != 1 || objs.Templates[0].Name != "one-gpu" {
		t.Errorf("templates %v, want only the pod's namespace's", objs.Templates)
	}

	if _, err := clusterstate.Get(t.Context(), client, clusterstate.Query{Namespace: "team", Pod: "missing"}); err == nil || !strings.Contains(err.Error(), "team/missing") {
		t.Errorf("a missing pod: error %v, want one naming team/missing", err)
	}
}

func TestNodesNamedBySlicesMakesUpOnlyTheUnknownNodes(t *testing.T) {
	slices := []*resourceapi.ResourceSlice{
		objects.MakeSlice("a-1", "d", "node-a").Obj(), objects.MakeSlice("b", "d", "node-b").Obj(),
		objects.MakeSlice("a-2", "d2", "node-a").Obj(), objects.MakeSlice("c", "d", "node-c").Obj(),
	}
	got := clusterstate.NodesNamedBySlices(slices, []*v1.Node{objects.MakeNode("node-b").Obj()})
	if len(got) != 2 || got[0].Name != "node-a" || got[1].Name != "node-c" || got[0].Labels[v1.LabelHostname] != "node-a" {
		t.Errorf("made up %v, want node-a then node-c (node-b is known), labelled with their hostname", got)
	}
}

// TestGetReadsAClaimThePodsStatusNamesAsItWasRead: the resourceclaim
// controller creates a pod's claim and then names it in the pod's status;
// a claim created just before the pod is read must be among the claims
// read (the pod is read first), or explain would call it missing.
func TestGetReadsAClaimThePodsStatusNamesAsItWasRead(t *testing.T) {
	pod := objects.MakePod("trainer", "team").ClaimFromTemplate("gpu", "one-gpu").Obj()
	client := fake.NewClientset(pod, objects.ClaimTemplate("one-gpu", "team", "gpu", "gpu.example.com", 1))
	// The controller's work lands while Get reads the pod.
	client.PrependReactor("get", "pods", func(cgotesting.Action) (bool, runtime.Object, error) {
		claim := objects.Claim("trainer-gpu-x7k2p", "team", objects.ClaimSpec("gpu", "gpu.example.com", 1))
		if err := client.Tracker().Add(claim); err != nil && !apierrors.IsAlreadyExists(err) {
			return true, nil, err
		}
		named := pod.DeepCopy()
		named.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: &claim.Name}}
		return true, named, nil
	})
	objs, err := clusterstate.Get(t.Context(), client, clusterstate.Query{Namespace: "team", Pod: "trainer"})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Claims) != 1 || objs.Claims[0].Name != "trainer-gpu-x7k2p" {
		t.Errorf("claims read %v, want the one the pod's status names", objs.Claims)
	}
}

func TestWorkloadsAreReadAsTheirPodTemplates(t *testing.T) {
	const workloads = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: main, image: web}]
      nodeSelecter: {typo: here}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: team}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: job}]
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train, namespace: team}
spec:
  network: {enableDNSHostnames: true}
  replicatedJobs:
  - name: workers
    template:
      spec:
        template:
          spec:
            containers: [{name: main, image: worker}]
`
	objs := &clusterstate.Objects{}
	if err := objs.Add("workloads.yaml", strings.NewReader(workloads)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range objs.Workloads {
		got = append(got, w.String()+": "+w.Template.Spec.Containers[0].Image)
	}
	want := []string{"Deployment team/web: web", "Job team/once: job", "JobSet team/train (replicated job workers): worker"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("workloads %q, want %q", got, want)
	}
	// The Kubernetes kinds are read strictly, the JobSet's own fields are
	// not this package's to know.
	if len(objs.Notes) != 1 || !strings.Contains(objs.Notes[0], "nodeSelecter") {
		t.Errorf("notes %q, want one on the Deployment's misspelt field", objs.Notes)
	}

	cluster := &clusterstate.Objects{Kinds: clusterstate.ClusterKinds}
	if err := cluster.Add("dump.yaml", strings.NewReader(workloads)); err != nil {
		t.Fatal(err)
	}
	if len(cluster.Workloads) != 0 || len(cluster.Notes) != 3 {
		t.Errorf("a cluster dump read %d workloads and notes %q, want none, one note each", len(cluster.Workloads), cluster.Notes)
	}
	old := strings.Replace(workloads, "jobset.x-k8s.io/v1alpha2", "jobset.x-k8s.io/v1alpha1", 1)
	if err := (&clusterstate.Objects{}).Add("old.yaml", strings.NewReader(old)); err == nil || !strings.Contains(err.Error(), "only jobset.x-k8s.io/v1alpha2 is supported") {
		t.Errorf("a JobSet of another version: error %v, want one naming the version read", err)
	}
}
