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

package integration

import (
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/kubernetes/pkg/features"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocationcheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestRealisticInventories publishes the NVIDIA, Dynamic MIG, shared-NIC
// and example-driver inventories of pkg/inventorygen through the API server
// (which validates them), schedules pods with the claims users write for
// them, and has pkg/allocationcheck — which shares no code with the
// allocator — judge every allocation the plugin wrote, all claims of a
// node together, so that a device given twice would be caught.
func TestRealisticInventories(t *testing.T) {
	e := startCluster(t, draConfig)
	cluster := inventorygen.NvidiaH100(2).Merge(
		inventorygen.NvidiaA100(1),
		inventorygen.DynamicMIG(1, 2),
		inventorygen.SharedNICs(1),
		inventorygen.ExampleDriver(1, true),
	)
	for _, n := range cluster.Nodes {
		n := n.DeepCopy()
		n.UID = ""
		e.create(n)
	}
	for _, c := range cluster.Classes {
		e.create(c.DeepCopy())
	}
	for _, s := range cluster.Slices {
		s := s.DeepCopy()
		s.OwnerReferences = nil
		e.create(s)
	}

	workloads := []struct {
		name  string
		claim *resourceapi.ResourceClaim
		pods  int
	}{
		// An "80GB" H100 reports 81559Mi, less than 80Gi: ask for 40Gi.
		{"gpu-40g", inventorygen.GPUWithMemoryClaim("c", "40Gi"), 3},
		{"pcie-pair", inventorygen.GPUsOnSamePCIeRootClaim("c", 2), 2},
		{"prefer-h100", inventorygen.PreferH100ElseTwoA100Claim("c"), 2},
		{"mig-1g", inventorygen.MIGProfileClaim("c", "1g.10gb"), 4},
		{"nic-10g", inventorygen.NICShareClaim("c", "10G"), 4},
		{"half-gpu", inventorygen.ExactClaim("c", inventorygen.ClassExample, 1,
			fmt.Sprintf("device.attributes[%q].partition == %q", inventorygen.DriverExample, "half")), 3},
	}
	var names []string
	for _, w := range workloads {
		e.create(&resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: w.name, Namespace: e.ns},
			Spec: resourceapi.ResourceClaimTemplateSpec{Spec: w.claim.Spec}})
		for i := range w.pods {
			name := fmt.Sprintf("%s-%d", w.name, i)
			e.create(objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("c", w.name).Obj())
			names = append(names, name)
		}
	}
	byNode := map[string][]*resourceapi.ResourceClaim{}
	for _, name := range names {
		pod := e.waitScheduled(name)
		claim := e.generatedClaim(name, "c")
		if claim.Status.Allocation == nil {
			t.Fatalf("pod %s bound to %s but its claim is not allocated", name, pod.Spec.NodeName)
		}
		byNode[pod.Spec.NodeName] = append(byNode[pod.Spec.NodeName], claim)
		t.Logf("%-14s on %-10s %s", name, pod.Spec.NodeName, results(claim))
	}

	fts := defaultAllocatorFeatures()
	for node, claims := range byNode {
		allocations := make([]resourceapi.AllocationResult, len(claims))
		for i, c := range claims {
			allocations[i] = *c.Status.Allocation
		}
		in := allocationcheck.Input{Features: fts, Node: cluster.Node(node), Slices: cluster.Slices, Classes: cluster.ClassLister(), Claims: claims}
		for _, err := range allocationcheck.Check(e.ctx, in, allocations) {
			t.Errorf("node %s: %v", node, err)
		}
	}
	if pods := len(byNode["nic-0"]); pods != 4 {
		t.Errorf("%d NIC-share pods on nic-0, want all 4 (the only node with NICs)", pods)
	}
}

// defaultAllocatorFeatures are the allocator features under the process's
// feature gates (Kubernetes 1.37 defaults in tests).
func defaultAllocatorFeatures() structured.Features {
	gate := utilfeature.DefaultFeatureGate
	return structured.Features{
		AdminAccess:            gate.Enabled(features.DRAAdminAccess),
		PrioritizedList:        gate.Enabled(features.DRAPrioritizedList),
		PartitionableDevices:   gate.Enabled(features.DRAPartitionableDevices),
		DeviceTaints:           gate.Enabled(features.DRADeviceTaints),
		DeviceBindingAndStatus: gate.Enabled(features.DRADeviceBindingConditions) && gate.Enabled(features.DRAResourceClaimDeviceStatus),
		ConsumableCapacity:     gate.Enabled(features.DRAConsumableCapacity),
		CompatibilityGroups:    gate.Enabled(features.DRADeviceCompatibilityGroups),
	}
}
