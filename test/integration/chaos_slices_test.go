//go:build chaos

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

package integration

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestChaosPoolsReplacedWhilePodsSchedule: while templated pods arrive
// at 10 a second, every node's pool gets a new generation every 2 s as a
// restarted driver publishes it, alternately slices of other names
// (devices renamed, some fewer; the old slices deleted a moment later, so
// that both generations exist meanwhile) and the same slices updated in
// place (devices renamed, some removed, two of generation 1's names back,
// which claims may still hold). Half of the pools are two slices, published
// one after the other, so that a pool is incomplete for a moment. A DeviceTaintRule takes one node's
// devices out of scheduling and then moves to another node. Pods bound to
// devices of an old generation keep them. Once the pools settle, every
// pod is bound unless no usable device is left (newest generation, not
// tainted, held by no claim: none may be free while a pod waits), no
// device is held twice, and the consistency check finds nothing.
func TestChaosPoolsReplacedWhilePodsSchedule(t *testing.T) {
	const (
		driver      = "generations.example.com"
		nodes       = 8
		generations = 5 // generation 1 and four replacements
		every       = 2 * time.Second
		podRate     = 100 * time.Millisecond
		podCount    = 100
	)
	e := newChaosEnv(t, controlplane.Options{})
	config := writeChaosConfig(t, e.cp, "generations.yaml", chaosConfig)
	// Nodes 0-3 publish their pool in one slice, nodes 4-7 in two: their
	// pool is incomplete while a generation is half published.
	parts := func(node int) int { return 1 + node/4 }
	current := map[int][]string{} // node -> its slices' names
	for i := range nodes {
		node := fmt.Sprintf("node-%d", i)
		e.create(objects.MakeNode(node).Obj())
		for j := range parts(i) {
			current[i] = append(current[i], fmt.Sprintf("%s-%d", node, j))
		}
		for _, s := range poolSlices(driver, node, 1, current[i], deviceNames("dev-", 8)) {
			e.create(s)
		}
	}
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("one", e.ns, "dev", driver, 1))
	checks := &checkLog{}
	if _, err := e.cp.StartSchedulerWith(e.ctx, config, controlplane.SchedulerOptions{Plugins: draallocator.Options{Hooks: checks.hooks()}}); err != nil {
		t.Fatalf("start dra-scheduler: %v", err)
	}

	start := time.Now()
	podsDone := make(chan []string)
	go func() {
		var names []string
		for i := range podCount {
			names = append(names, e.templatedPods("p", "one", i, i+1)...)
			time.Sleep(podRate)
		}
		podsDone <- names
	}()
	sliceAPI := e.client.ResourceV1().ResourceSlices()
	rules := e.client.ResourceV1().DeviceTaintRules()
	published := 0
	for g := int64(2); g <= generations; g++ {
		time.Sleep(every)
		for i := range nodes {
			node := fmt.Sprintf("node-%d", i)
			if g%2 == 0 {
				// New slices, one after the other, then the old ones gone.
				var names []string
				for j := range parts(i) {
					names = append(names, fmt.Sprintf("%s-g%d-%d", node, g, j))
				}
				for j, s := range poolSlices(driver, node, g, names, deviceNames(fmt.Sprintf("g%d-", g), 5+int(g)%3)) {
					if j > 0 {
						time.Sleep(100 * time.Millisecond)
					}
					e.create(s)
				}
				old := current[i]
				current[i] = names
				go func() {
					time.Sleep(300 * time.Millisecond)
					for _, name := range old {
						if err := sliceAPI.Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
							t.Errorf("delete slice %s: %v", name, err)
						}
					}
				}()
			} else {
				// The same slices updated in place, one after the other.
				devices := append(deviceNames(fmt.Sprintf("g%d-", g), 3), "dev-0", "dev-1")
				for j, want := range poolSlices(driver, node, g, current[i], devices) {
					if j > 0 {
						time.Sleep(100 * time.Millisecond)
					}
					s, err := sliceAPI.Get(e.ctx, want.Name, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					s.Spec = want.Spec
					if _, err := sliceAPI.Update(e.ctx, s, metav1.UpdateOptions{}); err != nil {
						t.Fatalf("publish generation %d of %s: %v", g, node, err)
					}
				}
			}
			published++
		}
		switch g {
		case 2:
			e.create(&resourceapi.DeviceTaintRule{
				ObjectMeta: metav1.ObjectMeta{Name: "drain"},
				Spec: resourceapi.DeviceTaintRuleSpec{
					DeviceSelector: &resourceapi.DeviceTaintSelector{Driver: ptrTo(driver), Pool: ptrTo("node-0")},
					Taint:          resourceapi.DeviceTaint{Key: "example.com/drain", Effect: resourceapi.DeviceTaintEffectNoSchedule},
				},
			})
		case 4:
			rule, err := rules.Get(e.ctx, "drain", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rule.Spec.DeviceSelector.Pool = ptrTo("node-1")
			if _, err := rules.Update(e.ctx, rule, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("move the taint rule to node-1: %v", err)
			}
		}
	}
	pods := <-podsDone
	chaos := time.Since(start)
	time.Sleep(500 * time.Millisecond) // the last deletions

	var waiting []string
	e.waitForLong("every pod bound or no usable device left", chaosWait, func() (bool, string) {
		waiting = nil
		unbound := e.unboundOf(pods)
		if len(unbound) == 0 {
			return true, ""
		}
		for _, name := range unbound {
			if !unschedulable(e.pod(name)) {
				return false, fmt.Sprintf("%d unbound, %s not found unschedulable yet", len(unbound), name)
			}
		}
		free := e.usableFreeDevices()
		waiting = unbound
		return len(free) == 0, fmt.Sprintf("%d pods unschedulable although these usable devices are free: %v", len(unbound), free)
	})
	var bound []string
	for _, p := range pods {
		if !slices.Contains(waiting, p) {
			bound = append(bound, p)
		}
	}
	n, withDiffs, during := checks.summary(0)
	logChaos(t, "%v of chaos: %d pods, %d slice generations published, a taint rule added and moved; %d pods bound %v after the start, %d wait with no usable device left; %d consistency checks, %d found differences%s",
		chaos.Round(time.Millisecond), len(pods), published, len(bound), time.Since(start).Round(time.Millisecond), len(waiting), n, withDiffs, prefixed(during))
	if len(waiting) > 0 && len(bound) < nodes*4 {
		t.Errorf("only %d pods bound", len(bound))
	}
	chaosVerdict{e: e, pods: bound, claim: "dev", check: func() ([]string, float64) { return checks.runCheck(t, e.ctx) }}.assert()
}

