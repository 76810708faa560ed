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

package draallocator

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// Preemption for a pod group's devices (issue 55,
// docs/design/gang-preemption.md). With GenericWorkload, a pod group that
// found no placement runs DefaultPreemption's PodGroupPostFilter: it opens
// a mutation session on the scheduler's snapshot (StartMutations), removes
// every lower-priority pod from it, runs the group's scheduling again with
// fresh cycle states, and then gives victims back one by one (AddPod on
// each proposed pod's cycle state, Filter, Reserve, Unreserve) while the
// group still fits. No plugin is told which pods it removed, and the
// plugin's devices come from its tracker, not the snapshot; so:
//
//   - The re-run is recognized by the snapshot's NodeInfos: kube-scheduler
//     keeps their pointers across cycles, and StartMutations replaces
//     every one with a copy, leaving the originals untouched. The plugin
//     remembers the NodeInfos a pod-group cycle saw outside a session
//     (seenNodeInfos); a later cycle of a pod group that finds every one
//     replaced is a re-run, and the pods the originals hold that the
//     copies lack are the pods removed, those with claims kept
//     (findGangPreemption).
//   - What evicting them frees follows single-pod preemption's rule
//     (eviction.ReleasesAcross): a claim whose every consumer is removed
//     and that no staying pod uses. The re-run's allocators see those
//     devices free on every node (allocator.WhatIf.ReleaseAnywhere).
//   - Once DefaultPreemption gives a victim back, Filter searches the
//     pod's devices again over the tracker, with the devices of the
//     victims given back taken and those the pods given room earlier in
//     the same step hold (fitGangReprieve), and Reserve holds what it
//     finds in the preemption, not in flight (reprieveHolds).

// gangPreemptionKey is the pod-group cycle state's key of the cycle's
// gangPreemptionEntry.
const gangPreemptionKey fwk.StateKey = Name + "/gang-preemption"

// seenNodeInfos are the snapshot's NodeInfos by node name, as a pod-group
// cycle outside a mutation session saw them.
type seenNodeInfos map[string]fwk.NodeInfo

// gangPreemption is what a pod group preemption's re-run changes: the pods
// DefaultPreemption removed from the snapshot and what evicting them frees.
// The pods of the re-run share it, through the pod-group cycle state.
type gangPreemption struct {
	// removed are the pods with claims that are in the snapshot no more,
	// and removedInfos the snapshot's PodInfos of them.
	removed      map[types.UID]*v1.Pod
	removedInfos []fwk.PodInfo
	// releases are what evicting them frees, each with the pods it needs.
	releases []eviction.Release
	// freed are the releases' allocations.
	freed []*resourceapi.AllocationResult
	// releasing are the allocations of claims on their way out, whose
	// pods are gone or terminating (releasing.go): the victims of an
	// earlier round, among others. They count as free in the re-run and
	// after every reprieve, so that the group, once its victims are gone
	// but before their claims are deallocated, is nominated again without
	// a second round of evictions.
	releasing []*resourceapi.AllocationResult
	// victimDevices are the devices of freed: taking one needs a victim.
	victimDevices map[structured.DeviceID]bool
	// releasesOn and releasesOf index releases by the nodes and the pods
	// they need (indexReleases).
	releasesOn map[string][]int
	releasesOf map[types.UID][]int
	// reprieving is set once DefaultPreemption gives a removed pod back.
	reprieving atomic.Bool
	// ranks are the victims of the re-run's placements
	// (gangpreemptionrank.go).
	ranks placementRanks
	// released is the re-run's allocator with the releases made (alloc).
	released releasedOnce
	// memo keeps the reprieve's answers per node, and holds what the
	// group's pods reserve in a step (gangpreemptionreprieve.go).
	memo  reprieveMemo
	holds reprieveHolds
}

// gangPreemptionEntry holds the cycle's gangPreemption in the pod-group
// cycle state; g is nil in a cycle that is not a preemption's re-run, and
// in a re-run of a group that waits for the devices being released on its
// nominated nodes, which awaiting then says (releasinggroup.go).
type gangPreemptionEntry struct {
	g        *gangPreemption
	awaiting string
}

