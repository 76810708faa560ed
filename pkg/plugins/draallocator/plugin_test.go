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
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// devicesFor returns an allocation result with one device per request
// name ("req-0" or "req-0/sub").
func devicesFor(requests ...string) resourceapi.AllocationResult {
	var res resourceapi.AllocationResult
	for i, r := range requests {
		res.Devices.Results = append(res.Devices.Results, resourceapi.DeviceRequestAllocationResult{
			Request: r, Driver: inventorygen.DriverNvidia, Pool: "node", Device: "gpu-" + string(rune('0'+i)),
		})
	}
	return res
}

func TestFirstAvailableScore(t *testing.T) {
	const maxSize = resourceapi.FirstAvailableDeviceRequestMaxSize
	// PreferH100ElseTwoA100Claim has the alternatives "h100" then "a100".
	prefer := func(name string) *resourceapi.ResourceClaim { return inventorygen.PreferH100ElseTwoA100Claim(name) }
	exact := inventorygen.ExactClaim("exact", inventorygen.ClassNvidiaGPU, 1)
	for _, tc := range []struct {
		name       string
		claims     []*resourceapi.ResourceClaim
		toAllocate []int
		results    []resourceapi.AllocationResult
		want       int64
	}{
		{"the first alternative scores the maximum", []*resourceapi.ResourceClaim{prefer("a")}, []int{0},
			[]resourceapi.AllocationResult{devicesFor("req-0/h100")}, maxSize},
		{"the second alternative scores one less", []*resourceapi.ResourceClaim{prefer("a")}, []int{0},
			[]resourceapi.AllocationResult{devicesFor("req-0/a100", "req-0/a100")}, maxSize - 1},
		{"a claim without firstAvailable scores 0", []*resourceapi.ResourceClaim{exact}, []int{0},
			[]resourceapi.AllocationResult{devicesFor("req-0")}, 0},
		{"the scores of several claims to allocate add up", []*resourceapi.ResourceClaim{prefer("a"), prefer("b")}, []int{0, 1},
			[]resourceapi.AllocationResult{devicesFor("req-0/h100"), devicesFor("req-0/a100", "req-0/a100")}, 2*maxSize - 1},
		{"an already allocated claim does not count", []*resourceapi.ResourceClaim{prefer("allocated"), prefer("b")}, []int{1},
			[]resourceapi.AllocationResult{devicesFor("req-0/a100", "req-0/a100")}, maxSize - 1},
		{"results belong to the claims to allocate, in order", []*resourceapi.ResourceClaim{prefer("allocated"), exact}, []int{1},
			[]resourceapi.AllocationResult{devicesFor("req-0")}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &stateData{}
			for i, claim := range tc.claims {
				s.claims = append(s.claims, podClaim{claim: claim, toAllocate: slices.Contains(tc.toAllocate, i)})
			}
			if got := firstAvailableScore(s, s.foundDevices(tc.results)); got != tc.want {
				t.Errorf("firstAvailableScore = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestNormalizeScore(t *testing.T) {
	for _, tc := range []struct {
		name     string
		strategy config.ScoringStrategyType
		scores   []int64
		want     []int64
	}{
		{"FirstAvailable scales the highest score to MaxNodeScore", config.FirstAvailable,
			[]int64{8, 4, 0}, []int64{fwk.MaxNodeScore, fwk.MaxNodeScore / 2, 0}},
		{"FirstAvailable leaves all-zero scores at zero", config.FirstAvailable, []int64{0, 0}, []int64{0, 0}},
		{"MostAllocated scores are left alone", config.MostAllocated, []int64{30, 70}, []int64{30, 70}},
		{"LeastAllocated scores are left alone", config.LeastAllocated, []int64{70, 30}, []int64{70, 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &DRAAllocator{args: &config.DRAAllocatorArgs{ScoringStrategy: config.ScoringStrategy{Type: tc.strategy}}}
			scores := make(fwk.NodeScoreList, len(tc.scores))
			for i, s := range tc.scores {
				scores[i] = fwk.NodeScore{Name: "node-" + string(rune('a'+i)), Score: s}
			}
			if st := pl.normalizeScore(t.Context(), framework.NewCycleState(), nil, scores); st != nil {
				t.Fatalf("NormalizeScore: %v", st)
			}
			for i, s := range scores {
				if s.Score != tc.want[i] {
					t.Errorf("score of %s = %d, want %d", s.Name, s.Score, tc.want[i])
				}
			}
		})
	}
}

// boundClaim returns a claim allocated one device "gpu/pool/dev" that waits
// for the binding condition "attached" and fails on "failed"; conditions
// are the device's status conditions (nil: no device status).
func boundClaim(allocatedAgo time.Duration, conditions ...metav1.Condition) *resourceapi.ResourceClaim {
	claim := objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", 1))
	claim.Status.Allocation = &resourceapi.AllocationResult{
		AllocationTimestamp: &metav1.Time{Time: time.Now().Add(-allocatedAgo)},
		Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
			Request: "req", Driver: "gpu", Pool: "pool", Device: "dev",
			BindingConditions: []string{"attached"}, BindingFailureConditions: []string{"failed"},
		}}},
	}
	if conditions != nil {
		claim.Status.Devices = []resourceapi.AllocatedDeviceStatus{{Driver: "gpu", Pool: "pool", Device: "dev", Conditions: conditions}}
	}
	return claim
}

// withoutBindingConditions drops the binding conditions of the claim's devices.
func withoutBindingConditions(claim *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	for i := range claim.Status.Allocation.Devices.Results {
		claim.Status.Allocation.Devices.Results[i].BindingConditions = nil
		claim.Status.Allocation.Devices.Results[i].BindingFailureConditions = nil
	}
	return claim
}

func condition(typ string, status metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: "Test", Message: "set by the test"}
}

