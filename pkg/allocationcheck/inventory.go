package allocationcheck

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/utils/ptr"
)

// poolID identifies a resource pool.
type poolID struct{ driver, pool string }

func (p poolID) String() string { return p.driver + "/" + p.pool }

// deviceID identifies a device the way results do.
type deviceID struct{ driver, pool, device string }

func (d deviceID) String() string { return d.driver + "/" + d.pool + "/" + d.device }

func (d deviceID) poolID() poolID { return poolID{d.driver, d.pool} }

// pool is what the slices say about one resource pool: only slices of its
// highest generation count.
type pool struct {
	id         poolID
	generation int64
	// slices of the highest generation, in input order.
	slices []*resourceapi.ResourceSlice
	// olderDevices are device names that only older generations list.
	olderDevices map[string]bool
	// counterSets of the highest generation by name; the first one wins.
	counterSets map[string]*resourceapi.CounterSet
	// duplicateCounterSets lists counter set names defined more than once.
	duplicateCounterSets []string
}

// complete reports whether every slice of the highest generation announces
// exactly as many slices as there are.
func (p *pool) complete() (bool, string) {
	for _, s := range p.slices {
		if s.Spec.Pool.ResourceSliceCount != int64(len(p.slices)) {
			return false, fmt.Sprintf("pool %s is incomplete: generation %d has %d slices, slice %s announces %d",
				p.id, p.generation, len(p.slices), s.Name, s.Spec.Pool.ResourceSliceCount)
		}
	}
	return true, ""
}

// device is one listing of a device in a slice of its pool's highest
// generation.
type device struct {
	id    deviceID
	pool  *pool
	slice *resourceapi.ResourceSlice
	spec  *resourceapi.Device
}

// inventory indexes the slices.
type inventory struct {
	pools map[poolID]*pool
	// devices maps a device to all its listings (more than one only for
	// duplicate names).
	devices map[deviceID][]*device
	// order lists every device ID once, sorted, for deterministic iteration.
	order []deviceID
}

func buildInventory(slices []*resourceapi.ResourceSlice) *inventory {
	inv := &inventory{pools: make(map[poolID]*pool), devices: make(map[deviceID][]*device)}
	for _, s := range slices {
		id := poolID{s.Spec.Driver, s.Spec.Pool.Name}
		p := inv.pools[id]
		switch {
		case p == nil:
			p = &pool{id: id, generation: s.Spec.Pool.Generation, olderDevices: make(map[string]bool)}
			inv.pools[id] = p
		case s.Spec.Pool.Generation > p.generation:
			for _, old := range p.slices {
				for _, d := range old.Spec.Devices {
					p.olderDevices[d.Name] = true
				}
			}
			p.generation, p.slices = s.Spec.Pool.Generation, nil
		case s.Spec.Pool.Generation < p.generation:
			for _, d := range s.Spec.Devices {
				p.olderDevices[d.Name] = true
			}
			continue
		}
		p.slices = append(p.slices, s)
	}
	for _, p := range inv.pools {
		p.counterSets = make(map[string]*resourceapi.CounterSet)
		for _, s := range p.slices {
			for i := range s.Spec.SharedCounters {
				cs := &s.Spec.SharedCounters[i]
				if p.counterSets[cs.Name] != nil {
					p.duplicateCounterSets = append(p.duplicateCounterSets, cs.Name)
					continue
				}
				p.counterSets[cs.Name] = cs
			}
			for i := range s.Spec.Devices {
				d := &s.Spec.Devices[i]
				id := deviceID{p.id.driver, p.id.pool, d.Name}
				if inv.devices[id] == nil {
					inv.order = append(inv.order, id)
				}
				inv.devices[id] = append(inv.devices[id], &device{id: id, pool: p, slice: s, spec: d})
			}
		}
		for name := range p.olderDevices {
			if inv.devices[deviceID{p.id.driver, p.id.pool, name}] != nil {
				delete(p.olderDevices, name)
			}
		}
	}
	sort.Slice(inv.order, func(i, j int) bool {
		a, b := inv.order[i], inv.order[j]
		if a.driver != b.driver {
			return a.driver < b.driver
		}
		if a.pool != b.pool {
			return a.pool < b.pool
		}
		return a.device < b.device
	})
	return inv
}

