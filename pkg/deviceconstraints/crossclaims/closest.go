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

package crossclaims

import (
	"context"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Closest says what came closest on node, where claims fit without the
// constraints (plain: the allocator without them) but not with them: the
// first constraint that fails there on its own, and for each request it
// covers the values of its attribute among the devices that request could
// take there, and those of the allocated devices (fixed) it covers. It
// reads like
//
//	matchAttribute resource.kubernetes.io/pcieRoot: gpu/accel on pci-a or pci-c, nic/net on pci-d
//
// Requests are named as the annotation names them: podClaims maps a
// ResourceClaim's name to its pod claim (spec.resourceClaims[].name).
// Closest is "" when each constraint holds on its own (only together do
// they fail) or the node has no view; err is only the context's.
func Closest(ctx context.Context, plain *allocator.Allocator, inv *inventory.Inventory, node *v1.Node, claims []*resourceapi.ResourceClaim,
	constraints []allocator.CrossClaimConstraint, fixed []*resourceapi.ResourceClaim, podClaims map[string]string) (string, error) {
	failing := -1
	for i := range constraints {
		fits, err := plain.WithCrossClaimConstraints(constraints[i:i+1], fixed).Fits(ctx, node, claims)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if err == nil && !fits {
			failing = i
			break
		}
	}
	if failing < 0 {
		return "", nil
	}
	con := constraints[failing]
	kind, attr := "matchAttribute", con.MatchAttribute
	if attr == nil {
		kind, attr = "distinctAttribute", con.DistinctAttribute
	}
	d, err := plain.Diagnose(ctx, node, claims)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", nil
	}
	name := func(claim string) string {
		if pc, ok := podClaims[claim]; ok {
			return pc
		}
		return claim
	}
	var parts []string
	for _, rep := range d.Requests {
		claim := claims[rep.Claim].Name
		base, sub, _ := strings.Cut(rep.Request, "/")
		if !covers(con, claim, base, sub) {
			continue
		}
		parts = append(parts, name(claim)+"/"+rep.Request+" "+valuesOf(inv, rep.UsableDevices, *attr))
	}
	for _, f := range fixed {
		if f.Status.Allocation == nil {
			continue
		}
		for _, res := range f.Status.Allocation.Devices.Results {
			base, sub, _ := strings.Cut(res.Request, "/")
			if covers(con, f.Name, base, sub) {
				id := structured.MakeDeviceID(res.Driver, res.Pool, res.Device)
				parts = append(parts, name(f.Name)+"/"+res.Request+" (allocated) "+valuesOf(inv, []structured.DeviceID{id}, *attr))
			}
		}
	}
	return fmt.Sprintf("%s %s: %s", kind, *attr, strings.Join(parts, ", ")), nil
}

// covers reports whether con names request base (alternative sub) of
// claim.
func covers(con allocator.CrossClaimConstraint, claim, base, sub string) bool {
	if len(con.Requests) == 0 {
		return true
	}
	for _, r := range con.Requests {
		if r.Claim == claim && (r.Request == "" || r.Request == base && (r.Subrequest == "" || r.Subrequest == sub)) {
			return true
		}
	}
	return false
}

// maxValues is how many values valuesOf names.
const maxValues = 4

// valuesOf reads like "on pci-a or pci-c": the distinct values the
// devices give attr, sorted; "without <attr>" when none has it.
func valuesOf(inv *inventory.Inventory, devices []structured.DeviceID, attr resourceapi.FullyQualifiedName) string {
	var values []string
	for _, id := range devices {
		for _, d := range inv.LookupID(id) {
			if v, ok := d.Attribute(string(attr)); ok && !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
	}
	switch {
	case len(devices) == 0:
		return "has no device free"
	case len(values) == 0:
		return "has no device with it"
	}
	slices.Sort(values)
	more := ""
	if len(values) > maxValues {
		more = fmt.Sprintf(" and %d more", len(values)-maxValues)
		values = values[:maxValues]
	}
	return "on " + strings.Join(values, " or ") + more
}
