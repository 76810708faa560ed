package draallocator

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// quantityEqual compares quantities by value.
var quantityEqual = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

// withNodeAllocatable turns DRANodeAllocatableResources on for the
// plugins the test builds.
func withNodeAllocatable(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.DRANodeAllocatableResources, true)
}

// cpuDeviceCluster has node "big" with 8 cpu and node "small" with 4,
// each with one device that is 4 cpu of its node and costs 1Gi of memory
// per pod, and claim "cpus" for one such device.
func cpuDeviceCluster() ([]*v1.Node, []runtime.Object) {
	nodes := []*v1.Node{objects.MakeNode("big").Allocatable("8", "32Gi").Obj(), objects.MakeNode("small").Allocatable("4", "32Gi").Obj()}
	objs := []runtime.Object{objects.DeviceClass(testDriver, testDriver), objects.Claim("cpus", testNamespace, objects.ClaimSpec("dev", testDriver, 1))}
	for _, node := range nodes {
		objs = append(objs, objects.MakeSlice(node.Name, testDriver, node.Name).Device("cpu-0", nil).
			MapsNodeResource(v1.ResourceCPU, "4").NodeOverhead(v1.ResourceMemory, "1Gi", "").Obj())
	}
	return nodes, objs
}

// cpuPod is a pod asking for cpu of its own and using claim "cpus".
func cpuPod(name, cpu string) *v1.Pod {
	pod := objects.MakePod(name, testNamespace).Claim("cpus", "cpus").Requests(cpu, "").Obj()
	pod.UID = types.UID("pod-" + name)
	return pod
}

