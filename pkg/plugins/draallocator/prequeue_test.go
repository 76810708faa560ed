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
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// ownedClaim is a claim generated for pod from a template: owned by it,
// its name not yet in the pod's status.
func ownedClaim(name, pod string) *resourceapi.ResourceClaim {
	claim := objects.Claim(name, testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod, UID: types.UID("pod-" + pod), Controller: ptr.To(true)}}
	return claim
}

func allocated(claim *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	claim = claim.DeepCopy()
	claim.Status.Allocation = allocationOf("node-1", "dev-0")
	return claim
}

func TestPodsForClaimEvent(t *testing.T) {
	named := claimPod("named") // names claim "named" in its spec
	generated := objects.MakePod("generated", testNamespace).ClaimFromTemplate("dev", "template").Obj()
	generated.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "dev", ResourceClaimName: ptr.To("generated-dev-abc")}}
	waiting := objects.MakePod("waiting", testNamespace).ClaimFromTemplate("dev", "template").Obj()
	elsewhere := claimPod("named")
	elsewhere.Name, elsewhere.Namespace = "elsewhere", "other"
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{claimIndex: claimsOfPod})
	for _, pod := range []*v1.Pod{named, generated, waiting, elsewhere, objects.MakePod("no-claims", testNamespace).Obj()} {
		if err := indexer.Add(pod); err != nil {
			t.Fatal(err)
		}
	}
	index := &podIndex{indexer: indexer}
	plain := objects.Claim("named", testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	for _, tc := range []struct {
		name           string
		oldObj, newObj any
		want           string // pods, sorted, or "all"
	}{
		{"a new template claim concerns only the pod that owns it", nil, ownedClaim("waiting-dev-xyz", "waiting"), "test/waiting"},
		{"a new claim that a pod names in its spec concerns that pod, not a pod of another namespace", nil, plain, "test/named"},
		{"a generated claim named in a pod's status concerns that pod", ownedClaim("generated-dev-abc", "generated"), allocated(ownedClaim("generated-dev-abc", "generated")), "test/generated"},
		{"an allocation written concerns the pods that name the claim", plain, allocated(plain), "test/named"},
		{"a claim nobody names or owns concerns no pod", nil, objects.Claim("orphan", testNamespace, objects.ClaimSpec("dev", testDriver, 1)), ""},
		{"a claim deallocated concerns every pod", allocated(plain), plain, "all"},
		{"an allocated claim deleted concerns every pod", allocated(plain), nil, "all"},
		{"a claim deleted without an allocation concerns the pods that name it", plain, nil, "test/named"},
		{"a deleted claim whose last state is unknown concerns every pod", cache.DeletedFinalStateUnknown{Key: "test/named"}, nil, "all"},
		{"a deleted allocated claim seen as a tombstone concerns every pod", cache.DeletedFinalStateUnknown{Key: "test/named", Obj: allocated(plain)}, plain, "all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result, err := index.podsForClaimEvent(klog.Background(), tc.oldObj, tc.newObj)
			if err != nil {
				t.Fatal(err)
			}
			got := "all"
			if !result.AllPods {
				var pods []string
				for _, p := range result.Pods {
					pods = append(pods, p.String())
				}
				slices.Sort(pods)
				got = strings.Join(pods, ",")
			}
			if got != tc.want {
				t.Errorf("pods %q, want %q", got, tc.want)
			}
		})
	}
}

func TestClaimEventsHaveAPreQueueingHintOnlyWithTheGate(t *testing.T) {
	for _, gate := range []bool{false, true} {
		name := "without the SchedulerPreQueueingHints gate, claim events have no pre-queueing hint"
		if gate {
			name = "with the SchedulerPreQueueingHints gate, a new template claim is narrowed to its pod through the plugin's index"
		}
		t.Run(name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SchedulerPreQueueingHints, gate)
			nodes, objs := oneDeviceCluster()
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			var hint fwk.PreQueueingHintFn
			events, err := h.plugins[0].EventsToRegister(h.ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range events {
				if ev.Event.Resource == fwk.ResourceClaim {
					hint = ev.PreQueueingHintFn
				}
			}
			if (hint != nil) != gate {
				t.Fatalf("claim events have a pre-queueing hint: %v, want %v", hint != nil, gate)
			}
			if !gate {
				return
			}
			pod := objects.MakePod("waiting", testNamespace).ClaimFromTemplate("dev", "template").Obj()
			pod.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "dev", ResourceClaimName: ptr.To("waiting-dev")}}
			h.create(pod)
			h.eventually("the pod index to have the pod", func() bool {
				result, err := hint(klog.Background(), nil, objects.Claim("waiting-dev", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
				return err == nil && len(result.Pods) == 1 && result.Pods[0].Name == "waiting"
			})
		})
	}
}
