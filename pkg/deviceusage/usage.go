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

package deviceusage

import (
	"context"
	"fmt"
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/cel"

	"github.com/dra-scheduler/dra-scheduler/pkg/celmatch"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
)

// Report is the device usage of a cluster.
type Report struct {
	Classes []ClassUsage `json:"classes"`
	Pools   []PoolUsage  `json:"pools"`
	// Notes are selector errors and other caveats.
	Notes []string `json:"notes,omitempty"`
}

// Counts are devices by state. A device that allows multiple allocations
// and has at least one is Shared, not Allocated.
type Counts struct {
	Devices   int `json:"devices"`
	Allocated int `json:"allocated"`
	Shared    int `json:"shared"`
	Free      int `json:"free"`
}

// ClassUsage counts the devices a DeviceClass selects.
type ClassUsage struct {
	Class string `json:"class"`
	Counts
}

// PoolUsage is one pool's devices, counters and shared capacity.
type PoolUsage struct {
	Driver string `json:"driver"`
	Pool   string `json:"pool"`
	// Node is the node of a node-local pool, "" for others.
	Node string `json:"node,omitempty"`
	// Incomplete pools miss some of their slices; the allocator skips them.
	Incomplete bool `json:"incomplete,omitempty"`
	Counts
	Counters []Consumption `json:"counters,omitempty"`
	Capacity []Consumption `json:"capacity,omitempty"`
}

// Consumption is how much of a counter (of a counter set) or of a
// device's capacity is in use.
type Consumption struct {
	// Name is "<counter set>/<counter>" or "<device>/<capacity>".
	Name  string            `json:"name"`
	Total resource.Quantity `json:"total"`
	Used  resource.Quantity `json:"used"`
}

// device is one device of a pool's current generation.
type device struct {
	driver string
	spec   *resourceapi.Device
}

// pool is the current generation of one pool.
type pool struct {
	driver, name, node string
	generation         int64
	sliceCount         int64
	slices             int
	devices            []device
	counterSets        []resourceapi.CounterSet
}

// Compute accounts for the devices of objs.
func Compute(ctx context.Context, objs *clusterstate.Objects) (*Report, error) {
	pools := currentPools(objs.Slices)
	use := allocations(objs.Claims)
	r := &Report{}
	cache := cel.NewCache(100, cel.Features{EnableConsumableCapacity: true})
	for _, class := range objs.Classes {
		cu := ClassUsage{Class: class.Name}
		var selectors []*celmatch.Selector
		for _, sel := range class.Spec.Selectors {
			if sel.CEL == nil {
				continue
			}
			s, err := celmatch.Compile(cache, sel.CEL.Expression)
			if err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("DeviceClass %s: %v", class.Name, err))
				selectors = nil
				break
			}
			selectors = append(selectors, s)
		}
		errs := 0
		for _, p := range pools {
			if p.incomplete() {
				continue
			}
			for _, d := range p.devices {
				ok, err := matches(ctx, selectors, d)
				if err != nil {
					errs++
					continue
				}
				if ok {
					cu.add(use.state(p, d))
				}
			}
		}
		if errs > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("DeviceClass %s: its selectors fail on %d devices (not counted)", class.Name, errs))
		}
		r.Classes = append(r.Classes, cu)
	}
	for _, p := range pools {
		pu := PoolUsage{Driver: p.driver, Pool: p.name, Node: p.node, Incomplete: p.incomplete()}
		for _, d := range p.devices {
			pu.add(use.state(p, d))
		}
		pu.Counters = use.counters(p)
		pu.Capacity = use.capacity(p)
		r.Pools = append(r.Pools, pu)
	}
	return r, nil
}

func matches(ctx context.Context, selectors []*celmatch.Selector, d device) (bool, error) {
	a := celmatch.NewActivation(d.driver, d.spec)
	for _, s := range selectors {
		ok, err := s.Matches(ctx, a)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (c *Counts) add(s deviceState) {
	c.Devices++
	switch s {
	case allocatedState:
		c.Allocated++
	case sharedState:
		c.Shared++
	default:
		c.Free++
	}
}

func (p *pool) incomplete() bool { return int64(p.slices) < p.sliceCount }

// currentPools groups slices into pools, keeping each pool's highest
// generation; sorted by driver and pool.
func currentPools(slices []*resourceapi.ResourceSlice) []*pool {
	byID := map[[2]string]*pool{}
	for _, s := range slices {
		id := [2]string{s.Spec.Driver, s.Spec.Pool.Name}
		p := byID[id]
		if p == nil || s.Spec.Pool.Generation > p.generation {
			p = &pool{driver: s.Spec.Driver, name: s.Spec.Pool.Name, generation: s.Spec.Pool.Generation}
			byID[id] = p
		}
		if s.Spec.Pool.Generation < p.generation {
			continue
		}
		p.slices++
		p.sliceCount = s.Spec.Pool.ResourceSliceCount
		if s.Spec.NodeName != nil {
			p.node = *s.Spec.NodeName
		}
		for i := range s.Spec.Devices {
			p.devices = append(p.devices, device{driver: s.Spec.Driver, spec: &s.Spec.Devices[i]})
		}
		p.counterSets = append(p.counterSets, s.Spec.SharedCounters...)
	}
	out := make([]*pool, 0, len(byID))
	for _, p := range byID {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].driver != out[j].driver {
			return out[i].driver < out[j].driver
		}
		return out[i].name < out[j].name
	})
	return out
}
