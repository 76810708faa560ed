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

package schedbench

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// churn is a soak's workload: each loop writes one kind of object until
// its context ends. Loops share the report under mu.
type churn struct {
	opts    SoakOptions
	client  kubernetes.Interface
	cluster inventorygen.Cluster
	rec     *podlatency.Recorder

	mu  sync.Mutex
	rep *SoakReport
	rng *rand.Rand
	// template is the generation of the template new pods use; created
	// lists every pod created.
	template int
	created  []string
}

// forceDelete deletes without waiting for a kubelet: no kubelet runs the
// soak's pods.
var forceDelete = metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}

// randomDuration returns a duration uniformly in [mean/2, 3*mean/2).
func (ch *churn) randomDuration(mean time.Duration) time.Duration {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return mean/2 + time.Duration(ch.rng.Int64N(int64(mean)))
}

func (ch *churn) randomNode() *v1.Node {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.cluster.Nodes[ch.rng.IntN(len(ch.cluster.Nodes))]
}

// pods keeps Occupancy × GPUs pods alive, each deleted after a random
// lifetime whether it was bound or not.
func (ch *churn) pods(ctx context.Context) error {
	type livePod struct {
		name     string
		deadline time.Time
	}
	target := int(ch.opts.Occupancy * float64(ch.rep.GPUs))
	var live []livePod
	ticker := time.NewTicker(50 * time.Millisecond)
	defer ticker.Stop()
	for i := 0; ; {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
		now := time.Now()
		kept := live[:0]
		for _, p := range live {
			if now.Before(p.deadline) {
				kept = append(kept, p)
				continue
			}
			if err := ch.client.CoreV1().Pods(inProcessNamespace).Delete(ctx, p.name, forceDelete); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete pod %s: %w", p.name, err)
			}
			ch.mu.Lock()
			ch.rep.PodsDeleted++
			ch.mu.Unlock()
		}
		live = kept
		for ; len(live) < target; i++ {
			ch.mu.Lock()
			name, k := podName("soak", i), ch.template
			ch.mu.Unlock()
			ch.rec.Created(name, time.Now())
			if _, err := ch.client.CoreV1().Pods(inProcessNamespace).Create(ctx, soakPod(name, k), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create pod %s: %w", name, err)
			}
			live = append(live, livePod{name: name, deadline: time.Now().Add(ch.randomDuration(ch.opts.PodLifetime))})
			ch.mu.Lock()
			ch.created = append(ch.created, name)
			ch.rep.PodsCreated++
			ch.mu.Unlock()
		}
	}
}

// templates switches new pods to a template with a new selector every
// TemplateEvery and deletes the template two generations back (its pods'
// claims exist by then).
func (ch *churn) templates(ctx context.Context) error {
	templates := ch.client.ResourceV1().ResourceClaimTemplates(inProcessNamespace)
	return every(ctx, ch.opts.TemplateEvery, func() error {
		ch.mu.Lock()
		k := ch.template + 1
		ch.mu.Unlock()
		if _, err := templates.Create(ctx, soakTemplate(k), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create ResourceClaimTemplate soak-%d: %w", k, err)
		}
		ch.mu.Lock()
		ch.template = k
		ch.rep.Templates++
		ch.mu.Unlock()
		if k >= 2 {
			if err := templates.Delete(ctx, fmt.Sprintf("soak-%d", k-2), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete ResourceClaimTemplate soak-%d: %w", k-2, err)
			}
		}
		return nil
	})
}

// slices republishes a random node's slice with the next pool generation
// (same devices) every SliceEvery, as a driver restarting does.
func (ch *churn) slices(ctx context.Context) error {
	return every(ctx, ch.opts.SliceEvery, func() error {
		node := ch.randomNode()
		for _, s := range ch.cluster.SlicesForNode(node.Name) {
			slices := ch.client.ResourceV1().ResourceSlices()
			cur, err := slices.Get(ctx, s.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("get ResourceSlice %s: %w", s.Name, err)
			}
			cur.Spec.Pool.Generation++
			if _, err := slices.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("republish ResourceSlice %s: %w", s.Name, err)
			}
		}
		ch.mu.Lock()
		ch.rep.SliceUpdates++
		ch.mu.Unlock()
		return nil
	})
}

// soakTaintRule is the DeviceTaintRule the soak adds and removes.
const soakTaintRule = "soak-maintenance"

