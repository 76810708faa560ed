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

package inventorygen

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
)

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRandomIsDeterministicPerSeed(t *testing.T) {
	for seed := int64(0); seed < 50; seed++ {
		for name, opts := range map[string]RandomOptions{"default": DefaultRandomOptions(), "large": LargeRandomOptions()} {
			a, b := jsonOf(t, Random(seed, opts)), jsonOf(t, Random(seed, opts))
			if a != b {
				t.Fatalf("seed %d (%s options): two calls differ", seed, name)
			}
		}
	}
	if jsonOf(t, Random(7, RandomOptions{})) != jsonOf(t, Random(7, DefaultRandomOptions())) {
		t.Error("zero options differ from DefaultRandomOptions()")
	}
}

func TestRandomCasesDifferAcrossSeeds(t *testing.T) {
	seen := map[string]int64{}
	for seed := int64(0); seed < 200; seed++ {
		c := Random(seed, DefaultRandomOptions())
		c.Seed = 0
		s := jsonOf(t, c)
		if other, ok := seen[s]; ok {
			t.Errorf("seeds %d and %d produce the same case", other, seed)
		}
		seen[s] = seed
	}
}

func TestRandomUsesTheDefaultFeaturesUnlessToldOtherwise(t *testing.T) {
	if f := Random(1, DefaultRandomOptions()).Features; f != DefaultFeatures() {
		t.Errorf("features %+v, want %+v", f, DefaultFeatures())
	}
	opts := DefaultRandomOptions()
	opts.FeatureFlip = 1
	f := Random(1, opts).Features
	if f.AdminAccess || f.PrioritizedList || f.PartitionableDevices || f.DeviceTaints || f.DeviceBindingAndStatus || f.ConsumableCapacity {
		t.Errorf("all flags flipped: %+v", f)
	}
}

func TestRandomCasesStaySmallWithDefaultOptions(t *testing.T) {
	o := DefaultRandomOptions()
	for seed := int64(0); seed < 300; seed++ {
		c := Random(seed, o)
		pools := map[string]map[int64]int{}
		for _, s := range c.Slices {
			k := s.Spec.Driver + "/" + s.Spec.Pool.Name
			if pools[k] == nil {
				pools[k] = map[int64]int{}
			}
			pools[k][s.Spec.Pool.Generation] += len(s.Spec.Devices)
		}
		if len(pools) < 1 || len(pools) > o.MaxPools {
			t.Errorf("seed %d: %d pools", seed, len(pools))
		}
		for k, gens := range pools {
			for gen, n := range gens {
				if n > o.MaxDevicesPerPool {
					t.Errorf("seed %d: pool %s generation %d has %d devices", seed, k, gen, n)
				}
			}
		}
		if len(c.Claims) < 1 || len(c.Claims) > o.MaxClaims {
			t.Errorf("seed %d: %d claims", seed, len(c.Claims))
		}
		for _, cl := range c.Claims {
			if n := len(cl.Spec.Devices.Requests); n < 1 || n > o.MaxRequestsPerClaim {
				t.Errorf("seed %d: claim %s has %d requests", seed, cl.Name, n)
			}
		}
		if c.Node != c.Nodes[0] {
			t.Errorf("seed %d: Node is not Nodes[0]", seed)
		}
	}
}

