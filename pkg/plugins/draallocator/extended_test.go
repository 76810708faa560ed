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

package draallocator

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func TestExtendedRequestsFollowContainerLifetimes(t *testing.T) {
	const res = v1.ResourceName("example.com/gpu")
	r := draExtendedResource{name: res, class: "gpu-class"}
	container := func(name string, n int64, extra ...v1.ResourceName) v1.Container {
		reqs := v1.ResourceList{res: *resource.NewQuantity(n, resource.DecimalSI)}
		for _, e := range extra {
			reqs[e] = resource.MustParse("1")
		}
		return v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: reqs}}
	}
	sidecar := func(c v1.Container) v1.Container {
		c.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways)
		return c
	}
	for _, tc := range []struct {
		name          string
		init, regular []v1.Container
		// want lists "request:count" in order, then "container->request".
		wantRequests, wantMappings string
	}{
		{"one container gets one request for its count",
			nil, []v1.Container{container("main", 2)},
			"[container-0-request-0:2]", "[main->container-0-request-0]"},
		{"the request is numbered by the resource's place among the container's sorted resource names",
			nil, []v1.Container{container("main", 1, "cpu", "memory")},
			"[container-0-request-1:1]", "[main->container-0-request-1]"},
		{"an init container reuses the request of a later regular container that covers it",
			[]v1.Container{container("setup", 1)}, []v1.Container{container("main", 2)},
			"[container-1-request-0:2]", "[main->container-1-request-0 setup->container-1-request-0]"},
		{"an init container asks itself for what later containers do not cover",
			[]v1.Container{container("setup", 3)}, []v1.Container{container("main", 2)},
			"[container-0-request-0:1 container-1-request-0:2]", "[main->container-1-request-0 setup->container-1-request-0 setup->container-0-request-0]"},
		{"plain init containers run one at a time and share the largest request",
			[]v1.Container{container("a", 1), container("b", 3)}, nil,
			"[container-1-request-0:3]", "[a->container-1-request-0 b->container-1-request-0]"},
		{"a sidecar lives on and gets its own request, like a regular container",
			[]v1.Container{sidecar(container("proxy", 1))}, []v1.Container{container("main", 1)},
			"[container-0-request-0:1 container-1-request-0:1]", "[proxy->container-0-request-0 main->container-1-request-0]"},
		{"containers without the resource get nothing",
			nil, []v1.Container{{Name: "idle"}, container("main", 1)},
			"[container-1-request-0:1]", "[main->container-1-request-0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: v1.PodSpec{InitContainers: tc.init, Containers: tc.regular}}
			requests, mappings := extendedRequests(pod, []draExtendedResource{r})
			var gotRequests, gotMappings []string
			for _, req := range requests {
				if req.Exactly.DeviceClassName != "gpu-class" {
					t.Errorf("request %s asks class %q, want gpu-class", req.Name, req.Exactly.DeviceClassName)
				}
				gotRequests = append(gotRequests, fmt.Sprintf("%s:%d", req.Name, req.Exactly.Count))
			}
			for _, m := range mappings {
				if m.ResourceName != string(res) {
					t.Errorf("mapping %+v names resource %q", m, m.ResourceName)
				}
				gotMappings = append(gotMappings, m.ContainerName+"->"+m.RequestName)
			}
			if got := fmt.Sprint(gotRequests); got != tc.wantRequests {
				t.Errorf("requests %s, want %s", got, tc.wantRequests)
			}
			if got := fmt.Sprint(gotMappings); got != tc.wantMappings {
				t.Errorf("mappings %s, want %s", got, tc.wantMappings)
			}
		})
	}
}

// TestAClassForAnExtendedResourceThatAppearsMidCycleFailsReserve: the pod
// asks for an extended resource no DeviceClass provides at PreFilter; the
// class arrives before Reserve (NodeResourcesFit, whose PreFilter runs
// later, may then leave the resource to DRA). Reserve fails the attempt
// with an error, so that the pod is retried, instead of letting it bind
// with neither devices nor node capacity; the retry allocates a claim.
func TestAClassForAnExtendedResourceThatAppearsMidCycleFailsReserve(t *testing.T) {
	node := objects.MakeNode("node-1").Obj()
	h := newHarness(t, nil, []string{"default"}, []*v1.Node{node},
		objects.MakeSlice("node-1", testDriver, "node-1").Device("dev-0", nil).Obj())
	pl := h.plugins[0]
	pod := objects.MakePod("late-class", testNamespace).Obj()
	pod.UID = "pod-late-class"
	one := v1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	pod.Spec.Containers[0].Resources = v1.ResourceRequirements{Requests: one, Limits: one}
	c, st := h.filter(pl, pod)
	if st != nil {
		t.Fatalf("PreFilter: %v", st)
	}

	class := objects.DeviceClass(testDriver, testDriver)
	class.Spec.ExtendedResourceName = ptr.To("example.com/gpu")
	h.create(class)
	h.eventually("the extended resource to map to the class", func() bool {
		return h.manager.DeviceClassResolver().GetDeviceClass("example.com/gpu") != nil
	})
	c.feasible = []string{"node-1"}
	st = c.reserve()
	if st.Code() != fwk.Error || !strings.Contains(st.Message(), "a DeviceClass for extended resource example.com/gpu appeared while the pod was being scheduled") {
		t.Fatalf("Reserve after the class appeared: %v, want an error naming the extended resource", st)
	}
	c.unreserve()

	retry, st := h.filter(pl, pod)
	if st != nil || len(retry.feasible) != 1 {
		t.Fatalf("retry fits on %v (PreFilter: %v), want node-1", retry.feasible, st)
	}
	if st := retry.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve of the retry: %v", st)
	}
	if s, err := getState(retry.state); err != nil || s.ext == nil {
		t.Errorf("the retry has no extended-resource claim to allocate (state %+v, %v)", s, err)
	}
}