// taints alternately adds a DeviceTaintRule that keeps new pods off a
// random node's GPUs (NoSchedule) and removes it, every TaintEvery.
func (ch *churn) taints(ctx context.Context) error {
	rules := ch.client.ResourceV1().DeviceTaintRules()
	present := false
	return every(ctx, ch.opts.TaintEvery, func() error {
		if present {
			if err := rules.Delete(ctx, soakTaintRule, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete DeviceTaintRule %s: %w", soakTaintRule, err)
			}
		} else {
			node := ch.randomNode()
			driver, pool := inventorygen.DriverNvidia, node.Name
			rule := &resourceapi.DeviceTaintRule{
				ObjectMeta: metav1.ObjectMeta{Name: soakTaintRule},
				Spec: resourceapi.DeviceTaintRuleSpec{
					DeviceSelector: &resourceapi.DeviceTaintSelector{Driver: &driver, Pool: &pool},
					Taint:          resourceapi.DeviceTaint{Key: "dra-bench.example.com/soak", Effect: resourceapi.DeviceTaintEffectNoSchedule},
				},
			}
			if _, err := rules.Create(ctx, rule, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create DeviceTaintRule %s on %s: %w", soakTaintRule, pool, err)
			}
		}
		present = !present
		ch.mu.Lock()
		ch.rep.TaintRuleChanges++
		ch.mu.Unlock()
		return nil
	})
}

// checkPeriodically looks for devices held by two claims every 30 s.
func (ch *churn) checkPeriodically(ctx context.Context) {
	_ = every(ctx, 30*time.Second, func() error {
		check, err := checkClaims(ctx, ch.client, inProcessNamespace)
		if err != nil {
			return nil // the context ended; a failed list is retried next time
		}
		ch.mu.Lock()
		defer ch.mu.Unlock()
		ch.rep.Checks++
		if check.duplicates > 0 {
			ch.rep.DoubleAllocated += check.duplicates
			ch.rep.Problems = append(ch.rep.Problems, check.example)
		}
		return nil
	})
}

// sample reads the scheduler's heap, goroutines and consistency checks
// every SampleEvery.
func (ch *churn) sample(ctx context.Context, sched *child, start time.Time) {
	client := loopbackClient()
	defer client.CloseIdleConnections()
	_ = every(ctx, ch.opts.SampleEvery, func() error {
		values, err := scrape(ctx, client, sched.port, "go_memstats_heap_alloc_bytes", "go_memstats_next_gc_bytes", "go_goroutines", "dra_scheduler_cel_cache_bytes",
			metricChecks, metricDifferencesTotal)
		if err != nil {
			return nil // a missed sample is not a failure of the scheduler
		}
		ch.mu.Lock()
		ch.rep.Samples = append(ch.rep.Samples, SoakSample{At: time.Since(start), HeapBytes: values["go_memstats_heap_alloc_bytes"],
			LiveHeapBytes: values["go_memstats_next_gc_bytes"] / 2,
			Goroutines:    values["go_goroutines"], CELCacheBytes: values["dra_scheduler_cel_cache_bytes"],
			ConsistencyChecks: values[metricChecks], Differences: float64(total(differencesByKind(values)))})
		ch.mu.Unlock()
		return nil
	})
}

// scrape reads every series of the named metrics from the scheduler's
// /metrics, keyed as exposed: "name" for an unlabelled metric,
// `name{a="x",b="y"}` for a labelled one.
func scrape(ctx context.Context, client *http.Client, port int, names ...string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/metrics", port), nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || strings.HasPrefix(line, "#") {
			continue
		}
		series := line[:i]
		name, _, _ := strings.Cut(series, "{")
		if !want[name] {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[series] = v
		}
	}
	return out, sc.Err()
}

// finalChecks ends the churn as an operator would (every pod deleted, the
// rule removed), checks once more for double allocation, then waits for
// the resourceclaim controller and the garbage collector to delete every
// claim (all were generated for pods): what is left is an orphan.
func (ch *churn) finalChecks(ctx context.Context) error {
	check, err := checkClaims(ctx, ch.client, inProcessNamespace)
	if err != nil {
		return err
	}
	ch.rep.Checks++
	if check.duplicates > 0 {
		ch.rep.DoubleAllocated += check.duplicates
		ch.rep.Problems = append(ch.rep.Problems, check.example)
	}
	if err := ch.client.ResourceV1().DeviceTaintRules().Delete(ctx, soakTaintRule, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete DeviceTaintRule %s: %w", soakTaintRule, err)
	}
	pods := ch.client.CoreV1().Pods(inProcessNamespace)
	if err := pods.DeleteCollection(ctx, forceDelete, metav1.ListOptions{}); err != nil {
		return fmt.Errorf("delete the remaining pods: %w", err)
	}
	left, allocated := 0, 0
	err = wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := ch.client.ResourceV1().ResourceClaims(inProcessNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		left, allocated = len(list.Items), 0
		for _, c := range list.Items {
			if c.Status.Allocation != nil {
				allocated++
			}
		}
		return left == 0, nil
	})
	ch.rep.OrphanClaims = left
	if err != nil && left > 0 {
		ch.rep.Problems = append(ch.rep.Problems, fmt.Sprintf("%d claims (%d of them allocated) still exist 2 minutes after every pod was deleted", left, allocated))
	}
	return nil
}

// every runs do every period until ctx ends or do fails.
func every(ctx context.Context, period time.Duration, do func() error) error {
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			if err := do(); err != nil {
				return err
			}
		}
	}
}