// randomCoverage counts, per input feature, the cases that contain it.
func randomCoverage(c Case) map[string]bool {
	has := map[string]bool{}
	type poolKey struct{ driver, pool string }
	maxGen := map[poolKey]int64{}
	for _, s := range c.Slices {
		k := poolKey{s.Spec.Driver, s.Spec.Pool.Name}
		maxGen[k] = max(maxGen[k], s.Spec.Pool.Generation)
	}
	slicesOfGen := map[poolKey]int64{}
	countOfGen := map[poolKey]int64{}
	drivers := map[string]bool{}
	for _, s := range c.Slices {
		k := poolKey{s.Spec.Driver, s.Spec.Pool.Name}
		drivers[s.Spec.Driver] = true
		if s.Spec.Pool.Generation < maxGen[k] {
			has["slice of an older generation"] = true
		} else {
			slicesOfGen[k]++
			countOfGen[k] = s.Spec.Pool.ResourceSliceCount
		}
		if s.Spec.Pool.Generation > 1 {
			has["pool generation > 1"] = true
		}
		switch {
		case s.Spec.NodeName != nil && *s.Spec.NodeName == c.Node.Name:
			has["slice nodeName of the node"] = true
		case s.Spec.NodeName != nil:
			has["slice nodeName of another node"] = true
		case s.Spec.NodeSelector != nil:
			has["slice nodeSelector"] = true
		case s.Spec.AllNodes != nil:
			has["slice allNodes"] = true
		case s.Spec.PerDeviceNodeSelection != nil:
			has["slice perDeviceNodeSelection"] = true
		}
		if len(s.Spec.SharedCounters) > 0 {
			has["counter slice"] = true
		}
		sets := map[string]map[string]resourceapi.Counter{}
		for _, o := range c.Slices {
			if o.Spec.Driver == s.Spec.Driver && o.Spec.Pool.Name == s.Spec.Pool.Name {
				for _, cs := range o.Spec.SharedCounters {
					sets[cs.Name] = cs.Counters
				}
			}
		}
		for _, d := range s.Spec.Devices {
			for _, a := range d.Attributes {
				switch {
				case a.StringValue != nil:
					has["string attribute"] = true
				case a.IntValue != nil:
					has["int attribute"] = true
				case a.BoolValue != nil:
					has["bool attribute"] = true
				case a.VersionValue != nil:
					has["version attribute"] = true
				}
			}
			if len(d.Capacity) > 0 {
				has["capacity"] = true
			}
			for _, taint := range d.Taints {
				has["taint "+string(taint.Effect)] = true
			}
			if d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil {
				has["per-device node selection"] = true
			}
			if d.NodeSelector != nil && len(d.NodeSelector.NodeSelectorTerms) > 1 {
				has["device node selector with 2 terms"] = true
			}
			if len(d.BindingConditions) > 0 {
				has["binding conditions"] = true
			}
			if d.BindsToNode != nil {
				has["bindsToNode"] = true
			}
			if d.AllowMultipleAllocations != nil {
				has["allowMultipleAllocations"] = true
			}
			for _, cp := range d.Capacity {
				switch p := cp.RequestPolicy; {
				case p == nil:
				case p.ValidRange != nil && p.ValidRange.Step != nil && p.ValidRange.Step.MilliValue()%1000 != 0:
					has["fractional validRange"] = true
				case p.ValidRange != nil && p.ValidRange.Step != nil:
					has["validRange with step"] = true
				case p.ValidRange != nil:
					has["validRange without step"] = true
				case len(p.ValidValues) > 0:
					has["validValues"] = true
				default:
					has["default-only request policy"] = true
				}
			}
			for _, cc := range d.ConsumesCounters {
				has["consumesCounters"] = true
				set, ok := sets[cc.CounterSet]
				if !ok {
					has["unknown counter set"] = true
				}
				for name, v := range cc.Counters {
					total, ok := set[name]
					switch {
					case !ok && set != nil:
						has["unknown counter"] = true
					case ok && v.Value.Cmp(total.Value) > 0:
						has["consumption above the counter's total"] = true
					}
				}
			}
		}
	}
	if len(drivers) > 1 {
		has["several drivers"] = true
	}
	if len(maxGen) > 1 {
		has["several pools"] = true
	}
	for k, n := range slicesOfGen {
		if n > 1 {
			has["several slices in a pool"] = true
		}
		if n != countOfGen[k] {
			has["incomplete pool"] = true
		}
	}
	for _, class := range c.Classes {
		has[fmt.Sprintf("class with %d selectors", len(class.Spec.Selectors))] = true
		if len(class.Spec.Config) > 0 {
			has["class config"] = true
		}
	}
	for _, claim := range c.Claims {
		has[fmt.Sprintf("claim with %d requests", len(claim.Spec.Devices.Requests))] = true
		for _, r := range claim.Spec.Devices.Requests {
			if r.Exactly != nil {
				e := r.Exactly
				if e.AllocationMode == resourceapi.DeviceAllocationModeAll {
					has["All mode"] = true
				} else {
					has[fmt.Sprintf("ExactCount %d", e.Count)] = true
				}
				if e.AdminAccess != nil {
					has[fmt.Sprintf("adminAccess %v", *e.AdminAccess)] = true
				}
				if len(e.Tolerations) > 0 {
					has["tolerations"] = true
				}
				if e.Capacity != nil {
					has["capacity request"] = true
				}
				if len(e.Selectors) > 0 {
					has["request selectors"] = true
				}
			} else {
				has[fmt.Sprintf("firstAvailable with %d subrequests", len(r.FirstAvailable))] = true
				for _, s := range r.FirstAvailable {
					if s.Capacity != nil {
						has["subrequest capacity request"] = true
					}
					if s.AllocationMode == resourceapi.DeviceAllocationModeAll {
						has["subrequest All mode"] = true
					}
				}
			}
		}
		for _, con := range claim.Spec.Devices.Constraints {
			if con.MatchAttribute != nil {
				has["matchAttribute"] = true
			}
			if con.DistinctAttribute != nil {
				has["distinctAttribute"] = true
			}
		}
		if len(claim.Spec.Devices.Config) > 0 {
			has["claim config"] = true
		}
	}
	for _, n := range c.Notes {
		switch {
		case strings.Contains(n, "compile error"):
			has["CEL compile error selector"] = true
		case strings.Contains(n, "runtime error"):
			has["CEL runtime error selector"] = true
		case strings.Contains(n, "missing class"):
			has["missing class"] = true
		case strings.Contains(n, "duplicate device"):
			has["duplicate device name"] = true
		case strings.Contains(n, "over-consume"):
			has["allocated state may over-consume counters"] = true
		}
	}
	if len(c.Allocated.Devices) > 0 {
		has["allocated devices"] = true
	}
	for _, s := range c.Allocated.Shares {
		has["allocated shares"] = true
		if s.Consumed != nil {
			has["share with consumed capacity"] = true
		}
	}
	return has
}

