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
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// deviceKey names a device across the cluster.
type deviceKey struct{ driver, pool, device string }

// deviceState is what allocations do with a device.
type deviceState int

const (
	freeState deviceState = iota
	allocatedState
	sharedState
)

// inUse is what the allocated claims hold: dedicated devices, and the
// capacity each share of a shared device consumes.
type inUse struct {
	dedicated map[deviceKey]bool
	shares    map[deviceKey][]map[resourceapi.QualifiedName]resource.Quantity
}

// allocations collects what the claims' allocations hold; admin-access
// results hold nothing.
func allocations(claims []*resourceapi.ResourceClaim) inUse {
	u := inUse{dedicated: map[deviceKey]bool{}, shares: map[deviceKey][]map[resourceapi.QualifiedName]resource.Quantity{}}
	for _, c := range claims {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			if r.AdminAccess != nil && *r.AdminAccess {
				continue
			}
			k := deviceKey{r.Driver, r.Pool, r.Device}
			if r.ShareID != nil {
				u.shares[k] = append(u.shares[k], r.ConsumedCapacity)
				continue
			}
			u.dedicated[k] = true
		}
	}
	return u
}

func (u inUse) state(p *pool, d device) deviceState {
	k := deviceKey{p.driver, p.name, d.spec.Name}
	switch {
	case u.dedicated[k]:
		return allocatedState
	case len(u.shares[k]) > 0:
		return sharedState
	}
	return freeState
}

// counters is, for every counter of the pool's counter sets, the total and
// what its allocated devices consume.
func (u inUse) counters(p *pool) []Consumption {
	used := map[string]resource.Quantity{}
	for _, d := range p.devices {
		if u.state(p, d) == freeState {
			continue
		}
		for _, c := range d.spec.ConsumesCounters {
			for name, q := range c.Counters {
				k := c.CounterSet + "/" + name
				v := used[k]
				v.Add(q.Value)
				used[k] = v
			}
		}
	}
	var out []Consumption
	for _, set := range p.counterSets {
		for name, c := range set.Counters {
			k := set.Name + "/" + name
			out = append(out, Consumption{Name: k, Total: c.Value, Used: used[k]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// capacity is, for every capacity of the pool's shared devices in use,
// the total and what the shares consume.
func (u inUse) capacity(p *pool) []Consumption {
	var out []Consumption
	for _, d := range p.devices {
		shares := u.shares[deviceKey{p.driver, p.name, d.spec.Name}]
		if len(shares) == 0 {
			continue
		}
		for name, c := range d.spec.Capacity {
			var used resource.Quantity
			for _, s := range shares {
				if q, ok := s[name]; ok {
					used.Add(q)
				}
			}
			out = append(out, Consumption{Name: d.spec.Name + "/" + string(name), Total: c.Value, Used: used})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
