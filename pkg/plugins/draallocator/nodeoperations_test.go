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
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func TestFilterKeepsAClaimThatSkipsNodeOperationsOffNodesThatDoNotDeclareIt(t *testing.T) {
	plain := objects.MakeNode("plain").Obj()
	declaring := objects.MakeNode("declaring").Obj()
	declaring.Status.DeclaredFeatures = []string{"DRAOptionalNodeOperations"}
	skipping := objects.Claim("skipping", testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	ordinary := objects.Claim("ordinary", testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	h := newHarness(t, nil, []string{"default"}, []*v1.Node{plain, declaring},
		objects.DeviceClass(testDriver, testDriver), skipping, ordinary)
	pl := h.plugins[0]
	// Both are allocated without a node selector (a network-attached
	// device): only the skipped operations tell the nodes apart.
	for _, name := range []string{"skipping", "ordinary"} {
		claim := h.claim(testNamespace, name).DeepCopy()
		claim.Status.Allocation = allocationOf("fabric", "dev-"+name)
		if name == "skipping" {
			claim.Status.Allocation.Devices.Results[0].SkipNodeOperations = []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationAll}
		}
		h.updateClaimStatus(claim)
	}
	for _, tc := range []struct {
		name  string
		claim string
		want  []string
	}{
		{"an allocation that skips node operations fits only the node that declares it honours them", "skipping", []string{"declaring"}},
		{"an allocation without skipped operations fits every node", "ordinary", []string{"plain", "declaring"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, st := h.filter(pl, claimPod(tc.claim))
			if st != nil {
				t.Fatalf("PreFilter: %v", st)
			}
			if len(c.feasible) != len(tc.want) || c.feasible[len(c.feasible)-1] != "declaring" {
				t.Errorf("feasible nodes %v, want %v", c.feasible, tc.want)
			}
		})
	}
}

func TestANodeDeclaringFeaturesRequeuesPodsTheyMayNowFit(t *testing.T) {
	nodes, objs := oneDeviceCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	events, err := h.plugins[0].EventsToRegister(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if ev.Event.Resource == fwk.Node && ev.Event.ActionType&fwk.UpdateNodeDeclaredFeature != 0 {
			return
		}
	}
	t.Errorf("no Node event with UpdateNodeDeclaredFeature among %v: a pod rejected for skipped node operations would not be retried when the node declares DRAOptionalNodeOperations", events)
}
