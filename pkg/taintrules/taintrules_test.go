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

package taintrules

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"
)

func slice(name, driver, pool string, devices ...string) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:   driver,
			Pool:     resourceapi.ResourcePool{Name: pool, ResourceSliceCount: 1},
			NodeName: ptr.To("node"),
		},
	}
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: d})
	}
	return s
}

func rule(name string, driver, pool, device *string, key string) *resourceapi.DeviceTaintRule {
	r := &resourceapi.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.DeviceTaintRuleSpec{
			Taint: resourceapi.DeviceTaint{Key: key, Effect: resourceapi.DeviceTaintEffectNoSchedule},
		},
	}
	if driver != nil || pool != nil || device != nil {
		r.Spec.DeviceSelector = &resourceapi.DeviceTaintSelector{Driver: driver, Pool: pool, Device: device}
	}
	return r
}

// taints renders each device's taint keys, e.g. "a=[k1 k2] b=[]".
func taints(s *resourceapi.ResourceSlice) string {
	var out []string
	for _, d := range s.Spec.Devices {
		var keys []string
		for _, t := range d.Taints {
			keys = append(keys, t.Key)
		}
		out = append(out, fmt.Sprintf("%s=%v", d.Name, keys))
	}
	return strings.Join(out, " ")
}

func TestApply(t *testing.T) {
	s := slice("s", "gpu.example.com", "node-1", "gpu-0", "gpu-1")
	s.Spec.Devices[1].Taints = []resourceapi.DeviceTaint{{Key: "own", Effect: resourceapi.DeviceTaintEffectNoSchedule}}
	for _, tc := range []struct {
		name  string
		rules []*resourceapi.DeviceTaintRule
		want  string
		same  bool
	}{
		{name: "no rules return the slice itself", want: "gpu-0=[] gpu-1=[own]", same: true},
		{name: "a rule without selector taints nothing", rules: []*resourceapi.DeviceTaintRule{rule("r", nil, nil, nil, "k")}, want: "gpu-0=[] gpu-1=[own]", same: true},
		{name: "a rule of another driver taints nothing", rules: []*resourceapi.DeviceTaintRule{rule("r", ptr.To("nic.example.com"), nil, nil, "k")}, want: "gpu-0=[] gpu-1=[own]", same: true},
		{name: "a rule of another pool taints nothing", rules: []*resourceapi.DeviceTaintRule{rule("r", nil, ptr.To("node-2"), nil, "k")}, want: "gpu-0=[] gpu-1=[own]", same: true},
		{name: "a rule naming an absent device taints nothing", rules: []*resourceapi.DeviceTaintRule{rule("r", nil, nil, ptr.To("gpu-7"), "k")}, want: "gpu-0=[] gpu-1=[own]", same: true},
		{name: "a driver rule taints every device after its own taints", rules: []*resourceapi.DeviceTaintRule{rule("r", ptr.To("gpu.example.com"), nil, nil, "k")}, want: "gpu-0=[k] gpu-1=[own k]"},
		{name: "a device rule taints only that device", rules: []*resourceapi.DeviceTaintRule{rule("r", ptr.To("gpu.example.com"), ptr.To("node-1"), ptr.To("gpu-0"), "k")}, want: "gpu-0=[k] gpu-1=[own]"},
		{name: "rules apply in name order whatever their order in the list", rules: []*resourceapi.DeviceTaintRule{rule("b", nil, ptr.To("node-1"), nil, "second"), rule("a", nil, nil, ptr.To("gpu-1"), "first")}, want: "gpu-0=[second] gpu-1=[own first second]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.DeepCopy()
			got := Apply(s, tc.rules)
			if taints(got) != tc.want {
				t.Errorf("taints %s, want %s", taints(got), tc.want)
			}
			if (got == s) != tc.same {
				t.Errorf("returned the input slice: %v, want %v", got == s, tc.same)
			}
			if !apiequality.Semantic.DeepEqual(s, before) {
				t.Errorf("the input slice was modified")
			}
		})
	}
}

// TestApplyAgreesWithTheSchedulersTracker runs random slices and rules
// through upstream's ResourceSlice tracker and through Apply: each device
// must carry the same taints (as a multiset: the tracker's order follows
// its informer's).
func TestApplyAgreesWithTheSchedulersTracker(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0))
			pick := func(prefix string, n int) *string {
				if r.IntN(3) == 0 {
					return nil
				}
				return ptr.To(fmt.Sprintf("%s-%d", prefix, r.IntN(n)))
			}
			var objs []*resourceapi.ResourceSlice
			for i := range 6 {
				var devices []string
				for j := range 1 + r.IntN(4) {
					devices = append(devices, fmt.Sprintf("dev-%d", j))
				}
				objs = append(objs, slice(fmt.Sprintf("slice-%d", i), fmt.Sprintf("driver-%d", r.IntN(2)), fmt.Sprintf("pool-%d", r.IntN(3)), devices...))
			}
			var rules []*resourceapi.DeviceTaintRule
			for i := range r.IntN(6) {
				rules = append(rules, rule(fmt.Sprintf("rule-%d", i), pick("driver", 2), pick("pool", 3), pick("dev", 4), fmt.Sprintf("key-%d", i)))
			}

			upstream := trackerResult(t, objs, rules)
			for _, s := range objs {
				want := upstream[s.Name]
				if want == nil {
					t.Fatalf("tracker lists no slice %s", s.Name)
				}
				if got := Apply(s, rules); sortedTaints(got) != sortedTaints(want) {
					t.Errorf("slice %s: Apply gives %s, tracker %s", s.Name, sortedTaints(got), sortedTaints(want))
				}
			}
		})
	}
}

func sortedTaints(s *resourceapi.ResourceSlice) string {
	c := s.DeepCopy()
	for i := range c.Spec.Devices {
		slices.SortFunc(c.Spec.Devices[i].Taints, func(a, b resourceapi.DeviceTaint) int { return strings.Compare(a.Key, b.Key) })
	}
	return taints(c)
}

func trackerResult(t *testing.T, objs []*resourceapi.ResourceSlice, rules []*resourceapi.DeviceTaintRule) map[string]*resourceapi.ResourceSlice {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	client := fake.NewClientset()
	for _, s := range objs {
		if _, err := client.ResourceV1().ResourceSlices().Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range rules {
		if _, err := client.ResourceV1().DeviceTaintRules().Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	tr, err := tracker.StartTracker(ctx, tracker.Options{
		EnableDeviceTaintRules: true,
		SliceInformer:          factory.Resource().V1().ResourceSlices(),
		TaintInformer:          factory.Resource().V1().DeviceTaintRules(),
		KubeClient:             client,
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	defer func() {
		tr.Stop()
		cancel() // informers stop on ctx, and Shutdown waits for them
		factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), tr.HasSynced) {
		t.Fatal("tracker did not sync")
	}
	patched, err := tr.ListPatchedResourceSlices()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*resourceapi.ResourceSlice{}
	for _, s := range patched {
		out[s.Name] = s
	}
	return out
}
