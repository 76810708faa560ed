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

package inventory

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// slice builds a slice of pool (driver, pool) with generation gen, count
// slices in the pool, and the named devices.
func slice(name, driver, pool string, gen, count int64, devices ...string) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: driver,
			Pool:   resourceapi.ResourcePool{Name: pool, Generation: gen, ResourceSliceCount: count},
		},
	}
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: d})
	}
	return s
}

func onNode(s *resourceapi.ResourceSlice, node string) *resourceapi.ResourceSlice {
	s.Spec.NodeName = &node
	return s
}

func allNodes(s *resourceapi.ResourceSlice) *resourceapi.ResourceSlice {
	s.Spec.AllNodes = ptr.To(true)
	return s
}

func withLabel(s *resourceapi.ResourceSlice, key, value string) *resourceapi.ResourceSlice {
	s.Spec.NodeSelector = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}}},
	}}}
	return s
}

func node(name string, labels ...string) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	for i := 0; i+1 < len(labels); i += 2 {
		n.Labels[labels[i]] = labels[i+1]
	}
	return n
}

// describe renders pools as "driver/pool[state]: dev dev ..." lines.
func describe(pools []*Pool) string {
	var lines []string
	for _, p := range pools {
		line := p.ID.String()
		switch {
		case p.Incomplete:
			line += " incomplete"
		case p.Invalid:
			line += " invalid: " + p.InvalidReason
		}
		var devs []string
		p.Devices(func(d *Device) bool { devs = append(devs, d.Name()); return true })
		if len(devs) > 0 {
			line += ": " + strings.Join(devs, " ")
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "; ")
}

func TestPools(t *testing.T) {
	bound := func(s *resourceapi.ResourceSlice) *resourceapi.ResourceSlice {
		s.Spec.Devices[0].BindingConditions = []string{"ready"}
		return s
	}
	for _, tc := range []struct {
		name   string
		slices []*resourceapi.ResourceSlice
		node   *v1.Node
		want   string
	}{{
		name:   "a node-local complete pool offers its devices in slice order",
		slices: []*resourceapi.ResourceSlice{onNode(slice("s", "d", "p", 1, 1, "b", "a"), "n")},
		node:   node("n"),
		want:   "d/p: b a",
	}, {
		name:   "another node's slices are not offered",
		slices: []*resourceapi.ResourceSlice{onNode(slice("s", "d", "p", 1, 1, "a"), "other")},
		node:   node("n"),
		want:   "",
	}, {
		name: "slices are searched by name and pools by driver then pool name, byte-wise",
		slices: []*resourceapi.ResourceSlice{
			onNode(slice("s-2", "d", "pool-2", 1, 1, "x"), "n"),
			onNode(slice("s-b", "d", "pool-10", 1, 2, "b"), "n"),
			onNode(slice("s-a", "d", "pool-10", 1, 2, "a"), "n"),
			onNode(slice("s-0", "c", "pool-9", 1, 1, "y"), "n"),
		},
		node: node("n"),
		want: "c/pool-9: y; d/pool-10: a b; d/pool-2: x",
	}, {
		name:   "a pool missing slices is incomplete",
		slices: []*resourceapi.ResourceSlice{onNode(slice("s", "d", "p", 1, 2, "a"), "n")},
		node:   node("n"),
		want:   "d/p incomplete",
	}, {
		name:   "a pool with more slices than announced is incomplete",
		slices: []*resourceapi.ResourceSlice{onNode(slice("s1", "d", "p", 1, 1, "a"), "n"), onNode(slice("s2", "d", "p", 1, 1, "b"), "n")},
		node:   node("n"),
		want:   "d/p incomplete",
	}, {
		name: "older generations are ignored",
		slices: []*resourceapi.ResourceSlice{
			onNode(slice("old", "d", "p", 1, 1, "old"), "n"),
			onNode(slice("new", "d", "p", 2, 1, "new"), "n"),
		},
		node: node("n"),
		want: "d/p: new",
	}, {
		name: "an incomplete pool with a newer generation elsewhere is dropped",
		slices: []*resourceapi.ResourceSlice{
			onNode(slice("here", "d", "p", 1, 2, "a"), "n"),
			onNode(slice("there", "d", "p", 2, 2, "b"), "other"),
		},
		node: node("n"),
		want: "",
	}, {
		name: "slices of the same generation on other nodes complete the pool",
		slices: []*resourceapi.ResourceSlice{
			onNode(slice("here", "d", "p", 1, 2, "a"), "n"),
			onNode(slice("there", "d", "p", 1, 2, "b"), "other"),
		},
		node: node("n"),
		want: "d/p: a",
	}, {
		name:   "duplicate device names make the pool invalid",
		slices: []*resourceapi.ResourceSlice{onNode(slice("s1", "d", "p", 1, 2, "a"), "n"), onNode(slice("s2", "d", "p", 1, 2, "a"), "n")},
		node:   node("n"),
		want:   "d/p invalid: duplicate device name a",
	}, {
		name: "label selectors and allNodes select shared slices",
		slices: []*resourceapi.ResourceSlice{
			withLabel(slice("rack-1", "net", "rack-1", 1, 1, "r1"), "rack", "1"),
			withLabel(slice("rack-2", "net", "rack-2", 1, 1, "r2"), "rack", "2"),
			allNodes(slice("everywhere", "fabric", "global", 1, 1, "f")),
		},
		node: node("n", "rack", "1"),
		want: "fabric/global: f; net/rack-1: r1",
	}, {
		name: "pools with binding conditions come last",
		slices: []*resourceapi.ResourceSlice{
			onNode(bound(slice("s-a", "a", "p", 1, 1, "slow")), "n"),
			onNode(slice("s-b", "b", "p", 1, 1, "fast"), "n"),
		},
		node: node("n"),
		want: "b/p: fast; a/p: slow",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			inv := New()
			for _, s := range tc.slices {
				inv.Set(s)
			}
			pools, err := inv.Pools(tc.node, Options{PartitionableDevices: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(pools); got != tc.want {
				t.Errorf("pools:\n got  %q\n want %q", got, tc.want)
			}
		})
	}
}

func TestPerDeviceNodeSelection(t *testing.T) {
	s := slice("s", "d", "p", 1, 1, "mine", "theirs")
	s.Spec.PerDeviceNodeSelection = ptr.To(true)
	s.Spec.Devices[0].NodeName = ptr.To("n")
	s.Spec.Devices[1].NodeName = ptr.To("other")
	inv := New()
	inv.Set(s)

	t.Run("a slice is relevant when one of its devices selects the node", func(t *testing.T) {
		pools, err := inv.Pools(node("n"), Options{PartitionableDevices: true})
		if err != nil || describe(pools) != "d/p: mine theirs" {
			t.Fatalf("got %q, %v", describe(pools), err)
		}
		if ok, _ := inv.Lookup(DeviceKey{"d", "p", "theirs"})[0].DeviceMatchesNode(node("n")); ok {
			t.Error("a device for another node matches this one")
		}
	})
	t.Run("without partitionable devices such slices are ignored", func(t *testing.T) {
		pools, _ := inv.Pools(node("n"), Options{})
		if len(pools) != 0 {
			t.Errorf("got %q", describe(pools))
		}
	})
}

func TestDeviceIdentity(t *testing.T) {
	inv := New()
	inv.Set(onNode(slice("s", "d", "p", 1, 1, "a", "b"), "n"))
	a, b := inv.Lookup(DeviceKey{"d", "p", "a"})[0], inv.Lookup(DeviceKey{"d", "p", "b"})[0]
	aIndex, aVersion, bVersion := a.Index, a.Version, b.Version

	t.Run("an unchanged device keeps index and version across a slice update", func(t *testing.T) {
		updated := onNode(slice("s", "d", "p", 2, 1, "a", "b"), "n")
		updated.Spec.Devices[1].Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"x": {IntValue: ptr.To[int64](1)}}
		inv.Set(updated)
		a2, b2 := inv.Lookup(DeviceKey{"d", "p", "a"})[0], inv.Lookup(DeviceKey{"d", "p", "b"})[0]
		if a2.Index != aIndex || a2.Version != aVersion {
			t.Errorf("unchanged device a: index %d->%d version %d->%d", aIndex, a2.Index, aVersion, a2.Version)
		}
		if b2.Version == bVersion {
			t.Errorf("changed device b kept version %d", bVersion)
		}
	})
	t.Run("removing a slice frees its indexes and a reused index gets a new version", func(t *testing.T) {
		inv.Remove("s")
		if inv.NumDevices() != 0 || len(inv.Lookup(DeviceKey{"d", "p", "a"})) != 0 {
			t.Fatalf("%d devices left after removing the only slice", inv.NumDevices())
		}
		inv.Set(onNode(slice("t", "d", "q", 1, 1, "c"), "n"))
		c := inv.Lookup(DeviceKey{"d", "q", "c"})[0]
		if inv.NumIndexes() != 3 {
			t.Errorf("index space grew to %d for a single device: index %d not reused", inv.NumIndexes(), c.Index)
		}
		if c.Version <= bVersion || c.Version == aVersion {
			t.Errorf("reused index got version %d, not a new one", c.Version)
		}
	})
}

func TestPoolsCache(t *testing.T) {
	inv := New()
	inv.Set(withLabel(slice("s", "d", "p", 1, 1, "a"), "zone", "1"))
	n := node("n", "zone", "1")
	first, _ := inv.Pools(n, Options{})
	again, _ := inv.Pools(n, Options{})
	if fmt.Sprintf("%p", first) != fmt.Sprintf("%p", again) {
		t.Error("an unchanged inventory and node did not reuse the cached pools")
	}
	t.Run("a label change of the node is seen", func(t *testing.T) {
		pools, _ := inv.Pools(node("n", "zone", "2"), Options{})
		if len(pools) != 0 {
			t.Errorf("got %q for a node outside the zone", describe(pools))
		}
	})
	t.Run("a slice change is seen", func(t *testing.T) {
		inv.Set(withLabel(slice("s", "d", "p", 2, 1, "b"), "zone", "1"))
		pools, _ := inv.Pools(n, Options{})
		if describe(pools) != "d/p: b" {
			t.Errorf("got %q after the update", describe(pools))
		}
	})
}

func TestViewID(t *testing.T) {
	inv := New()
	inv.Set(onNode(slice("s1", "d", "p1", 1, 1, "a"), "n1"))
	n1, n2 := node("n1"), node("n2")
	opts := Options{PartitionableDevices: true}
	v1, id1, err := inv.ViewAndID(n1, opts)
	if err != nil || v1.ID != id1 {
		t.Fatalf("view ID %v, want %v (err %v)", v1.ID, id1, err)
	}
	_, id2, _ := inv.ViewAndID(n2, opts)
	_, idOther, _ := inv.ViewAndID(n1, Options{})
	if id2.Slot == id1.Slot || idOther.Slot == id1.Slot || id2.Serial == id1.Serial {
		t.Fatalf("IDs not distinct: %v %v %v", id1, id2, idOther)
	}
	if _, again, _ := inv.ViewAndID(n1, opts); again != id1 {
		t.Fatalf("cached view: ID %v, want %v", again, id1)
	}
	// A rebuilt view keeps its slot and gets a new serial.
	inv.Set(onNode(slice("s2", "d", "p2", 1, 1, "b"), "n1"))
	v3, id3, _ := inv.ViewAndID(n1, opts)
	if v3 == v1 || id3.Slot != id1.Slot || id3.Serial == id1.Serial {
		t.Fatalf("rebuilt view: ID %v after %v", id3, id1)
	}
	// A forgotten node's slot is handed out again.
	inv.ForgetNode("n1")
	_, id4, _ := inv.ViewAndID(node("n3"), opts)
	if id4.Slot != id1.Slot && id4.Slot != idOther.Slot {
		t.Fatalf("slot %d not reused (freed %d, %d)", id4.Slot, id1.Slot, idOther.Slot)
	}
}

func TestSlicesAreKeptByKey(t *testing.T) {
	gpus := func(pool string, count int64, devices ...string) *resourceapi.ResourceSlice {
		return onNode(slice("gpus", "d", pool, 1, count, devices...), "n")
	}
	listedTwice := gpus("p", 1, "a")
	type keyed struct {
		key   string
		slice *resourceapi.ResourceSlice
	}
	for _, tc := range []struct {
		name   string
		set    []keyed // key "" adds the slice by Set
		remove []string
		want   string
	}{{
		name: "Set replaces a slice of the same name",
		set:  []keyed{{"", gpus("p1", 1, "a")}, {"", gpus("p2", 1, "b")}},
		want: "d/p2: b",
	}, {
		name: "slices sharing a name under different keys are both kept",
		set:  []keyed{{"0", gpus("p1", 1, "a")}, {"1", gpus("p2", 1, "b")}},
		want: "d/p1: a; d/p2: b",
	}, {
		name: "slices sharing a name under different keys complete one pool",
		set:  []keyed{{"0", gpus("p", 2, "a")}, {"1", gpus("p", 2, "b")}},
		want: "d/p: a b",
	}, {
		name: "one object under two keys counts twice",
		set:  []keyed{{"0", listedTwice}, {"1", listedTwice}},
		want: "d/p incomplete",
	}, {
		name: "SetWithKey replaces the slice under its key only",
		set:  []keyed{{"0", gpus("p1", 1, "a")}, {"1", gpus("p2", 1, "b")}, {"1", gpus("p3", 1, "c")}},
		want: "d/p1: a; d/p3: c",
	}, {
		name:   "Remove takes the key",
		set:    []keyed{{"0", gpus("p1", 1, "a")}, {"1", gpus("p2", 1, "b")}},
		remove: []string{"0", "gpus"},
		want:   "d/p2: b",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			inv := New()
			for _, k := range tc.set {
				if k.key == "" {
					inv.Set(k.slice)
				} else {
					inv.SetWithKey(k.key, k.slice)
				}
			}
			for _, key := range tc.remove {
				inv.Remove(key)
			}
			pools, err := inv.Pools(node("n"), Options{PartitionableDevices: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(pools); got != tc.want {
				t.Errorf("pools:\n got  %q\n want %q", got, tc.want)
			}
			for _, p := range pools {
				for _, s := range p.Targeting {
					if got := inv.slices[s.Key()]; got != s {
						t.Errorf("slice %s of pool %s is not kept under its key %q", s.Name(), p.ID, s.Key())
					}
				}
			}
		})
	}
}

// TestNodeLocalHoldsEveryNodesOwnDevicesAndFollowsChanges: NodeLocal is
// the devices of slices that name a node, none of a slice for all nodes
// or a node selector, and it follows slices added and removed.
func TestNodeLocalHoldsEveryNodesOwnDevicesAndFollowsChanges(t *testing.T) {
	inv := New()
	inv.Set(onNode(slice("a", "d", "a", 1, 1, "a-0", "a-1"), "node-a"))
	inv.Set(allNodes(slice("net", "d", "net", 1, 1, "net-0")))
	inv.Set(withLabel(slice("rack", "d", "rack", 1, 1, "rack-0"), "rack", "1"))
	indexes := func(keys ...DeviceKey) []int {
		var out []int
		for _, k := range keys {
			for _, d := range inv.Lookup(k) {
				out = append(out, d.Index)
			}
		}
		slices.Sort(out)
		return out
	}
	if got, want := slices.Collect(inv.NodeLocal().All()), indexes(DeviceKey{"d", "a", "a-0"}, DeviceKey{"d", "a", "a-1"}); !slices.Equal(got, want) {
		t.Errorf("node-local devices %v, want node-a's %v", got, want)
	}
	inv.Set(onNode(slice("b", "d", "b", 1, 1, "b-0"), "node-b"))
	inv.Remove("a")
	if got, want := slices.Collect(inv.NodeLocal().All()), indexes(DeviceKey{"d", "b", "b-0"}); !slices.Equal(got, want) || len(want) != 1 {
		t.Errorf("after node-a's slice went and node-b's came: node-local devices %v, want node-b's %v", got, want)
	}
}
