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

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
)

// compareCounts counts every tracked claim's uses again and compares the
// counts the tracker keeps up to date use by use. The dedicated devices'
// counts are first checked without building a recount (dedicatedAgree);
// only when they disagree are they recounted, to say where.
func (t *Tracker) compareCounts(l *drift.List) {
	if !t.dedicatedAgree() {
		t.recountDedicated(l)
	}
	t.recountShared(l)
}

// eachUse calls f with each use a claim makes, recorded then pending.
func (tc *trackedClaim) eachUse(f func(u deviceUse)) {
	for _, u := range tc.recorded {
		f(u)
	}
	for _, u := range tc.pending {
		f(u)
	}
}

// dedicatedAgree reports whether the holders of every dedicated device,
// and their number, are those of the claims tracked: every claim holds
// each of its devices as often as it uses it, no holder is counted that
// no claim accounts for, and a device's count is its holders'. It
// allocates nothing for claims of up to manyUses uses.
func (t *Tracker) dedicatedAgree() bool {
	const manyUses = 32
	var counts map[structured.DeviceID]int // for claims of many uses
	uses := 0
	for uid, tc := range t.claims {
		n := len(tc.recorded) + len(tc.pending)
		if n > manyUses {
			if counts == nil {
				counts = map[structured.DeviceID]int{}
			}
			clear(counts)
			tc.eachUse(func(u deviceUse) {
				if u.share == nil {
					counts[u.id]++
				}
			})
			for id, n := range counts {
				if t.holders[id][uid] != n {
					return false
				}
				uses += n
			}
			continue
		}
		agree := true
		tc.eachUse(func(u deviceUse) {
			if u.share != nil || !agree {
				return
			}
			uses++
			n := 0
			tc.eachUse(func(o deviceUse) {
				if o.share == nil && o.id == u.id {
					n++
				}
			})
			agree = t.holders[u.id][uid] == n
		})
		if !agree {
			return false
		}
	}
	held := 0
	for id, m := range t.holders {
		sum := 0
		for _, n := range m {
			sum += n
		}
		if sum != t.dedicated[id] {
			return false
		}
		held += sum
	}
	return held == uses && len(t.holders) == len(t.dedicated)
}

// recountDedicated recounts the holders of dedicated devices and reports
// every count that differs.
func (t *Tracker) recountDedicated(l *drift.List) {
	dedicated := map[structured.DeviceID]int{}
	holders := map[structured.DeviceID]map[types.UID]int{}
	for uid, tc := range t.claims {
		tc.eachUse(func(u deviceUse) {
			if u.share != nil {
				return
			}
			dedicated[u.id]++
			if holders[u.id] == nil {
				holders[u.id] = map[types.UID]int{}
			}
			holders[u.id][uid]++
		})
	}
	compareCountsOf(l, "holders", t.dedicated, dedicated, func(id structured.DeviceID) structured.DeviceID { return id })
	eachKey(t.holders, holders, func(id structured.DeviceID) {
		eachKey(t.holders[id], holders[id], func(uid types.UID) {
			if got, want := t.holders[id][uid], holders[id][uid]; got != want {
				l.Add(drift.Count, poolObject(id), "device %s: uses by %s %d counted, %d among the claims tracked", id.Device, t.name(uid), got, want)
			}
		})
	})
}

// recountShared recounts the shares of devices that allow several
// allocations, and their consumed capacity, and reports every count that
// differs. Without shares it builds nothing.
func (t *Tracker) recountShared(l *drift.List) {
	var (
		shares   map[structured.SharedDeviceID]int
		sharesOf map[structured.DeviceID]int
		capacity structured.ConsumedCapacityCollection
	)
	for _, tc := range t.claims {
		tc.eachUse(func(u deviceUse) {
			if u.share == nil {
				return
			}
			if shares == nil {
				shares, sharesOf, capacity = map[structured.SharedDeviceID]int{}, map[structured.DeviceID]int{}, structured.NewConsumedCapacityCollection()
			}
			shares[*u.share]++
			sharesOf[u.id]++
			if u.capacity != nil {
				capacity.Insert(*u.capacity)
			}
		})
	}
	compareCountsOf(l, "shares", t.sharesOf, sharesOf, func(id structured.DeviceID) structured.DeviceID { return id })
	compareCountsOf(l, "uses of share", t.shares, shares, structured.SharedDeviceID.GetDeviceID)
	eachKey(t.capacity, capacity, func(id structured.DeviceID) {
		if got, want := t.capacity[id], capacity[id]; !sameCapacity(got, want) {
			l.Add(drift.Count, poolObject(id), "device %s: consumed capacity %s counted, %s among the claims tracked", id.Device, renderCapacity(got), renderCapacity(want))
		}
	})
}

// compareCountsOf compares one table of counts with the recount.
func compareCountsOf[K comparable](l *drift.List, what string, got, want map[K]int, device func(K) structured.DeviceID) {
	eachKey(got, want, func(k K) {
		if g, w := got[k], want[k]; g != w {
			l.Add(drift.Count, poolObject(device(k)), "device %s: %s %d counted, %d among the claims tracked", describeKey(k), what, g, w)
		}
	})
}

// describeKey names a device, or a device's share.
func describeKey(k any) string {
	switch k := k.(type) {
	case structured.DeviceID:
		return k.Device.String()
	case structured.SharedDeviceID:
		return k.Device.String() + " (share " + k.ShareID.String() + ")"
	}
	return fmt.Sprint(k)
}

// eachKey calls f with every key of a or b, once.
func eachKey[K comparable, V any](a, b map[K]V, f func(K)) {
	for k := range a {
		f(k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			f(k)
		}
	}
}

// sameCapacity compares consumed capacities, a zero quantity counting as
// none (the collection drops entries only once all of them are zero).
func sameCapacity(a, b structured.ConsumedCapacity) bool {
	same := true
	eachKey(a, b, func(name resourceapi.QualifiedName) {
		if q := quantityOf(a, name); q.Cmp(quantityOf(b, name)) != 0 {
			same = false
		}
	})
	return same
}

func quantityOf[K comparable](c map[K]*resource.Quantity, name K) resource.Quantity {
	if q := c[name]; q != nil {
		return *q
	}
	return resource.Quantity{}
}