// ignoredSlice returns why the enabled features make an allocator ignore the
// slice, or "".
func (c *checker) ignoredSlice(s *resourceapi.ResourceSlice) string {
	if !c.features.PartitionableDevices {
		if s.Spec.PerDeviceNodeSelection != nil {
			return fmt.Sprintf("slice %s uses perDeviceNodeSelection, but the PartitionableDevices feature is disabled", s.Name)
		}
		if len(s.Spec.SharedCounters) > 0 {
			return fmt.Sprintf("slice %s defines shared counters, but the PartitionableDevices feature is disabled", s.Name)
		}
	}
	if !c.features.CompatibilityGroups {
		for _, d := range s.Spec.Devices {
			for _, cc := range d.ConsumesCounters {
				if len(cc.CompatibilityGroups) > 0 {
					return fmt.Sprintf("slice %s uses counter compatibility groups, but the CompatibilityGroups feature is disabled", s.Name)
				}
			}
		}
	}
	return ""
}

// nodeSource is where the node availability of a device is declared: the
// device itself with perDeviceNodeSelection, otherwise its slice.
type nodeSource struct {
	what         string // "slice x" or "device y in slice x"
	nodeName     string
	allNodes     bool
	nodeSelector *v1.NodeSelector
}

func sourceOf(d *device) nodeSource {
	s := d.slice
	if ptr.Deref(s.Spec.PerDeviceNodeSelection, false) {
		return nodeSource{
			what:         fmt.Sprintf("device %s in slice %s", d.spec.Name, s.Name),
			nodeName:     ptr.Deref(d.spec.NodeName, ""),
			allNodes:     ptr.Deref(d.spec.AllNodes, false),
			nodeSelector: d.spec.NodeSelector,
		}
	}
	return nodeSource{
		what:         "slice " + s.Name,
		nodeName:     ptr.Deref(s.Spec.NodeName, ""),
		allNodes:     ptr.Deref(s.Spec.AllNodes, false),
		nodeSelector: s.Spec.NodeSelector,
	}
}

// matches reports whether the source makes its devices available on node.
func (src nodeSource) matches(node *v1.Node) (bool, error) {
	switch {
	case src.nodeName != "":
		return src.nodeName == node.Name, nil
	case src.allNodes:
		return true, nil
	case src.nodeSelector != nil:
		sel, err := nodeaffinity.NewNodeSelector(src.nodeSelector)
		if err != nil {
			return false, fmt.Errorf("%s has an invalid node selector: %w", src.what, err)
		}
		return sel.Match(node), nil
	}
	return false, nil
}

// unavailable returns why the device cannot be allocated on the node under
// the enabled features, or "" if it can.
func (c *checker) unavailable(d *device) string {
	if ok, why := d.pool.complete(); !ok {
		return why
	}
	if why := c.ignoredSlice(d.slice); why != "" {
		return why
	}
	src := sourceOf(d)
	ok, err := src.matches(c.node)
	if err != nil {
		return err.Error()
	}
	if !ok {
		return fmt.Sprintf("%s is not available on node %s", src.what, c.node.Name)
	}
	return ""
}

// sliceRelevant reports whether the slice offers anything on the node.
func (c *checker) sliceRelevant(s *resourceapi.ResourceSlice) bool {
	if ptr.Deref(s.Spec.PerDeviceNodeSelection, false) {
		for i := range s.Spec.Devices {
			if ok, _ := sourceOf(&device{slice: s, spec: &s.Spec.Devices[i]}).matches(c.node); ok {
				return true
			}
		}
		return false
	}
	ok, _ := sourceOf(&device{slice: s, spec: &resourceapi.Device{}}).matches(c.node)
	return ok
}

// resolve returns the listing of the device that a result refers to: the
// only listing available on the node, else the only listing. It returns nil
// for unknown and ambiguous devices; checkDevices reports those.
func (c *checker) resolve(id deviceID) *device {
	listings := c.inv.devices[id]
	var onNode []*device
	for _, d := range listings {
		if c.unavailable(d) == "" {
			onNode = append(onNode, d)
		}
	}
	switch {
	case len(onNode) == 1:
		return onNode[0]
	case len(onNode) == 0 && len(listings) == 1:
		return listings[0]
	}
	return nil
}

// multi reports whether the device may be allocated more than once.
func (c *checker) multi(d *device) bool {
	return c.features.ConsumableCapacity && ptr.Deref(d.spec.AllowMultipleAllocations, false)
}
