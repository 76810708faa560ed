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
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	cgotesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
)

// harness runs DRAAllocator plugins as a scheduler would, without an API
// server: a fake clientset whose objects get UIDs and resource versions,
// the scheduler's informers, and kube-scheduler's own DRA manager (claim
// assume cache and in-flight bookkeeping) behind one framework handle per
// profile. All profiles' plugins come from one factory, as in a
// scheduler.
type harness struct {
	t       testing.TB
	ctx     context.Context
	client  *fake.Clientset
	manager *dynamicresources.DefaultDRAManager
	// plugins has one plugin per profile, in the order asked for.
	plugins []*DRAAllocator
	nodes   []fwk.NodeInfo
	// recorder holds the events the plugins record.
	recorder *recorder
	// snapshot is the scheduler's snapshot the plugins list nodes from:
	// a pod-group cycle assumes placements in it.
	snapshot *internalcache.Snapshot
	// activated counts the pods the plugins asked the queue to retry.
	activated atomic.Int64
	// nominated are the pods nominated per node (the scheduling queue's
	// nominator); tests add to it before the plugin looks.
	nominated nominator
}

// nominator is a PodNominator over a map, for the tests.
type nominator struct {
	mu     sync.Mutex
	byNode map[string][]fwk.PodInfo
}

func (n *nominator) AddNominatedPod(_ klog.Logger, pod fwk.PodInfo, info *fwk.NominatingInfo) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.byNode == nil {
		n.byNode = map[string][]fwk.PodInfo{}
	}
	node := pod.GetPod().Status.NominatedNodeName
	if info != nil && info.NominatedNodeName != "" {
		node = info.NominatedNodeName
	}
	n.byNode[node] = append(n.byNode[node], pod)
}

func (n *nominator) DeleteNominatedPodIfExists(*v1.Pod)                   {}
func (n *nominator) UpdateNominatedPod(klog.Logger, *v1.Pod, fwk.PodInfo) {}

func (n *nominator) NominatedPodsForNode(node string) []fwk.PodInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.byNode[node]
}

// Activate records pods the plugin retries (the scheduling queue's job).
func (h *harness) Activate(_ klog.Logger, pods map[string]*v1.Pod) { h.activated.Add(int64(len(pods))) }

