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
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestChaosInformersRelistDuringABurst: the API server serves every list
// and watch from etcd (no watch cache), which compacts every 2 s, and the
// scheduler reaches it through a proxy that every 4–12 s drops every
// connection and refuses new ones for 5 s. Each dropped watch resumes from
// its last resource version, which compaction has removed meanwhile: the
// informer gets "too old resource version" and lists everything again,
// and the deletions it missed arrive as tombstones. Meanwhile a burst of templated pods schedules
// and pods are deleted and replaced, so claims are allocated,
// deallocated and deleted under the relists (and some of the plugin's
// own writes lose their answer). Once the chaos stops, every pod is bound
// and the consistency check finds nothing.
func TestChaosInformersRelistDuringABurst(t *testing.T) {
	const (
		driver      = "relist.example.com"
		nodes       = 8
		perNode     = 8
		live        = 48 // pods alive at any time, of 64 devices
		churnEvery  = 1500 * time.Millisecond
		replaced    = 6 // pods deleted and created each time
		churnFor    = 40 * time.Second
		outageEvery = 8 * time.Second
		outage      = 5 * time.Second
	)
	e := newChaosEnv(t, controlplane.Options{
		APIServerFlags:   []string{"--watch-cache=false", "--etcd-compaction-interval=2s"},
		GarbageCollector: true, // deletes the claims of pods deleted at once
	})
	proxy := startChaosProxy(t, hostPort(t, e.cp.Config.Host))
	config := writeChaosConfig(t, e.cp, "relist.yaml", chaosConfig+"clientConnection:\n  kubeconfig: "+proxy.kubeconfig(t, e.cp)+"\n")
	e.gpuNodes(driver, nodes, perNode)
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("one", e.ns, "dev", driver, 1))

	checks := &checkLog{}
	listsBefore := listCounts(t)
	start := time.Now()
	if _, err := e.cp.StartSchedulerWith(e.ctx, config, controlplane.SchedulerOptions{Plugins: draallocator.Options{Hooks: checks.hooks()}}); err != nil {
		t.Fatalf("start dra-scheduler: %v", err)
	}
	logChaos(t, "dra-scheduler healthy in %v", time.Since(start).Round(time.Millisecond))

	stopCuts := chaosLoop(outageEvery, 1, func() { proxy.outage(outage) })
	defer stopCuts()
	chaosStart := time.Now()
	alive := e.templatedPods("burst", "one", 0, live)
	next := live
	rng := rand.New(rand.NewPCG(2, 41))
	ctx, cancel := context.WithTimeout(e.ctx, churnFor)
	defer cancel()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(churnEvery):
			rng.Shuffle(len(alive), func(i, j int) { alive[i], alive[j] = alive[j], alive[i] })
			gone := alive[:replaced]
			alive = append(alive[replaced:], e.templatedPods("burst", "one", next, next+replaced)...)
			next += replaced
			e.deleteNow(gone...)
		}
	}
	stopCuts()
	lists := listCounts(t)
	for r, n := range listsBefore {
		lists[r] -= n
	}
	n, withDiffs, during := checks.summary(0)
	logChaos(t, "%v of chaos: %d pods created, %d deleted; %d outages (%d connections cut); the scheduler listed claims %v times, slices %v, pods %v, nodes %v (its first lists included); %d consistency checks, %d found differences%s",
		time.Since(chaosStart).Round(time.Millisecond), next, next-live, proxy.cuts.Load(), proxy.cutConns.Load(),
		lists["resourceclaims"], lists["resourceslices"], lists["pods"], lists["nodes"], n, withDiffs, prefixed(during))
	if lists["resourceclaims"] < 3 || lists["resourceslices"] < 3 {
		t.Errorf("the scheduler listed claims %v times and slices %v times: its informers relisted less than twice, the chaos did not happen", lists["resourceclaims"], lists["resourceslices"])
	}

	chaosVerdict{e: e, pods: alive, claim: "dev", check: func() ([]string, float64) { return checks.runCheck(t, e.ctx) }}.assert()
}

// prefixed puts a non-empty text on lines of its own.
func prefixed(text string) string {
	if text == "" {
		return ""
	}
	return fmt.Sprintf(":\n%s", text)
}
