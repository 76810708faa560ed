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

package allocationcheck

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Input is everything an allocator was given for one Allocate call.
type Input struct {
	// Features are the allocator features that were enabled.
	Features structured.Features
	// Node is the node the claims were allocated for. Must not be nil.
	Node *v1.Node
	// Slices are all ResourceSlices of the cluster, not only those of Node.
	Slices []*resourceapi.ResourceSlice
	// Classes looks up the DeviceClasses the requests name.
	Classes structured.DeviceClassLister
	// Claims are the claims that were allocated; results[i] belongs to
	// Claims[i].
	Claims []*resourceapi.ResourceClaim
	// Allocated describes devices that were allocated before this call.
	Allocated structured.AllocatedState
}

// CheckID names one rule that Check verifies.
type CheckID string

// The rules Check verifies, in the order it verifies them. The doc comment
// of the function implementing each rule (checkDevices, checkRequests, ...)
// gives its details.
const (
	// CheckResultCount: one result per claim (rule 1).
	CheckResultCount CheckID = "result-count"
	// CheckDevice: devices exist, in complete pools, on the node (rule 2).
	CheckDevice CheckID = "device"
	// CheckRequests: request names, device counts, All sets, selectors,
	// reuse within a claim, adminAccess (rule 3).
	CheckRequests CheckID = "requests"
	// CheckExclusive: dedicated devices are allocated once (rule 4).
	CheckExclusive CheckID = "exclusive"
	// CheckConstraints: matchAttribute and distinctAttribute (rule 5).
	CheckConstraints CheckID = "constraints"
	// CheckTaints: taints are tolerated, tolerations copied (rule 6).
	CheckTaints CheckID = "taints"
	// CheckCounters: shared counters are not over-consumed (rule 7).
	CheckCounters CheckID = "counters"
	// CheckCapacity: consumable capacity and shares (rule 8).
	CheckCapacity CheckID = "capacity"
	// CheckBinding: binding conditions are copied (rule 9).
	CheckBinding CheckID = "binding-conditions"
	// CheckNodeSelector: the result's node selector (rule 10).
	CheckNodeSelector CheckID = "node-selector"
	// CheckConfig: class and claim configuration (rule 11).
	CheckConfig CheckID = "config"
	// CheckNodeOperations: skipped node operations are copied, and only
	// allocated on nodes that declare they honour them (rule 12).
	CheckNodeOperations CheckID = "node-operations"
)

// Violation is one broken rule. It is the dynamic type of every error that
// Check returns.
type Violation struct {
	// Check is the rule that is broken.
	Check CheckID
	// ClaimIndex is the index of the claim in Input.Claims, -1 if the
	// violation concerns no single claim.
	ClaimIndex int
	// Claim is "namespace/name" of the claim, empty if ClaimIndex is -1.
	Claim string
	// Request is the request (or "<request>/<subrequest>") concerned, if any.
	Request string
	// Device is "driver/pool/device" of the device concerned, if any.
	Device string
	// Message describes the problem.
	Message string
}

// Error formats the violation as "<check>: claim <c>, request <r>, device
// <d>: <message>", leaving out the parts that are empty.
func (v *Violation) Error() string {
	var subjects []string
	if v.Claim != "" {
		subjects = append(subjects, "claim "+v.Claim)
	}
	if v.Request != "" {
		subjects = append(subjects, "request "+v.Request)
	}
	if v.Device != "" {
		subjects = append(subjects, "device "+v.Device)
	}
	var b strings.Builder
	b.WriteString(string(v.Check))
	b.WriteString(": ")
	if len(subjects) > 0 {
		b.WriteString(strings.Join(subjects, ", "))
		b.WriteString(": ")
	}
	b.WriteString(v.Message)
	return b.String()
}

// Check verifies that results[i] is a valid allocation of in.Claims[i] on
// in.Node and returns every violation it finds, each a *Violation. It returns
// nil for a valid allocation.
//
// ctx bounds CEL evaluation.
func Check(ctx context.Context, in Input, results []resourceapi.AllocationResult) []error {
	if errs := checkResultCount(in.Claims, results); len(errs) > 0 {
		return errs
	}
	if in.Node == nil {
		return []error{&Violation{Check: CheckNodeSelector, ClaimIndex: -1, Message: "no node given"}}
	}
	c := newChecker(ctx, in, results)
	var errs []error
	for _, rule := range rules {
		errs = append(errs, rule.check(c)...)
	}
	return errs
}

// rules lists the checks that need paired claims and results, in order.
var rules = []struct {
	id    CheckID
	check func(*checker) []error
}{
	{CheckDevice, checkDevices},
	{CheckRequests, checkRequests},
	{CheckExclusive, checkExclusive},
	{CheckConstraints, checkConstraints},
	{CheckTaints, checkTaints},
	{CheckCounters, checkCounters},
	{CheckCapacity, checkCapacity},
	{CheckBinding, checkBindingConditions},
	{CheckNodeSelector, checkNodeSelectors},
	{CheckConfig, checkConfig},
	{CheckNodeOperations, checkNodeOperations},
}

// checkResultCount verifies rule 1: one result per claim.
func checkResultCount(claims []*resourceapi.ResourceClaim, results []resourceapi.AllocationResult) []error {
	if len(results) == len(claims) {
		return nil
	}
	return []error{&Violation{
		Check:      CheckResultCount,
		ClaimIndex: -1,
		Message:    fmt.Sprintf("got %d allocation results for %d claims", len(results), len(claims)),
	}}
}

// checker holds what all rules share: the input, the pools and devices built
// from the slices, the resolved claims and the CEL evaluator.
type checker struct {
	in       Input
	features structured.Features
	node     *v1.Node
	inv      *inventory
	claims   []*claimView
	cel      *selectorEvaluator
	classes  map[string]classLookup
	// ctx bounds CEL evaluation; derived compiles derived attributes.
	ctx     context.Context
	derived *cel.Cache
}

type classLookup struct {
	class *resourceapi.DeviceClass
	err   error
}

func newChecker(ctx context.Context, in Input, results []resourceapi.AllocationResult) *checker {
	c := &checker{
		in:       in,
		features: in.Features,
		node:     in.Node,
		inv:      buildInventory(in.Slices, in.Node, in.Features),
		cel:      newSelectorEvaluator(ctx),
		classes:  make(map[string]classLookup),
		ctx:      ctx,
	}
	for i, claim := range in.Claims {
		c.claims = append(c.claims, c.newClaimView(i, claim, &results[i]))
	}
	return c
}

// class returns the DeviceClass with the given name, remembering the answer.
func (c *checker) class(name string) (*resourceapi.DeviceClass, error) {
	if l, ok := c.classes[name]; ok {
		return l.class, l.err
	}
	var l classLookup
	switch {
	case name == "":
		l.err = fmt.Errorf("no device class name")
	case c.in.Classes == nil:
		l.err = fmt.Errorf("device class %s: no class lister given", name)
	default:
		l.class, l.err = c.in.Classes.Get(name)
		if l.err == nil && l.class == nil {
			l.err = fmt.Errorf("device class %s not found", name)
		}
	}
	c.classes[name] = l
	return l.class, l.err
}