// newHarness starts the informers over objs and builds a plugin for each
// profile name.
func newHarness(t testing.TB, hooks *Hooks, profiles []string, nodes []*v1.Node, objs ...runtime.Object) *harness {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	h := &harness{t: t, ctx: ctx, client: fake.NewClientset()}
	h.client.PrependReactor("*", "*", versioned(h.client.Tracker()))
	factory := informers.NewSharedInformerFactory(h.client, 0)
	claimsCache := assumecache.NewAssumeCache(klog.FromContext(ctx), factory.Resource().V1().ResourceClaims().Informer(), "resource claim", "", nil)
	assumeSynced := claimsCache.AddEventHandler(cache.ResourceEventHandlerFuncs{}).HasSynced
	h.manager = dynamicresources.NewDRAManager(ctx, claimsCache, nil, factory)
	synced := []cache.InformerSynced{assumeSynced}
	if resolver, ok := h.manager.DeviceClassResolver().(*extendedresourcecache.ExtendedResourceCache); ok && resolver != nil {
		// The scheduler feeds the resolver from the class informer.
		reg, err := factory.Resource().V1().DeviceClasses().Informer().AddEventHandler(resolver)
		if err != nil {
			t.Fatal(err)
		}
		synced = append(synced, reg.HasSynced)
	}
	// PodGroups live in the scheduler's cache and snapshot, not in the
	// clientset; pods of a group are the cache's members too.
	var podGroups []*schedulingapi.PodGroup
	var rest []runtime.Object
	for _, obj := range objs {
		if pg, ok := obj.(*schedulingapi.PodGroup); ok {
			podGroups = append(podGroups, pg)
		} else {
			rest = append(rest, obj)
		}
	}
	objs = rest
	schedmetrics.Register() // the cache's periodic metrics
	podGroupManager := internalcache.New(ctx, nil, true, false)
	for _, pg := range podGroups {
		podGroupManager.AddPodGroup(pg)
	}
	for _, obj := range objs {
		if pod, ok := obj.(*v1.Pod); ok && pod.Spec.SchedulingGroup != nil {
			podGroupManager.AddPodGroupMember(pod)
		}
	}
	// Pods with a node are the node's (bound or assumed).
	var placed []*v1.Pod
	for _, obj := range objs {
		if pod, ok := obj.(*v1.Pod); ok && pod.Spec.NodeName != "" {
			placed = append(placed, pod)
		}
	}
	snapshot := internalcache.NewTestSnapshotWithPodGroups(placed, nodes, podGroups)
	if len(podGroups) > 0 {
		// The scheduler's snapshot, with every group's members (the test
		// snapshot knows only pods on nodes).
		for _, node := range nodes {
			podGroupManager.AddNode(klog.FromContext(ctx), node)
		}
		for _, pod := range placed {
			if err := podGroupManager.AddPod(klog.FromContext(ctx), pod); err != nil {
				t.Fatal(err)
			}
		}
		snapshot = internalcache.NewEmptySnapshot()
		if err := podGroupManager.UpdateSnapshot(klog.FromContext(ctx), snapshot); err != nil {
			t.Fatal(err)
		}
	}
	h.snapshot = snapshot
	for _, node := range nodes {
		info, err := snapshot.NodeInfos().Get(node.Name)
		if err != nil {
			t.Fatal(err)
		}
		h.nodes = append(h.nodes, info)
	}

	h.recorder = &recorder{}
	newPlugin := NewFactory(Options{Hooks: hooks})
	for _, name := range profiles {
		handle, err := frameworkruntime.NewFramework(ctx, nil, &config.KubeSchedulerProfile{SchedulerName: name},
			frameworkruntime.WithClientSet(h.client),
			frameworkruntime.WithInformerFactory(factory),
			frameworkruntime.WithEventRecorder(h.recorder),
			frameworkruntime.WithSharedDRAManager(h.manager),
			frameworkruntime.WithSnapshotSharedLister(snapshot),
			frameworkruntime.WithPodGroupManager(podGroupManager),
			frameworkruntime.WithPodActivator(h),
			frameworkruntime.WithPodNominator(&h.nominated),
		)
		if err != nil {
			t.Fatalf("framework for profile %s: %v", name, err)
		}
		pl, err := newPlugin(ctx, nil, handle)
		if err != nil {
			t.Fatalf("plugin for profile %s: %v", name, err)
		}
		h.plugins = append(h.plugins, pl.(*DRAAllocator))
	}
	for _, obj := range objs {
		h.create(obj)
	}
	factory.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	factory.WaitForCacheSync(ctx.Done())
	// The informers' stores are filled before their handlers ran: wait
	// for the plugins' handlers too, so that what a lister has reached
	// the inventory feed (the slices it queues) and the tracker.
	for _, pl := range h.plugins {
		synced = append(synced, pl.feed.hasSynced...)
		synced = append(synced, pl.claimsSynced)
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		t.Fatal("assume cache, class resolver or the plugins' handlers not synced")
	}
	return h
}

// versioned makes the fake clientset act like an API server in what the
// plugin relies on: created objects get a UID, every write — patches
// included — a new resource version (the tracker keeps its own counter but
// leaves the objects' resourceVersion as written, and the scheduler's
// assume cache ignores an informer copy whose version is not newer).
func versioned(tracker cgotesting.ObjectTracker) cgotesting.ReactionFunc {
	var version atomic.Int64
	patch := cgotesting.ObjectReaction(tracker)
	return func(action cgotesting.Action) (bool, runtime.Object, error) {
		var obj runtime.Object
		switch a := action.(type) {
		case cgotesting.CreateAction:
			obj = a.GetObject()
		case cgotesting.UpdateAction:
			obj = a.GetObject()
		case cgotesting.PatchAction:
			handled, patched, err := patch(action)
			if !handled || err != nil {
				return handled, patched, err
			}
			m, err := meta.Accessor(patched)
			if err != nil {
				return true, patched, nil
			}
			m.SetResourceVersion(strconv.FormatInt(version.Add(1), 10))
			return true, patched, tracker.Update(a.GetResource(), patched, a.GetNamespace())
		default:
			return false, nil, nil
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return false, nil, nil
		}
		if action.GetVerb() == "create" && m.GetUID() == "" {
			m.SetUID(types.UID("uid-" + m.GetName()))
		}
		m.SetResourceVersion(strconv.FormatInt(version.Add(1), 10))
		return false, nil, nil
	}
}

// create creates an object of a kind the plugin watches.
func (h *harness) create(obj runtime.Object) {
	h.t.Helper()
	var err error
	switch o := obj.(type) {
	case *resourceapi.ResourceClaim:
		_, err = h.client.ResourceV1().ResourceClaims(o.Namespace).Create(h.ctx, o, metav1.CreateOptions{})
	case *resourceapi.ResourceSlice:
		_, err = h.client.ResourceV1().ResourceSlices().Create(h.ctx, o, metav1.CreateOptions{})
	case *resourceapi.DeviceClass:
		_, err = h.client.ResourceV1().DeviceClasses().Create(h.ctx, o, metav1.CreateOptions{})
	case *v1.Pod:
		_, err = h.client.CoreV1().Pods(o.Namespace).Create(h.ctx, o, metav1.CreateOptions{})
	default:
		h.t.Fatalf("harness cannot create %T", obj)
	}
	if err != nil {
		h.t.Fatalf("create %T: %v", obj, err)
	}
}