func TestAPodWhoseDeviceIsNodeCPUFitsOnlyWhereTheNodeHasRoomForBothAndGetsItRecorded(t *testing.T) {
	withNodeAllocatable(t)
	nodes, objs := cpuDeviceCluster()
	pod := cpuPod("p", "1")
	h := newHarness(t, nil, []string{"default"}, nodes, append(objs, pod)...)
	pl := h.plugins[0]

	c, st := h.filter(pl, pod)
	if st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	if want := []string{"big"}; !cmp.Equal(c.feasible, want) {
		t.Fatalf("pod fits on %v, want %v: its 1 cpu and its device's 4 exceed small's 4", c.feasible, want)
	}
	small := pl.Filter(h.ctx, c.state, pod, h.nodes[1])
	if small.Code() != fwk.UnschedulableAndUnresolvable || small.Message() != "Insufficient cpu" {
		t.Errorf("Filter on small = %v, want UnschedulableAndUnresolvable \"Insufficient cpu\" (5 cpu asked of 4 allocatable)", small)
	}

	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	entry, ok := pl.ledger.entries[pod.UID]
	wantDelta := nodeallocatable.Amounts{MilliCPU: 4000, Memory: 1 << 30}
	if !ok || entry.node != "big" || !cmp.Equal(entry.delta, wantDelta) {
		t.Errorf("ledger entry %+v (present %v), want on big with delta %+v", entry, ok, wantDelta)
	}
	if st := pl.PreBind(h.ctx, c.state, pod, "big"); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	stored, err := h.client.CoreV1().Pods(testNamespace).Get(h.ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []v1.NodeAllocatableResourceClaimStatus{{
		ResourceClaimName: "cpus",
		Containers:        []string{"main"},
		Mapping:           []v1.NodeAllocatableMappedResources{{Name: v1.ResourceCPU, Quantity: ptr.To(resource.MustParse("4"))}},
		Overhead:          []v1.NodeAllocatableOverheadResources{{Name: v1.ResourceMemory, PerPod: ptr.To(resource.MustParse("1Gi"))}},
	}}
	if diff := cmp.Diff(want, stored.Status.NodeAllocatableResourceClaimStatuses, quantityEqual); diff != "" {
		t.Errorf("the pod's recorded statuses differ (-want +got):\n%s", diff)
	}

	// Binding fails after PreBind: Unreserve clears the record, forgets
	// the ledger entry and retries the pods the plugin turned away.
	activated := h.activated.Load()
	pl.requeue.seen(cpuPod("waiting", "1"))
	c.unreserve()
	stored, err = h.client.CoreV1().Pods(testNamespace).Get(h.ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := stored.Status.NodeAllocatableResourceClaimStatuses; len(got) != 0 {
		t.Errorf("after Unreserve the pod's statuses are %+v, want cleared", got)
	}
	if _, ok := pl.ledger.entries[pod.UID]; ok {
		t.Error("after Unreserve the ledger still holds the pod")
	}
	if h.activated.Load() == activated {
		t.Error("Unreserve freed node resources but retried no pod")
	}
}

func TestAPodAssumedWithADeviceThatIsNodeCPUHoldsThatCPUUntilTheNodeCountsIt(t *testing.T) {
	withNodeAllocatable(t)
	nodes, objs := cpuDeviceCluster()
	// Assumed on big: in the scheduler's snapshot, without statuses.
	assumed := cpuPod("assumed", "1")
	assumed.Spec.NodeName = "big"
	h := newHarness(t, nil, []string{"default"}, nodes, append(objs, assumed)...)
	pl := h.plugins[0]
	c, st := h.filter(pl, assumed)
	if st != nil || len(c.feasible) == 0 || c.feasible[0] != "big" {
		t.Fatalf("the assumed pod fits on %v (PreFilter %v), want big first", c.feasible, st)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}

	// big has 8 cpu; the node accounting counts the assumed pod's 1, the
	// ledger its device's 4: 3 are left.
	for _, tc := range []struct {
		name, cpu string
		want      *fwk.Status
	}{
		{"a pod without claims asking for 4 cpu is turned away as NodeResourcesFit would", "4", fwk.NewStatus(fwk.Unschedulable, "Insufficient cpu")},
		{"a pod without claims asking for 3 cpu fits", "3", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := objects.MakePod("plain-"+tc.cpu, testNamespace).Requests(tc.cpu, "").Obj()
			cs := framework.NewCycleState()
			if _, st := pl.PreFilter(h.ctx, cs, plain, h.nodes); !st.IsSuccess() {
				t.Fatalf("PreFilter = %v, want success (no Skip while the ledger holds a pod)", st)
			}
			if got := pl.Filter(h.ctx, cs, plain, h.nodes[0]); !got.Equal(tc.want) {
				t.Errorf("Filter on big = %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("once the node holds the bound pod, the node accounting counts it and the ledger does not", func(t *testing.T) {
		bound := assumed.DeepCopy()
		bound.ResourceVersion = "bound"
		info := framework.NewNodeInfo(bound)
		info.SetNode(nodes[0])
		plain := objects.MakePod("plain", testNamespace).Requests("4", "").Obj()
		cs := framework.NewCycleState()
		if _, st := pl.PreFilter(h.ctx, cs, plain, h.nodes); !st.IsSuccess() {
			t.Fatalf("PreFilter = %v", st)
		}
		if got := pl.Filter(h.ctx, cs, plain, info); got != nil {
			t.Errorf("Filter = %v, want success: only the bound pod's 1 cpu is counted here (it carries no statuses in this test)", got)
		}
	})
	t.Run("a node without the pod (a preemption dry run) does not count it", func(t *testing.T) {
		info := framework.NewNodeInfo()
		info.SetNode(nodes[0])
		plain := objects.MakePod("plain", testNamespace).Requests("8", "").Obj()
		cs := framework.NewCycleState()
		if _, st := pl.PreFilter(h.ctx, cs, plain, h.nodes); !st.IsSuccess() {
			t.Fatalf("PreFilter = %v", st)
		}
		if got := pl.Filter(h.ctx, cs, plain, info); got != nil {
			t.Errorf("Filter = %v, want success on the empty node", got)
		}
	})

	c.unreserve()
	plain := objects.MakePod("plain", testNamespace).Requests("4", "").Obj()
	if _, st := pl.PreFilter(h.ctx, framework.NewCycleState(), plain, h.nodes); !st.IsSkip() {
		t.Errorf("PreFilter of a pod without claims = %v once the ledger is empty, want Skip", st)
	}
}

func TestAClaimWhoseDeviceIsNodeCPUIsNotSharedButOneWithOnlyOverheadIs(t *testing.T) {
	withNodeAllocatable(t)
	nodes, objs := cpuDeviceCluster()
	objs = append(objs,
		objects.MakeSlice("overhead", testDriver+"-2", "big").Device("nic-0", nil).NodeOverhead(v1.ResourceMemory, "1Gi", "").Obj(),
		objects.DeviceClass(testDriver+"-2", testDriver+"-2"),
		objects.Claim("nic", testNamespace, objects.ClaimSpec("dev", testDriver+"-2", 1)))
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	for _, name := range []string{"cpus", "nic"} {
		claim := h.claim(testNamespace, name).DeepCopy()
		device := map[string]string{"cpus": "cpu-0", "nic": "nic-0"}[name]
		pool := map[string]string{"cpus": "big", "nic": "big"}[name]
		claim.Status.Allocation = allocationOf(pool, device)
		claim.Status.Allocation.Devices.Results[0].Driver = map[string]string{"cpus": testDriver, "nic": testDriver + "-2"}[name]
		claim.Status.Allocation.NodeSelector = objects.NodeSelectorFor("big")
		claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "owner", UID: "pod-owner"}}
		h.updateClaimStatus(claim)
	}

	second := objects.MakePod("second", testNamespace).Claim("cpus", "cpus").Obj()
	c, st := h.filter(pl, second)
	if st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	got := pl.Filter(h.ctx, c.state, second, h.nodes[0])
	if got.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(got.Message(), "node allocatable resource claim cpus has a mapped device and cannot be shared across pods") {
		t.Errorf("Filter of a second pod of the mapped claim = %v, want it refused as not shareable", got)
	}

	sharer := objects.MakePod("sharer", testNamespace).Claim("nic", "nic").Obj()
	c, st = h.filter(pl, sharer)
	if st != nil || len(c.feasible) != 1 || c.feasible[0] != "big" {
		t.Errorf("a second pod of the overhead-only claim fits on %v (PreFilter %v), want big", c.feasible, st)
	}
}
