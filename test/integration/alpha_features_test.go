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
	"slices"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestOptionalNodeOperations runs DRAOptionalNodeOperations (alpha, on for
// the API server and dra-scheduler here) end to end: devices whose slices
// skip node operations go only to nodes whose status declares the
// feature, the written allocation carries the slice's list, and a pod
// waiting for such a node is scheduled once one declares it.
func TestOptionalNodeOperations(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.DRAOptionalNodeOperations, true)
	e := startCluster(t, draConfig)
	const driver = "skip.example.com"
	skipAll := []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationAll}
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("skip", e.ns, "dev", driver, 1))
	for _, node := range []string{"node-1", "node-2"} {
		slice := objects.MakeSlice(node, driver, node).Device("dev-0", nil).Obj()
		slice.Spec.SkipNodeOperations = skipAll
		e.create(objects.MakeNode(node).Obj(), slice)
	}
	declare := func(name string) {
		t.Helper()
		node, err := e.client.CoreV1().Nodes().Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		node.Status.DeclaredFeatures = append(node.Status.DeclaredFeatures, "DRAOptionalNodeOperations")
		if _, err := e.client.CoreV1().Nodes().UpdateStatus(e.ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("declare DRAOptionalNodeOperations on %s: %v", name, err)
		}
	}
	declare("node-2")

	e.create(objects.MakePod("skip-1", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "skip").Obj())
	if pod := e.waitScheduled("skip-1"); pod.Spec.NodeName != "node-2" {
		t.Errorf("skip-1 landed on %s, want node-2 (node-1 does not declare DRAOptionalNodeOperations)", pod.Spec.NodeName)
	}
	claim := e.generatedClaim("skip-1", "dev")
	e.waitFor("claim of skip-1 allocated", func() (bool, string) {
		claim = e.generatedClaim("skip-1", "dev")
		return claim.Status.Allocation != nil, results(claim)
	})
	if got, want := results(claim), "dev="+driver+"/node-2/dev-0"; got != want {
		t.Errorf("skip-1's claim results %s, want %s", got, want)
	}
	if got := claim.Status.Allocation.Devices.Results[0].SkipNodeOperations; !slices.Equal(got, skipAll) {
		t.Errorf("skip-1's allocation skips node operations %q, want the slice's %q (stored by the API server)", got, skipAll)
	}

	// node-2's device is taken, node-1 does not declare the feature.
	e.create(objects.MakePod("skip-2", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "skip").Obj())
	msg := e.waitUnschedulable("skip-2", "0/2 nodes are available")
	for _, want := range []string{`skip node operations, which the node does not declare it supports`, `all devices matching request "dev" are allocated`} {
		if !strings.Contains(msg, want) {
			t.Errorf("skip-2 says %q, want it to contain %q", msg, want)
		}
	}
	declare("node-1")
	if pod := e.waitScheduled("skip-2"); pod.Spec.NodeName != "node-1" {
		t.Errorf("skip-2 landed on %s after node-1 declared the feature, want node-1", pod.Spec.NodeName)
	}
}