func TestClaimReadyForBinding(t *testing.T) {
	unallocated := objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", 1))
	for _, tc := range []struct {
		name      string
		claim     *resourceapi.ResourceClaim
		wantReady bool
		wantErr   bool
	}{
		{"a claim without binding conditions is ready", withoutBindingConditions(boundClaim(0)), true, false},
		{"an unallocated claim is not ready", unallocated, false, false},
		{"a device without status is not ready", boundClaim(0), false, false},
		{"a device whose binding condition is missing is not ready", boundClaim(0, condition("other", metav1.ConditionTrue)), false, false},
		{"a device whose binding condition is false is not ready", boundClaim(0, condition("attached", metav1.ConditionFalse)), false, false},
		{"a device whose binding condition is true is ready", boundClaim(0, condition("attached", metav1.ConditionTrue)), true, false},
		{"a false failure condition does not fail", boundClaim(0, condition("attached", metav1.ConditionTrue), condition("failed", metav1.ConditionFalse)), true, false},
		{"a true failure condition fails", boundClaim(0, condition("failed", metav1.ConditionTrue)), false, true},
		{"a true failure condition fails even when the binding condition is true",
			boundClaim(0, condition("attached", metav1.ConditionTrue), condition("failed", metav1.ConditionTrue)), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ready, err := claimReadyForBinding(tc.claim)
			if ready != tc.wantReady || (err != nil) != tc.wantErr {
				t.Fatalf("claimReadyForBinding = %v, %v; want ready %v, error %v", ready, err, tc.wantReady, tc.wantErr)
			}
			if err != nil && (!errors.Is(err, errBindingFailed) || !strings.Contains(err.Error(), "gpu/pool/dev")) {
				t.Errorf("error %q does not wrap errBindingFailed or does not name device gpu/pool/dev", err)
			}
		})
	}
}

func TestBindingTimedOut(t *testing.T) {
	const timeout = 10 * time.Minute
	noTimestamp := boundClaim(time.Hour)
	noTimestamp.Status.Allocation.AllocationTimestamp = nil
	secondDeviceBinds := boundClaim(timeout + time.Minute)
	secondDeviceBinds.Status.Allocation.Devices.Results = append(
		[]resourceapi.DeviceRequestAllocationResult{{Request: "req", Driver: "gpu", Pool: "pool", Device: "plain"}},
		secondDeviceBinds.Status.Allocation.Devices.Results...)
	for _, tc := range []struct {
		name  string
		claim *resourceapi.ResourceClaim
		want  bool
	}{
		{"a device waiting for binding longer than the timeout times out", boundClaim(timeout + time.Minute), true},
		{"a device waiting for binding less than the timeout does not", boundClaim(timeout - time.Minute), false},
		{"a claim without binding conditions never times out", withoutBindingConditions(boundClaim(time.Hour)), false},
		{"an allocation without timestamp never times out", noTimestamp, false},
		{"an unallocated claim never times out", objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", 1)), false},
		{"any device with binding conditions counts, not only the first", secondDeviceBinds, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &DRAAllocator{args: &config.DRAAllocatorArgs{BindingTimeout: metav1.Duration{Duration: timeout}}}
			if got := pl.bindingTimedOut(tc.claim); got != tc.want {
				t.Errorf("bindingTimedOut = %v, want %v", got, tc.want)
			}
		})
	}
}

