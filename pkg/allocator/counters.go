package allocator

import (
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// counterSets maps counter set name -> counter name -> value.
type counterSets map[string]map[string]resource.Quantity

// available returns what the pool's counter sets offer after subtracting
// the consumption of already allocated devices. Like upstream it is
// computed once per pool and allocator (§5.5).
func (a *Allocator) available(pool *inventory.Pool) counterSets {
	a.countersMu.Lock()
	defer a.countersMu.Unlock()
	if cs, ok := a.counters[pool.ID]; ok {
		return cs
	}
	cs := counterSets{}
	for name, set := range pool.CounterSets {
		counters := make(map[string]resource.Quantity, len(set.Counters))
		for cn, c := range set.Counters {
			counters[cn] = c.Value.DeepCopy()
		}
		cs[name] = counters
	}
	for _, group := range [][]*inventory.Slice{pool.Targeting, pool.NotTargeting} {
		for _, s := range group {
			for _, d := range s.Devices {
				if !a.state.isAllocated(d.Index) {
					continue
				}
				for _, use := range d.Spec.ConsumesCounters {
					set := cs[use.CounterSet]
					for cn, c := range use.Counters {
						if v, ok := set[cn]; ok {
							v.Sub(c.Value)
							set[cn] = v
						}
					}
				}
			}
		}
	}
	a.counters[pool.ID] = cs
	return cs
}

// reserveCounters adds the device's counter consumption to this call's and
// keeps it if every counter of the pool still fits; it reports whether it
// did.
func (c *call) reserveCounters(cand candidate) bool {
	avail := c.a.available(cand.pool)
	consumed := c.consumed[cand.pool.ID]
	if consumed == nil {
		consumed = counterSets{}
		c.consumed[cand.pool.ID] = consumed
	}
	for _, use := range cand.dev.Spec.ConsumesCounters {
		set := consumed[use.CounterSet]
		if set == nil {
			set = map[string]resource.Quantity{}
			consumed[use.CounterSet] = set
		}
		for cn, q := range use.Counters {
			v, ok := set[cn]
			if !ok {
				set[cn] = q.Value.DeepCopy()
				continue
			}
			v.Add(q.Value)
			set[cn] = v
		}
	}
	// Every counter of the pool is compared, not only the device's (§5.5).
	for setName, counters := range avail {
		used := consumed[setName]
		for cn, have := range counters {
			need := used[cn]
			if have.Cmp(need) < 0 {
				c.releaseCounters(cand)
				return false
			}
		}
	}
	return true
}

// releaseCounters undoes reserveCounters.
func (c *call) releaseCounters(cand candidate) {
	consumed := c.consumed[cand.pool.ID]
	for _, use := range cand.dev.Spec.ConsumesCounters {
		set := consumed[use.CounterSet]
		for cn, q := range use.Counters {
			v := set[cn]
			v.Sub(q.Value)
			set[cn] = v
		}
	}
}