// Clone returns the same entry: the group's pods share it.
func (e *gangPreemptionEntry) Clone() fwk.StateData { return e }

// gangPreemptionOf returns the preemption whose re-run the pod-group cycle
// gcs of group is, nil outside one (and with preemption disabled, outside
// a pod-group cycle, before the plugin saw any pod-group cycle, or while
// the group waits for released devices: awaitingInRerun). It is found
// once per pod-group cycle, by the first of GeneratePlacements and
// PreFilter to ask.
func (pl *DRAAllocator) gangPreemptionOf(ctx context.Context, gcs fwk.PodGroupCycleState, group types.NamespacedName) *gangPreemption {
	if gcs == nil || !pl.preemptionEnabled() {
		return nil
	}
	if _, err := gcs.Read(gangPreemptionKey); err == nil {
		return foundGangPreemption(gcs)
	}
	g, awaiting := pl.findGangPreemption(ctx, group)
	gcs.Write(gangPreemptionKey, &gangPreemptionEntry{g: g, awaiting: awaiting})
	return g
}

// awaitingInRerun says why the pod-group cycle gcs, a preemption's re-run
// of a group that waits for released devices, finds no room; "" for any
// other cycle, or before gangPreemptionOf asked.
func awaitingInRerun(gcs fwk.PodGroupCycleState) string {
	if e := gangPreemptionEntryOf(gcs); e != nil {
		return e.awaiting
	}
	return ""
}

// gangPreemptionEntryOf returns the entry gangPreemptionOf wrote in the
// pod-group cycle state gcs, nil if none.
func gangPreemptionEntryOf(gcs fwk.PodGroupCycleState) *gangPreemptionEntry {
	if gcs == nil {
		return nil
	}
	e, err := stateAs[*gangPreemptionEntry](gcs.Read(gangPreemptionKey))
	if err != nil {
		return nil
	}
	return e
}

// foundGangPreemption returns the preemption gangPreemptionOf found for
// the pod-group cycle gcs, nil if none or not asked yet.
func foundGangPreemption(gcs fwk.PodGroupCycleState) *gangPreemption {
	if e := gangPreemptionEntryOf(gcs); e != nil {
		return e.g
	}
	return nil
}

// groupAllocator is syncedAllocator for the placements of the pod-group
// cycle gcs of group: with the devices a preemption's removed pods free,
// in its re-run.
func (pl *DRAAllocator) groupAllocator(ctx context.Context, gcs fwk.PodGroupCycleState, group types.NamespacedName) (*allocator.Allocator, error) {
	g := pl.gangPreemptionOf(ctx, gcs, group)
	alloc, err := pl.syncedAllocator(ctx)
	if err != nil {
		return nil, err
	}
	if g != nil {
		alloc = g.alloc(alloc, nil, pl.feed.inv)
	}
	return alloc, nil
}