// TestListTypeAttributes runs DRAListTypeAttributes (alpha, on for the API
// server and dra-scheduler here) end to end: the API server stores
// list-typed attributes, a selector reads them, and matchAttribute picks
// devices whose lists share an element.
func TestListTypeAttributes(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.DRAListTypeAttributes, true)
	e := startCluster(t, draConfig)
	const driver = "lists.example.com"
	e.create(objects.MakeNode("node-1").Obj(), objects.DeviceClass(driver, driver),
		// dev-a and dev-c share link "l2"; dev-b shares nothing with either.
		objects.MakeSlice("node-1", driver, "node-1").
			Device("dev-a", nil).StringsAttribute("links", "l1", "l2").
			Device("dev-b", nil).StringsAttribute("links", "l3").
			Device("dev-c", nil).StringsAttribute("links", "l2", "l4").Obj())
	linked := objects.ClaimTemplate("linked", e.ns, "dev", driver, 2)
	linked.Spec.Spec.Devices.Requests[0].Exactly.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
		Expression: `device.attributes["lists.example.com"].links.size() > 0`,
	}}}
	linked.Spec.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To[resourceapi.FullyQualifiedName](driver + "/links")}}
	e.create(linked)

	e.create(objects.MakePod("linked-1", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "linked").Obj())
	e.waitScheduled("linked-1")
	var claim *resourceapi.ResourceClaim
	e.waitFor("claim of linked-1 allocated", func() (bool, string) {
		claim = e.generatedClaim("linked-1", "dev")
		return claim.Status.Allocation != nil, results(claim)
	})
	if got, want := results(claim), "dev="+driver+"/node-1/dev-a dev="+driver+"/node-1/dev-c"; got != want {
		t.Errorf("linked-1's claim results %s, want %s (the only two devices whose links intersect)", got, want)
	}

	// The same match across two claims of one device each, by the
	// device-constraints annotation: the second claim skips dev-b, whose
	// links share nothing with dev-a's.
	e.deletePods([]string{"linked-1"})
	single := objects.ClaimTemplate("single", e.ns, "dev", driver, 1)
	single.Spec.Spec.Devices.Requests[0].Exactly.Selectors = linked.Spec.Spec.Devices.Requests[0].Exactly.Selectors
	e.create(single)
	pod := objects.MakePod("linked-across", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("one", "single").ClaimFromTemplate("two", "single").Obj()
	pod.Annotations = map[string]string{deviceconstraints.Annotation: `[{"matchAttribute": "` + driver + `/links"}]`}
	e.create(pod)
	e.waitScheduled(pod.Name)
	var got []string
	for _, pc := range []string{"one", "two"} {
		c := e.generatedClaim(pod.Name, pc)
		e.waitFor("claim "+pc+" of linked-across allocated", func() (bool, string) {
			c = e.generatedClaim(pod.Name, pc)
			return c.Status.Allocation != nil, results(c)
		})
		got = append(got, results(c))
	}
	if want := []string{"dev=" + driver + "/node-1/dev-a", "dev=" + driver + "/node-1/dev-c"}; !slices.Equal(got, want) {
		t.Errorf("linked-across's claims hold %v, want %v (dev-b's links share nothing with dev-a's)", got, want)
	}
}

// TestDerivedAttributes runs DRADerivedAttributes (alpha, on for the API
// server and dra-scheduler here) end to end: a request's derived attribute
// shadows the devices' own for that request only, so two devices whose own
// values differ can still match.
func TestDerivedAttributes(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.DRADerivedAttributes, true)
	e := startCluster(t, draConfig)
	const driver = "derived.example.com"
	const attr resourceapi.FullyQualifiedName = driver + "/zone"
	e.create(objects.MakeNode("node-1").Obj(), objects.DeviceClass(driver, driver),
		objects.MakeSlice("node-1", driver, "node-1").
			Device("dev-a", nil).Attribute("zone", "a").
			Device("dev-b", nil).Attribute("zone", "b").Obj())
	pair := objects.ClaimTemplate("pair", e.ns, "first", driver, 1)
	second := pair.Spec.Spec.Devices.Requests[0].DeepCopy()
	second.Name = "second"
	pair.Spec.Spec.Devices.Requests = append(pair.Spec.Spec.Devices.Requests, *second)
	// "first" sees every device in zone "b": only dev-a for it and dev-b
	// for "second" satisfy the match.
	pair.Spec.Spec.Devices.Requests[0].Exactly.DerivedAttributes = []resourceapi.DeviceDerivedAttribute{{Name: attr, Expression: `"b"`}}
	pair.Spec.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To(attr)}}
	e.create(pair)

	e.create(objects.MakePod("pair-1", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "pair").Obj())
	e.waitScheduled("pair-1")
	var claim *resourceapi.ResourceClaim
	e.waitFor("claim of pair-1 allocated", func() (bool, string) {
		claim = e.generatedClaim("pair-1", "dev")
		return claim.Status.Allocation != nil, results(claim)
	})
	if got, want := results(claim), "first="+driver+"/node-1/dev-a second="+driver+"/node-1/dev-b"; got != want {
		t.Errorf("pair-1's claim results %s, want %s", got, want)
	}
}
