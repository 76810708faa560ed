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
	"fmt"
	"sort"
	"strings"
)

// checkDevices verifies rule 2 for every result entry: the device is listed
// in a slice of its (driver, pool) at the generation of the pool that counts
// for the node, the pool is usable on the node, the slice is not one the
// enabled features make allocators ignore, and the slice — or the device
// itself, with perDeviceNodeSelection — is available on the node. A device
// listed more than once among the listings available on the node is
// ambiguous and reported.
//
// Which generation counts and whether the pool is usable is decided per node
// as upstream's allocator does (docs/design/upstream-allocator.md §3.1–3.3,
// see buildInventory): the highest generation among the node's slices of
// the pool if those are complete by the resourceSliceCount of the first of
// them — even when a newer generation exists in slices that are not relevant
// for the node —, else that generation if all slices of it are complete and
// none is newer. A pool whose node slices are incomplete is obsolete if a
// newer generation exists and incomplete otherwise; neither can be
// allocated from.
func checkDevices(c *checker) []error {
	var errs []error
	for _, cv := range c.claims {
		for _, e := range cv.entries {
			if why := c.deviceProblem(e.id); why != "" {
				errs = append(errs, cv.entryViolation(CheckDevice, e, "%s", why))
			}
		}
	}
	return errs
}

// deviceProblem returns why the device cannot have been allocated on the
// node, or "".
func (c *checker) deviceProblem(id deviceID) string {
	p := c.inv.pools[id.poolID()]
	if p == nil {
		return fmt.Sprintf("no ResourceSlice belongs to pool %s", id.poolID())
	}
	listings := c.inv.devices[id]
	if len(listings) == 0 {
		return missingDevice(p, id.device, c.node.Name)
	}
	var onNode, why []string
	for _, d := range listings {
		if reason := c.unavailable(d); reason != "" {
			why = append(why, reason)
			continue
		}
		onNode = append(onNode, d.slice.Name)
	}
	switch len(onNode) {
	case 0:
		return strings.Join(why, "; ")
	case 1:
		return ""
	}
	sort.Strings(onNode)
	return fmt.Sprintf("device name is ambiguous, slices %s of pool %s all list it for node %s", strings.Join(onNode, ", "), p.id, c.node.Name)
}

// missingDevice explains why a pool has no listing of the named device.
func missingDevice(p *pool, name, node string) string {
	gens := p.otherGenerations[name]
	var msg string
	switch {
	case p.generation < p.latest:
		msg = fmt.Sprintf("pool %s has no device %s in generation %d, the one node %s uses because the node's slices of it are complete (generation %d exists, but not for the node)",
			p.id, name, p.generation, node, p.latest)
		if len(gens) > 0 {
			msg += fmt.Sprintf("; the device is only listed in generation(s) %v", gens)
		}
	case len(gens) > 0:
		msg = fmt.Sprintf("device %s is only listed in an older generation of pool %s, the current one is %d", name, p.id, p.generation)
	default:
		msg = fmt.Sprintf("pool %s (generation %d) has no device %s", p.id, p.generation, name)
	}
	if p.why != "" {
		msg += "; " + p.why
	}
	return msg
}