// findGangPreemption compares the snapshot's NodeInfos with those seen
// last outside a mutation session: every one of them replaced means a
// session, and the pods they lost are the ones removed. Outside one, it
// remembers the NodeInfos instead. In a session of a group that waits for
// released devices it returns no preemption but why the group waits.
func (pl *DRAAllocator) findGangPreemption(ctx context.Context, group types.NamespacedName) (*gangPreemption, string) {
	logger := klog.FromContext(ctx)
	infos, err := pl.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		logger.V(4).Info("Cannot list the snapshot's nodes: a pod group preemption's re-run would not see freed devices", "err", err)
		return nil, ""
	}
	seen := pl.seenNodeInfos.Load()
	if seen == nil || !replacedEvery(*seen, infos) {
		now := make(seenNodeInfos, len(infos))
		for _, ni := range infos {
			now[ni.Node().Name] = ni
		}
		pl.seenNodeInfos.Store(&now)
		return nil, ""
	}
	if why := pl.groupAwaitsRelease(ctx, group); why != "" {
		logger.V(4).Info("Pod group preemption's re-run finds no room: the group waits for the devices of preempted pods on its nominated nodes", "podGroup", group)
		return nil, why
	}
	start := time.Now()
	removedInfos := pl.removedPods(*seen, infos)
	removed := make(map[types.UID]*v1.Pod, len(removedInfos))
	for _, pi := range removedInfos {
		removed[pi.GetPod().UID] = pi.GetPod()
	}
	// The staying pods of a node are listed only where a removed pod's
	// claim could be given back (ReleasesBy asks lazily).
	byName := make(map[string]fwk.NodeInfo, len(infos))
	for _, ni := range infos {
		byName[ni.Node().Name] = ni
	}
	stayingOn := func(node string) []*v1.Pod {
		if ni := byName[node]; ni != nil {
			return podsOf(ni.GetPods())
		}
		return nil
	}
	g := &gangPreemption{removed: removed, removedInfos: removedInfos}
	g.releases = eviction.ReleasesAcross(removed, stayingOn, claimLookup{pl})
	g.indexReleases()
	g.victimDevices = map[structured.DeviceID]bool{}
	for _, r := range g.releases {
		g.freed = append(g.freed, r.Allocation)
		for _, d := range r.Allocation.Devices.Results {
			g.victimDevices[structured.MakeDeviceID(d.Driver, d.Pool, d.Device)] = true
		}
	}
	claims, err := pl.draManager.ResourceClaims().List()
	if err != nil {
		logger.V(4).Info("Cannot list claims: devices being released count as taken in a pod group preemption's re-run", "err", err)
	}
	for _, claim := range claims {
		alloc := claim.Status.Allocation
		switch {
		case alloc == nil:
			// Deallocated, maybe by the resourceclaim controller the
			// moment an earlier round's victim went: the tracker, fed by
			// its own handler, may not have the update yet, and would
			// hold the devices taken in this re-run (the caller builds
			// its allocators after this).
			pl.tracker.SetClaim(claim)
		case pl.releasing(claim):
			g.releasing = append(g.releasing, alloc)
		}
	}
	metrics.GroupPreemptionReruns.Inc()
	logger.V(4).Info("Pod group preemption's re-run: devices of removed pods count as free", "removedPods", len(removed), "freedClaims", len(g.freed),
		"releasingClaims", len(g.releasing), "took", time.Since(start))
	return g, ""
}

// replacedEvery reports whether every node seen before that the snapshot
// still has is a different NodeInfo now, as in a mutation session; nodes
// added or deleted since do not count.
func replacedEvery(seen seenNodeInfos, infos []fwk.NodeInfo) bool {
	common := 0
	for _, ni := range infos {
		before, ok := seen[ni.Node().Name]
		if !ok {
			continue
		}
		if before == ni {
			return false
		}
		common++
	}
	return common > 0
}

// removedPods returns the pods with claims that the NodeInfos seen hold
// and the current ones lack, and that are still running where they were:
// a pod deleted meanwhile frees its claims in the tracker, not here.
func (pl *DRAAllocator) removedPods(seen seenNodeInfos, infos []fwk.NodeInfo) []fwk.PodInfo {
	var removed []fwk.PodInfo
	for _, ni := range infos {
		before, ok := seen[ni.Node().Name]
		if !ok {
			continue
		}
		var now map[types.UID]bool
		for _, pi := range before.GetPods() {
			pod := pi.GetPod()
			if !hasClaims(pod) {
				continue
			}
			if now == nil {
				now = make(map[types.UID]bool, len(ni.GetPods()))
				for _, p := range ni.GetPods() {
					now[p.GetPod().UID] = true
				}
			}
			if now[pod.UID] || !pl.stillRunsOn(pod, ni.Node().Name) {
				continue
			}
			removed = append(removed, pi)
		}
	}
	return removed
}