func TestRandomCoversEveryInputFeatureTheAllocatorReactsTo(t *testing.T) {
	want := []string{
		"several drivers", "several pools", "several slices in a pool", "pool generation > 1",
		"slice of an older generation", "incomplete pool", "duplicate device name",
		"slice nodeName of the node", "slice nodeName of another node", "slice nodeSelector", "slice allNodes",
		"slice perDeviceNodeSelection", "per-device node selection", "device node selector with 2 terms",
		"string attribute", "int attribute", "bool attribute", "version attribute", "capacity",
		"taint NoSchedule", "taint NoExecute", "taint None", "binding conditions", "bindsToNode",
		"counter slice", "consumesCounters", "consumption above the counter's total", "unknown counter set", "unknown counter",
		"allowMultipleAllocations", "default-only request policy", "validValues", "validRange with step",
		"validRange without step", "fractional validRange",
		"class with 0 selectors", "class with 1 selectors", "class with 2 selectors", "class config",
		"claim with 1 requests", "claim with 2 requests", "claim with 3 requests",
		"ExactCount 0", "ExactCount 1", "ExactCount 2", "ExactCount 3", "All mode", "adminAccess true", "adminAccess false",
		"firstAvailable with 1 subrequests", "firstAvailable with 2 subrequests", "firstAvailable with 3 subrequests",
		"subrequest All mode", "subrequest capacity request",
		"tolerations", "capacity request", "request selectors", "CEL compile error selector", "CEL runtime error selector",
		"matchAttribute", "distinctAttribute", "claim config", "missing class",
		"allocated devices", "allocated shares", "share with consumed capacity", "allocated state may over-consume counters",
	}
	const cases = 500
	counts := map[string]int{}
	for seed := int64(0); seed < cases; seed++ {
		for feature := range randomCoverage(Random(seed, DefaultRandomOptions())) {
			counts[feature]++
		}
	}
	for _, f := range want {
		if counts[f] == 0 {
			t.Errorf("no case out of %d has %s", cases, f)
		} else if testing.Verbose() {
			t.Logf("%-45s %3d of %d cases", f, counts[f], cases)
		}
	}
}