// deviceNames returns prefix0 ... prefix(n-1).
func deviceNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// poolSlices returns node's pool of generation gen as the slices names,
// the devices dealt out among them in turn.
func poolSlices(driver, node string, gen int64, names, devices []string) []*resourceapi.ResourceSlice {
	var out []*resourceapi.ResourceSlice
	for j, name := range names {
		s := objects.MakeSlice(name, driver, node)
		s.Spec.Pool.Generation = gen
		s.Spec.Pool.ResourceSliceCount = int64(len(names))
		for d := j; d < len(devices); d += len(names) {
			s.Device(devices[d], nil)
		}
		out = append(out, s.Obj())
	}
	return out
}

// usableFreeDevices lists the devices a new pod could get: those of each
// pool's newest generation that no DeviceTaintRule taints and no claim
// holds ("pool/device"). It applies the rules by their selectors'
// driver, pool and device, independently of the plugin.
func (e *env) usableFreeDevices() []string {
	e.t.Helper()
	list, err := e.client.ResourceV1().ResourceSlices().List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	rules, err := e.client.ResourceV1().DeviceTaintRules().List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	newest := map[string]int64{}
	for _, s := range list.Items {
		newest[s.Spec.Driver+"/"+s.Spec.Pool.Name] = max(newest[s.Spec.Driver+"/"+s.Spec.Pool.Name], s.Spec.Pool.Generation)
	}
	held := e.allocatedDevices()
	var free []string
	for _, s := range list.Items {
		if s.Spec.Pool.Generation != newest[s.Spec.Driver+"/"+s.Spec.Pool.Name] {
			continue
		}
	devices:
		for _, d := range s.Spec.Devices {
			for _, r := range rules.Items {
				sel := r.Spec.DeviceSelector
				if sel != nil && (sel.Driver == nil || *sel.Driver == s.Spec.Driver) && (sel.Pool == nil || *sel.Pool == s.Spec.Pool.Name) &&
					(sel.Device == nil || *sel.Device == d.Name) && r.Spec.Taint.Effect != resourceapi.DeviceTaintEffectNone {
					continue devices
				}
			}
			if len(d.Taints) > 0 {
				continue
			}
			if _, ok := held[s.Spec.Driver+"/"+s.Spec.Pool.Name+"/"+d.Name]; !ok {
				free = append(free, s.Spec.Pool.Name+"/"+d.Name)
			}
		}
	}
	sort.Strings(free)
	return free
}

func ptrTo[T any](v T) *T { return &v }