// stillRunsOn reports whether the informer has the pod, the same one, on
// node and not being deleted.
func (pl *DRAAllocator) stillRunsOn(pod *v1.Pod, node string) bool {
	p, err := pl.podLister.Pods(pod.Namespace).Get(pod.Name)
	return err == nil && p.UID == pod.UID && p.Spec.NodeName == node && p.DeletionTimestamp == nil
}

// alloc returns a, an allocator over the devices allocated and in flight,
// with the devices the removed pods free free on every node. held are the
// allocations the group's pods hold in flight
// (groupState.pendingAllocations): taken again after the release, since a
// pod of the group given a victim's device holds it while the victim's
// claim still does.
//
// The release is made once per re-run (released), over a as the first pod
// to ask brought it: each pod of the group asks in its PreFilter, and
// freeing every victim's devices again for each costs as much as the
// victims are many. What the group's pods reserve in between is in held;
// a claim allocated or freed by others in between counts as it did for
// the first pod, as in one snapshot; the release is made again once the
// inventory changes.
func (g *gangPreemption) alloc(a *allocator.Allocator, held []*resourceapi.AllocationResult, inv *inventory.Inventory) *allocator.Allocator {
	return g.released.over(a, inv, append(slices.Clip(g.freed), g.releasing...)).WhatIf(allocator.WhatIf{Take: held})
}

// releasedOnce is the allocator of a re-run with its victims' devices free
// (gangPreemption.alloc), for one generation of the inventory.
type releasedOnce struct {
	mu         sync.Mutex
	inv        *inventory.Inventory
	generation uint64
	a          *allocator.Allocator
}

// over returns a with freed free, made from the first a it was given for
// inv as it is now.
func (r *releasedOnce) over(a *allocator.Allocator, inv *inventory.Inventory, freed []*resourceapi.AllocationResult) *allocator.Allocator {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.a == nil || r.inv != inv || r.generation != inv.Generation() {
		r.inv, r.generation = inv, inv.Generation()
		r.a = a.WhatIf(allocator.WhatIf{ReleaseAnywhere: freed})
	}
	return r.a
}

// allocOn is alloc for answers on node alone, while the removed pods that
// givenBack reports are given back: only the releases of the removed pods
// on node (releasesOn) that need none of those, with the claims being
// released. The devices other nodes' victims free stay taken, which costs
// no answer on node but one using a network-attached device that a victim
// elsewhere holds: the reprieve then keeps that victim evicted. A
// reprieve thus costs the releases of one node, not of every removed pod
// in the cluster.
func (g *gangPreemption) allocOn(a *allocator.Allocator, node string, givenBack func(types.UID) bool, held []*resourceapi.AllocationResult) *allocator.Allocator {
	return a.WhatIf(allocator.WhatIf{ReleaseAnywhere: g.freedOn(node, givenBack), Take: held})
}

// freedOn is what allocOn frees.
func (g *gangPreemption) freedOn(node string, givenBack func(types.UID) bool) []*resourceapi.AllocationResult {
	var freed []*resourceapi.AllocationResult
	for _, i := range g.releasesOn[node] {
		if r := g.releases[i]; !slices.ContainsFunc(r.Needs, givenBack) {
			freed = append(freed, r.Allocation)
		}
	}
	return append(freed, g.releasing...)
}

// indexReleases files each release under the nodes of the pods it needs
// (releasesOn) and under those pods (releasesOf).
func (g *gangPreemption) indexReleases() {
	g.releasesOn, g.releasesOf = map[string][]int{}, map[types.UID][]int{}
	for i, r := range g.releases {
		var nodes []string
		for _, uid := range r.Needs {
			g.releasesOf[uid] = append(g.releasesOf[uid], i)
			if pod := g.removed[uid]; pod != nil && !slices.Contains(nodes, pod.Spec.NodeName) {
				nodes = append(nodes, pod.Spec.NodeName)
			}
		}
		for _, n := range nodes {
			g.releasesOn[n] = append(g.releasesOn[n], i)
		}
	}
}
