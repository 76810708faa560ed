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

package allocator_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	groupDriver = "dev.example.com"
	// groupAttr is the attribute the test devices are grouped by.
	groupAttr = groupDriver + "/group"
	// shortDeadline is the filter timeout of the deadline tests.
	shortDeadline = 50 * time.Millisecond
	// bound is how long a cut-short call may take in all: generous for a
	// noisy 2-core machine, far below the uncut work (seconds to years).
	bound = 2 * time.Second
)

var (
	groupNodes   = []*v1.Node{objects.MakeNode("node-a").Obj(), objects.MakeNode("node-b").Obj()}
	groupClasses = inventorygen.NewClassLister(objects.DeviceClass("dev", groupDriver))
)

// groupSlices gives every node inA devices of group "a" and inB of group
// "b".
func groupSlices(inA, inB int) []*resourceapi.ResourceSlice {
	var out []*resourceapi.ResourceSlice
	for _, node := range groupNodes {
		s := objects.MakeSlice(node.Name+"-devs", groupDriver, node.Name)
		for i := range inA {
			s.Device(fmt.Sprintf("a-%d", i), nil).Attribute("group", "a")
		}
		for i := range inB {
			s.Device(fmt.Sprintf("b-%d", i), nil).Attribute("group", "b")
		}
		out = append(out, s.Obj())
	}
	return out
}

// groupSelector selects the devices of one group.
func groupSelector(group string) string {
	return fmt.Sprintf("device.attributes[%q].group == %q", groupDriver, group)
}

// sameGroupClaim asks for many devices of group "a" and one of group "b",
// all with the same group: never satisfiable when both groups exist, and
// the search tries every combination of many "a" devices before it knows.
func sameGroupClaim(many int64) *resourceapi.ResourceClaim {
	spec := objects.ClaimSpec("many", "dev", many, groupSelector("a"))
	spec.Devices.Requests = append(spec.Devices.Requests, objects.ClaimSpec("one", "dev", 1, groupSelector("b")).Devices.Requests...)
	spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To[resourceapi.FullyQualifiedName](groupAttr)}}
	return objects.Claim("same-group", "ns", spec)
}

// costlySelector takes tens of milliseconds per device (30³ iterations,
// within the CEL cost limit) to find that no device matches; its outcome
// takes every iteration, so an interrupted evaluation is an error.
func costlySelector() string {
	nums := make([]string, 30)
	for i := range nums {
		nums[i] = fmt.Sprint(i)
	}
	l := "[" + strings.Join(nums, ", ") + "]"
	return l + ".exists(i, " + l + ".exists(j, " + l + ".exists(k, i + j + k < 0)))"
}

func costlyClaim() *resourceapi.ResourceClaim {
	return objects.Claim("costly", "ns", objects.ClaimSpec("req", "dev", 1, costlySelector()))
}

// cutShort is the finding of a search for the cause that ran out of time.
var cutShort = allocator.Explanation{Kind: allocator.CutShort}

const cutShortString = "cannot allocate all claims (the search for the cause was cut short by the filter timeout)"