// fakeDRAManager serves only ResourceClaims().Get, from claims keyed by
// "namespace/name"; any other method panics on the nil embedded interface.
type fakeDRAManager struct {
	fwk.SharedDRAManager
	claims fakeClaims
}

func (m fakeDRAManager) ResourceClaims() fwk.ResourceClaimTracker { return m.claims }

type fakeClaims struct {
	fwk.ResourceClaimTracker
	byName map[string]*resourceapi.ResourceClaim
}

func (c fakeClaims) Get(namespace, name string) (*resourceapi.ResourceClaim, error) {
	if claim, ok := c.byName[namespace+"/"+name]; ok {
		return claim, nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("resourceclaims"), name)
}

func TestIsSchedulableAfterClaimChange(t *testing.T) {
	claim := func(name string, allocated bool) *resourceapi.ResourceClaim {
		c := objects.Claim(name, "ns", objects.ClaimSpec("req", "gpu", 1))
		c.UID = types.UID(name + "-uid")
		if allocated {
			c.Status.Allocation = &resourceapi.AllocationResult{}
		}
		return c
	}
	pod := objects.MakePod("p", "ns").Claim("gpu", "mine").Obj()
	waiting := objects.MakePod("p", "ns").Claim("gpu", "mine").Claim("nic", "missing").Obj()
	mine, mineAllocated, other, otherAllocated := claim("mine", false), claim("mine", true), claim("other", false), claim("other", true)
	mineWithFinalizer := mine.DeepCopy()
	mineWithFinalizer.Finalizers = []string{"driver.example.com/finalizer"}
	podClaims := map[string]*resourceapi.ResourceClaim{"ns/mine": mine, "ns/other": other}
	inOtherNamespace := mine.DeepCopy()
	inOtherNamespace.Namespace = "elsewhere"
	fromTemplate := objects.MakePod("t", "ns").ClaimFromTemplate("gpu", "template").Obj()
	fromTemplate.UID = "t-uid"
	fromTemplate.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("t-gpu-x1")}}
	generated := claim("t-gpu-x1", false)
	generated.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "t", UID: "t-uid", Controller: ptr.To(true)}}
	templateClaims := map[string]*resourceapi.ResourceClaim{"ns/t-gpu-x1": generated}

	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		// claims are the claims the DRA manager knows; nil: no lookup expected.
		claims         map[string]*resourceapi.ResourceClaim
		oldObj, newObj any
		want           fwk.QueueingHint
		wantErr        bool
	}{
		{"a deleted allocated claim frees devices", pod, nil, otherAllocated, nil, fwk.Queue, false},
		{"a deleted unallocated claim frees nothing", pod, nil, other, nil, fwk.QueueSkip, false},
		{"a claim deleted in an unknown final state may have freed devices", pod, nil,
			cache.DeletedFinalStateUnknown{Key: "ns/other", Obj: other}, nil, fwk.Queue, false},
		{"an object that is no claim is an error", pod, nil, &v1.Pod{}, nil, fwk.Queue, true},
		{"the pod's claim appearing queues it", pod, podClaims, nil, mine, fwk.Queue, false},
		{"another claim appearing does not", pod, podClaims, nil, other, fwk.QueueSkip, false},
		{"the pod's claim appearing while another of its claims is missing does not queue it", waiting, podClaims,
			nil, mine, fwk.QueueSkip, false},
		{"any claim being deallocated queues the pod", pod, podClaims, otherAllocated, other, fwk.Queue, false},
		{"the pod's claim changing status queues it", pod, podClaims, mine, mineAllocated, fwk.Queue, false},
		{"the pod's claim changing without a status change does not", pod, podClaims, mine, mineWithFinalizer, fwk.QueueSkip, false},
		{"another claim changing status does not", pod, podClaims, other, otherAllocated, fwk.QueueSkip, false},
		{"another claim appearing is judged without looking up the pod's claims", pod, nil, nil, other, fwk.QueueSkip, false},
		{"another claim changing status is judged without looking up the pod's claims", pod, nil, other, otherAllocated, fwk.QueueSkip, false},
		{"a claim in another namespace with the same name is not the pod's", pod, nil, nil, inOtherNamespace, fwk.QueueSkip, false},
		{"the pod's template claim appearing queues it", fromTemplate, templateClaims, nil, generated, fwk.Queue, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &DRAAllocator{}
			if tc.claims != nil {
				pl.draManager = fakeDRAManager{claims: fakeClaims{byName: tc.claims}}
			}
			got, err := pl.isSchedulableAfterClaimChange(klog.Background(), tc.pod, tc.oldObj, tc.newObj)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("isSchedulableAfterClaimChange = %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
