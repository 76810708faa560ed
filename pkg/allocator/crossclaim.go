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

package allocator

import (
	"fmt"
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Constraints across claims (issue 57). DRA constrains devices only within
// one claim (spec.devices.constraints). A constraint across claims has
// exactly a DeviceConstraint's semantics (§5.3: a device without the
// attribute does not match, firstAvailable subrequests are covered by
// their parent request's name, list-typed attributes intersect with
// ListTypeAttributes) over requests of several claims, named by claim.
// The search already takes all of a call's claims in one depth-first walk,
// so such a constraint is one more tracker that tryDevice asks and release
// rewinds, beside each claim's own. Claims already allocated are fixed
// choices: their devices join every constraint that names them before the
// search starts, and are never removed.
//
// With constraints across claims a call never answers from counts (the
// counts know one claim's constraint at most) and no claim is a twin (a
// constraint may cover one twin and not the other).

// CrossClaimConstraint is a DeviceConstraint across claims: the devices of
// the requests it names all share the value of MatchAttribute, or no two
// of them share the value of DistinctAttribute. Exactly one is set.
type CrossClaimConstraint struct {
	// Requests names the requests the constraint covers; empty: every
	// request of every claim, allocated ones included.
	Requests []ClaimRequest
	// MatchAttribute and DistinctAttribute: as in a DeviceConstraint.
	MatchAttribute, DistinctAttribute *resourceapi.FullyQualifiedName
	// Chosen are devices chosen elsewhere that the constraint counts as
	// its own, as it counts allocated claims' devices, though no claim of
	// the call has them and they need not be allocated: a pod group's
	// devices on other nodes. One fixes a match's value, they take their
	// values from a distinct's.
	Chosen []structured.DeviceID
}

// ClaimRequest names a request of a claim, or every request of it.
type ClaimRequest struct {
	// Claim is the ResourceClaim's name; the claims of one call are of one
	// namespace.
	Claim string
	// Request is the request's name; empty: every request of the claim.
	// Subrequest, if set, names one firstAvailable alternative; empty:
	// every alternative.
	Request, Subrequest string
}

// allocatedConflictError says that the claims already allocated violate a
// constraint across claims by themselves: the claims asked about cannot
// fit on any node. Not specific to a node: it wraps no
// structured.ErrFailedAllocationOnNode.
type allocatedConflictError struct {
	// Constraint is the index of the constraint.
	Constraint int
	// Claim, Request and Device name the allocated device that could not
	// join it; Claim and Request are empty for a device chosen elsewhere.
	Claim, Request string
	Device         structured.DeviceID
	// Reason says why: the device lacks the attribute, or its value
	// differs (match) or repeats (distinct).
	Reason string
}

func (e *allocatedConflictError) Error() string {
	if e.Claim == "" {
		return fmt.Sprintf("constraint %d across claims: device %s, chosen elsewhere, %s", e.Constraint, e.Device, e.Reason)
	}
	return fmt.Sprintf("constraint %d across claims: device %s, allocated to claim %s for request %s, %s", e.Constraint, e.Device, e.Claim, e.Request, e.Reason)
}

// crossClaims is an allocator's constraints across claims.
type crossClaims struct {
	constraints []CrossClaimConstraint
	allocated   []*resourceapi.ResourceClaim
}

// WithCrossClaimConstraints returns an allocator like a whose calls also
// honour constraints across the claims they are asked about and the
// claims in allocated, which must be allocated: their devices are fixed
// choices. A constraint naming a claim neither asked about nor allocated
// ignores that claim. Without constraints it is a's equal.
func (a *Allocator) WithCrossClaimConstraints(constraints []CrossClaimConstraint, allocated []*resourceapi.ResourceClaim) *Allocator {
	b := a.WithState(a.state)
	b.domain = a.domain
	b.cross = nil
	if len(constraints) > 0 {
		b.cross = &crossClaims{constraints: constraints, allocated: allocated}
	}
	return b
}

// crossSubjects are the requests a constraint across claims covers, by
// claim index in the call (allocated claims follow the claims asked
// about).
type crossSubjects struct {
	// all: every request of every claim.
	all  bool
	list []crossSubject
}

// crossSubject is one claim's request ("" base: every request), or one
// alternative of it.
type crossSubject struct {
	claim     int
	base, sub string
}

// covers reports whether a device taken by r is subject to the
// constraint.
func (s *crossSubjects) covers(r *request) bool {
	if s.all || r.claim == chosenClaim {
		return true
	}
	for _, x := range s.list {
		if x.claim == r.claim && (x.base == "" || x.base == r.base && (x.sub == "" || x.sub == r.sub)) {
			return true
		}
	}
	return false
}

// prepareCross builds the call's constraints across claims, resolving
// their claims by name, and adds the allocated claims' devices to them.
func (c *call) prepareCross() error {
	c.cross = c.cross[:0]
	x := c.a.cross
	if x == nil {
		return nil
	}
	c.twins = nil
	// Storage reused from earlier calls: Filter asks on node after node.
	c.crossSubjects = slices.Grow(c.crossSubjects[:0], len(x.constraints))[:len(x.constraints)]
	// Room for every tracker up front: the trackers point into it.
	n := len(x.constraints)
	c.crossMatch, c.crossDistinct = slices.Grow(c.crossMatch[:0], n), slices.Grow(c.crossDistinct[:0], n)
	for i, con := range x.constraints {
		subjects := &c.crossSubjects[i]
		subjects.all, subjects.list = len(con.Requests) == 0, subjects.list[:0]
		for _, ref := range con.Requests {
			if ci := c.claimIndex(ref.Claim); ci >= 0 {
				subjects.list = append(subjects.list, crossSubject{claim: ci, base: ref.Request, sub: ref.Subrequest})
			}
		}
		tracker := c.newCrossConstraint(con, subjects)
		if err := c.addAllocated(i, tracker, x.allocated); err != nil {
			return err
		}
		if err := c.addChosen(i, tracker, con.Chosen); err != nil {
			return err
		}
		c.cross = append(c.cross, tracker)
	}
	return nil
}

// claimIndex is the index of the claim named name among the call's
// claims, then the allocated ones after them; -1 for none. Calls have a
// few claims: a scan costs less than a map.
func (c *call) claimIndex(name string) int {
	for i, claim := range c.claims {
		if claim.Name == name {
			return i
		}
	}
	for k, claim := range c.a.cross.allocated {
		if claim.Name == name {
			return len(c.claims) + k
		}
	}
	return -1
}

// newCrossConstraint returns a tracker of con over subjects, in the call's
// storage, which prepareCross made room in (but for list-typed
// attributes, an alpha feature).
func (c *call) newCrossConstraint(con CrossClaimConstraint, subjects *crossSubjects) constraint {
	switch {
	case c.a.features.ListTypeAttributes && con.MatchAttribute != nil:
		return &matchSetConstraint{compared: compared{across: subjects, name: *con.MatchAttribute}}
	case c.a.features.ListTypeAttributes:
		return &distinctSetConstraint{compared: compared{across: subjects, name: *con.DistinctAttribute}}
	case con.MatchAttribute != nil:
		c.crossMatch = append(c.crossMatch, matchConstraint{compared: compared{across: subjects, name: *con.MatchAttribute}})
		return &c.crossMatch[len(c.crossMatch)-1]
	default:
		n := len(c.crossDistinct)
		c.crossDistinct = c.crossDistinct[:n+1]
		values := c.crossDistinct[n].values[:0]
		c.crossDistinct[n] = distinctConstraint{compared: compared{across: subjects, name: *con.DistinctAttribute}, values: values}
		return &c.crossDistinct[n]
	}
}

// addAllocated adds the devices of the allocated claims to constraint i's
// tracker, for good.
func (c *call) addAllocated(i int, tracker constraint, allocated []*resourceapi.ResourceClaim) error {
	for k, claim := range allocated {
		if claim.Status.Allocation == nil {
			continue
		}
		for _, res := range claim.Status.Allocation.Devices.Results {
			base, sub, _ := strings.Cut(res.Request, "/")
			r := &request{claim: len(c.claims) + k, base: base, sub: sub, hasSubs: sub != ""}
			id := structured.MakeDeviceID(res.Driver, res.Pool, res.Device)
			conflict := &allocatedConflictError{Constraint: i, Claim: claim.Name, Request: res.Request, Device: id}
			devices := c.a.inv.LookupID(id)
			if len(devices) == 0 {
				if tracker.covers(r) {
					conflict.Reason = "is in no slice"
					return conflict
				}
				continue
			}
			ok, err := tracker.add(c, r, devices[0])
			if err != nil {
				return fmt.Errorf("constraint %d across claims: device %s of claim %s: %w", i, id, claim.Name, err)
			}
			if !ok {
				conflict.Reason = "does not meet it (its attribute is missing, or its value conflicts with the other devices')"
				return conflict
			}
		}
	}
	return nil
}

// chosenClaim is the claim index of the requests that stand for a
// constraint's chosen devices: every constraint covers them.
const chosenClaim = -2

// addChosen adds constraint i's chosen devices to its tracker, for good.
func (c *call) addChosen(i int, tracker constraint, chosen []structured.DeviceID) error {
	for _, id := range chosen {
		conflict := &allocatedConflictError{Constraint: i, Device: id}
		devices := c.a.inv.LookupID(id)
		if len(devices) == 0 {
			conflict.Reason = "is in no slice"
			return conflict
		}
		ok, err := tracker.add(c, &request{claim: chosenClaim}, devices[0])
		if err != nil {
			return fmt.Errorf("constraint %d across claims: device %s chosen elsewhere: %w", i, id, err)
		}
		if !ok {
			conflict.Reason = "does not meet it (its attribute is missing, or its value conflicts with the other devices')"
			return conflict
		}
	}
	return nil
}

// crossClassed gives each gang member with a claim that a constraint
// across claims names a class of its own (PlanGang): a class's fit memo
// and claim sets stand for interchangeable members, and such a
// constraint tells its member's claims from a twin's by name.
func (a *Allocator) crossClassed(members []GangMember) []GangMember {
	named, all := map[string]bool{}, false
	for _, con := range a.cross.constraints {
		all = all || len(con.Requests) == 0
		for _, r := range con.Requests {
			named[r.Claim] = true
		}
	}
	out := slices.Clone(members)
	for i := range out {
		if all || slices.ContainsFunc(out[i].Claims, func(c *resourceapi.ResourceClaim) bool { return named[c.Name] }) {
			out[i].Class += "\x00constrained\x00" + out[i].Name
		}
	}
	return out
}