func TestExplainBeforeEndsByTheDeadline(t *testing.T) {
	sameGroup := allocator.Explanation{Kind: allocator.ConstraintUnsatisfiable, Constraint: "matchAttribute " + groupAttr}
	for _, tc := range []struct {
		name   string
		slices []*resourceapi.ResourceSlice
		claim  *resourceapi.ResourceClaim
		// deadline is how long after the call starts the deadline is; 0
		// means none.
		deadline time.Duration
		// cancelled asks with a context that has already ended.
		cancelled  bool
		want       allocator.Explanation
		wantString string
	}{
		{
			name:   "a matchAttribute search over every combination of 10 of 40 devices is cut short by the deadline",
			slices: groupSlices(40, 1), claim: sameGroupClaim(10), deadline: shortDeadline,
			want: cutShort, wantString: cutShortString,
		},
		{
			name:   "a costly selector on 40 devices is cut short by the deadline",
			slices: groupSlices(40, 0), claim: costlyClaim(), deadline: shortDeadline,
			want: cutShort, wantString: cutShortString,
		},
		{
			name:   "without a deadline a small matchAttribute case still names the constraint",
			slices: groupSlices(3, 1), claim: sameGroupClaim(2),
			want: sameGroup, wantString: "matchAttribute " + groupAttr + " unsatisfiable",
		},
		{
			name:   "a deadline the small matchAttribute case does not reach changes nothing",
			slices: groupSlices(3, 1), claim: sameGroupClaim(2), deadline: time.Minute,
			want: sameGroup, wantString: "matchAttribute " + groupAttr + " unsatisfiable",
		},
		{
			name:   "without a deadline a costly selector on one device still finds that nothing matches",
			slices: groupSlices(1, 0), claim: costlyClaim(),
			want:       allocator.Explanation{Kind: allocator.NoMatchingDevice, Request: "req", Class: "dev", Selectors: []string{costlySelector()}},
			wantString: `no device matches request "req" (class dev, selector ` + costlySelector() + `)`,
		},
		{
			name:   "a caller that stopped asking gets the generic finding, not the timeout's",
			slices: groupSlices(40, 1), claim: sameGroupClaim(10), cancelled: true,
			want: allocator.Explanation{}, wantString: "cannot allocate all claims",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			if tc.cancelled {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				cancel()
			}
			a := newTestAllocator(structured.AllocatedState{}, groupClasses, tc.slices)
			claims := []*resourceapi.ResourceClaim{tc.claim}
			// Every node has the same devices, hence the same finding and
			// the same reason string.
			for _, node := range groupNodes {
				var deadline time.Time
				start := time.Now()
				if tc.deadline > 0 {
					deadline = start.Add(tc.deadline)
				}
				got := a.ExplainBefore(ctx, node, claims, deadline)
				if took := time.Since(start); took > bound {
					t.Errorf("node %s: ExplainBefore took %v, want less than %v", node.Name, took, bound)
				}
				if !equalExplanations(got, tc.want) {
					t.Errorf("node %s: ExplainBefore =\n%#v\nwant\n%#v", node.Name, got, tc.want)
				}
				if s := got.String(); s != tc.wantString {
					t.Errorf("node %s: String() =\n%s\nwant\n%s", node.Name, s, tc.wantString)
				}
			}
		})
	}
}

// equalExplanations compares explanations field by field (nil and empty
// lists alike).
func equalExplanations(a, b allocator.Explanation) bool {
	return a.Kind == b.Kind && a.Request == b.Request && a.Class == b.Class && a.Need == b.Need && a.Constraint == b.Constraint &&
		strings.Join(a.Selectors, "\x00") == strings.Join(b.Selectors, "\x00") &&
		strings.Join(a.UnusablePools, "\x00") == strings.Join(b.UnusablePools, "\x00")
}

// TestExplainBeforeAPassedDeadline: what the node's kept selections
// answer needs no time, as FitsWithin's kept summaries; a search for the
// cause does.
func TestExplainBeforeAPassedDeadline(t *testing.T) {
	node := groupNodes[0]
	tooMany := objects.Claim("too-many", "ns", objects.ClaimSpec("req", "dev", 5))
	for _, tc := range []struct {
		name  string
		claim *resourceapi.ResourceClaim
		want  allocator.Explanation
	}{
		{"a request with too few devices is still named from the kept selection", tooMany,
			allocator.Explanation{Kind: allocator.TooFewMatching, Request: "req", Class: "dev", Need: 5, Selectors: []string{`device.driver == "` + groupDriver + `"`}}},
		{"a constraint that needs a search is not named once the time is up", sameGroupClaim(2), cutShort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAllocator(structured.AllocatedState{}, groupClasses, groupSlices(3, 1))
			claims := []*resourceapi.ResourceClaim{tc.claim}
			if fits, err := a.Fits(t.Context(), node, claims); fits || err != nil {
				t.Fatalf("Fits = %v, %v; the case needs claims that do not fit", fits, err)
			}
			got := a.ExplainBefore(t.Context(), node, claims, time.Now().Add(-time.Second))
			if !equalExplanations(got, tc.want) {
				t.Errorf("ExplainBefore =\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

// TestFitsWithinEndsACostlySelectorsEvaluationByTheTimeout: the timeout
// covers evaluating selectors for the search as well as for the quick
// answer.
func TestFitsWithinEndsACostlySelectorsEvaluationByTheTimeout(t *testing.T) {
	// A second request keeps the claim from the answer from counts.
	claim := costlyClaim()
	claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, objects.ClaimSpec("other", "dev", 1).Devices.Requests...)
	a := newTestAllocator(structured.AllocatedState{}, groupClasses, groupSlices(40, 0))
	start := time.Now()
	fits, err := a.FitsWithin(t.Context(), groupNodes[0], []*resourceapi.ResourceClaim{claim}, shortDeadline)
	if took := time.Since(start); took > bound {
		t.Errorf("FitsWithin took %v, want less than %v", took, bound)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("FitsWithin = %v, %v; want an error wrapping context.DeadlineExceeded", fits, err)
	}
}