// claim returns the claim as the scheduler's assume cache has it.
func (h *harness) claim(namespace, name string) *resourceapi.ResourceClaim {
	h.t.Helper()
	claim, err := h.manager.ResourceClaims().Get(namespace, name)
	if err != nil {
		h.t.Fatalf("claim %s/%s: %v", namespace, name, err)
	}
	return claim
}

// pod returns the pod name of the test namespace from the clientset.
func (h *harness) pod(name string) *v1.Pod {
	h.t.Helper()
	pod, err := h.client.CoreV1().Pods(testNamespace).Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return pod
}

// deletePod deletes the pod from the clientset.
func (h *harness) deletePod(pod *v1.Pod) {
	h.t.Helper()
	if err := h.client.CoreV1().Pods(pod.Namespace).Delete(h.ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// updateClaimStatus writes the claim's status and waits until the assume
// cache has it.
func (h *harness) updateClaimStatus(claim *resourceapi.ResourceClaim) {
	h.t.Helper()
	updated, err := h.client.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(h.ctx, claim, metav1.UpdateOptions{})
	if err != nil {
		h.t.Fatalf("update claim %s status: %v", claim.Name, err)
	}
	h.eventually("the assume cache to have claim "+claim.Name+" at version "+updated.ResourceVersion, func() bool {
		return h.claim(claim.Namespace, claim.Name).ResourceVersion == updated.ResourceVersion
	})
}

// eventually polls cond for up to ten seconds.
func (h *harness) eventually(what string, cond func() bool) {
	h.t.Helper()
	err := wait.PollUntilContextTimeout(h.ctx, 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		h.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// cycle is one pod's scheduling cycle in one profile.
type cycle struct {
	h     *harness
	pl    *DRAAllocator
	pod   *v1.Pod
	state fwk.CycleState
	// feasible are the nodes Filter accepted.
	feasible []string
}

// filter runs PreFilter and Filter on every node; a non-nil status is
// PreFilter's failure.
func (h *harness) filter(pl *DRAAllocator, pod *v1.Pod) (*cycle, *fwk.Status) {
	return h.filterInGroup(pl, pod, nil)
}

// filterInGroup is filter for a pod of the pod-group cycle whose state is
// group (nil: no pod-group cycle).
func (h *harness) filterInGroup(pl *DRAAllocator, pod *v1.Pod, group fwk.PodGroupCycleState) (*cycle, *fwk.Status) {
	c := &cycle{h: h, pl: pl, pod: pod, state: framework.NewCycleState()}
	if group != nil {
		c.state.(*framework.CycleState).SetPodGroupSchedulingCycle(group)
	}
	if _, st := pl.PreFilter(h.ctx, c.state, pod, h.nodes); !st.IsSuccess() && !st.IsSkip() {
		return c, st
	}
	for _, node := range h.nodes {
		if st := pl.Filter(h.ctx, c.state, pod, node); st.IsSuccess() {
			c.feasible = append(c.feasible, node.Node().Name)
		}
	}
	return c, nil
}

// reserve runs Reserve on the first feasible node, which must exist.
func (c *cycle) reserve() *fwk.Status {
	c.h.t.Helper()
	if len(c.feasible) == 0 {
		c.h.t.Fatalf("pod %s fits on no node", c.pod.Name)
	}
	return c.pl.Reserve(c.h.ctx, c.state, c.pod, c.feasible[0])
}

// unreserve runs Unreserve on the first feasible node.
func (c *cycle) unreserve() {
	c.pl.Unreserve(c.h.ctx, c.state, c.pod, c.feasible[0])
}

// allocationOf allocates one device of testDriver's pool for request "dev".
func allocationOf(pool, device string) *resourceapi.AllocationResult {
	return &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Request: "dev", Driver: testDriver, Pool: pool, Device: device}},
	}}
}

// recorder keeps every event the plugins record, as "type reason note".
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Eventf(_, _ runtime.Object, eventtype, reason, _, note string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, eventtype+" "+reason+" "+fmt.Sprintf(note, args...))
}

func (r *recorder) WithLogger(klog.Logger) events.EventRecorderLogger { return r }

// events returns the events recorded so far that contain substr.
func (h *harness) events(substr string) []string {
	h.recorder.mu.Lock()
	defer h.recorder.mu.Unlock()
	var out []string
	for _, e := range h.recorder.events {
		if strings.Contains(e, substr) {
			out = append(out, e)
		}
	}
	return out
}
