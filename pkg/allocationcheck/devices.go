package allocationcheck

import (
	"fmt"
	"sort"
	"strings"
)

// checkDevices verifies rule 2 for every result entry: the device is listed
// in a slice of its (driver, pool) at the pool's highest generation, the pool
// is complete, the slice is not one the enabled features make allocators
// ignore, and the slice — or the device itself, with perDeviceNodeSelection —
// is available on the node. A device listed more than once among the
// listings available on the node is ambiguous and reported.
//
// Deliberately stricter than upstream in two corner cases of pools that are
// being republished or are malformed:
//
//   - Upstream judges generations among the slices relevant to the node
//     only, so it may still allocate from an old generation whose slices for
//     the node are complete while a newer generation exists elsewhere. The API
//     says consumers must use the highest generation; the checker does.
//   - Upstream takes resourceSliceCount from the first slice; the checker
//     requires every slice of the generation to announce the actual count,
//     since a pool whose slices disagree cannot be known to be complete.
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
		if p.olderDevices[id.device] {
			return fmt.Sprintf("device %s is only listed in an older generation of pool %s, the current one is %d", id.device, p.id, p.generation)
		}
		return fmt.Sprintf("pool %s (generation %d) has no device %s", p.id, p.generation, id.device)
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
