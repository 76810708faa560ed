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

// The chaos scenarios of issue 41 (make test-chaos; build tag chaos):
// dra-scheduler against a real kube-apiserver while its informers relist,
// slices are replaced, claims come and go and schedulers die. Each ends
// with the same verdict (chaosVerdict): the plugin's consistency check
// finds nothing, no device is allocated to two claims, and every pod
// that can run is bound, its claim allocated on its node and reserved
// for it.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// chaosWait bounds every wait for the cluster to settle after chaos: a
// scheduler under chaos backs off pods for up to 10 s at a time.
const chaosWait = 3 * time.Minute

// chaosInterval is the consistency check's interval in the scenarios: it
// also runs while the chaos lasts.
const chaosInterval = 3 * time.Second

// chaosProfile is draPlugins with the consistency check every
// chaosInterval.
const chaosProfile = draPlugins + `  pluginConfig:
  - name: DRAAllocator
    args: {consistencyCheckInterval: 3s}
`

// chaosConfig is a configuration with chaosProfile and no leader election.
const chaosConfig = configHeader + chaosProfile

// checkResult is one consistency check the Checked hook heard.
type checkResult struct {
	trigger     string
	at          time.Time
	differences []string
}

// checkLog collects the consistency checks of an in-process scheduler.
type checkLog struct {
	mu      sync.Mutex
	results []checkResult
}

// hooks returns plugin hooks that record every check in l.
func (l *checkLog) hooks() *draallocator.Hooks {
	return &draallocator.Hooks{Checked: l.add}
}

func (l *checkLog) add(trigger string, differences []drift.Difference) {
	r := checkResult{trigger: trigger, at: time.Now()}
	for _, d := range differences {
		r.differences = append(r.differences, string(d.Kind)+": "+d.String())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.results = append(l.results, r)
}

func (l *checkLog) snapshot() []checkResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]checkResult(nil), l.results...)
}

// summary describes the checks from the first'th on: how many ran and
// what those that found differences found.
func (l *checkLog) summary(first int) (checks, withDifferences int, text string) {
	all := l.snapshot()
	if first > len(all) {
		first = len(all)
	}
	var b strings.Builder
	for _, r := range all[first:] {
		checks++
		if len(r.differences) == 0 {
			continue
		}
		withDifferences++
		fmt.Fprintf(&b, "  %s check at %s: %d differences:\n", r.trigger, r.at.Format("15:04:05.000"), len(r.differences))
		for _, d := range r.differences {
			fmt.Fprintf(&b, "    %s\n", d)
		}
	}
	return checks, withDifferences, b.String()
}

// runCheck runs the consistency check of the scheduler in this process
// (SIGUSR2, as an operator would) and returns the differences it found,
// as its Checked hook heard them, and the gauge
// dra_scheduler_consistency_check_differences it set.
func (l *checkLog) runCheck(t *testing.T, ctx context.Context) ([]string, float64) {
	t.Helper()
	n := len(l.snapshot())
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	var result *checkResult
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		for _, r := range l.snapshot()[n:] {
			if r.trigger == "signal" {
				result = &r
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no consistency check ran within a minute of SIGUSR2: %v", err)
	}
	return result.differences, gatherDRAMetrics(t)["dra_scheduler_consistency_check_differences"]
}

// chaosVerdict is how every scenario ends, once its chaos stopped: all of
// pods bound, each with its claim claim allocated on its node and reserved
// for it; no device of the namespace's claims allocated twice; and the
// consistency check (check) finding nothing. What the checks found during
// the chaos is logged.
type chaosVerdict struct {
	e     *env
	pods  []string
	claim string
	// check runs the scheduler's consistency check and returns what it
	// found and the gauge it set.
	check func() ([]string, float64)
}

func (v chaosVerdict) assert() {
	e := v.e
	e.t.Helper()
	start := time.Now()
	e.waitForLong(fmt.Sprintf("all %d pods to be bound", len(v.pods)), chaosWait, func() (bool, string) {
		unbound := e.unboundOf(v.pods)
		return len(unbound) == 0, fmt.Sprintf("%d unbound, e.g. %s", len(unbound), describePod(e, unbound))
	})
	e.t.Logf("all %d pods bound %v after the chaos ended", len(v.pods), time.Since(start).Round(time.Millisecond))
	if problems := e.claimProblems(v.pods, v.claim); len(problems) > 0 {
		e.t.Errorf("%d problems with the pods' claims:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	diffs, gauge := v.check()
	if len(diffs) > 0 || gauge != 0 {
		e.t.Errorf("the consistency check found %d differences (gauge %v):\n  %s", len(diffs), gauge, strings.Join(diffs, "\n  "))
	}
}

// waitForLong is waitFor with a timeout of its own.
func (e *env) waitForLong(what string, timeout time.Duration, cond func() (bool, string)) {
	e.t.Helper()
	var state string
	err := wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		var ok bool
		ok, state = cond()
		return ok, nil
	})
	if err != nil {
		e.t.Fatalf("waiting for %s: %v; last state: %s", what, err, state)
	}
}

// unboundOf returns the pods of names that are not bound (or gone).
func (e *env) unboundOf(names []string) []string {
	list, err := e.client.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return names
	}
	bound := map[string]bool{}
	for _, p := range list.Items {
		if p.Spec.NodeName != "" {
			bound[p.Name] = true
		}
	}
	var out []string
	for _, n := range names {
		if !bound[n] {
			out = append(out, n)
		}
	}
	return out
}

// describePod names the first of names and its scheduling condition.
func describePod(e *env, names []string) string {
	if len(names) == 0 {
		return "none"
	}
	pod, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, names[0], metav1.GetOptions{})
	if err != nil {
		return names[0] + ": " + err.Error()
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return fmt.Sprintf("%s: %s %s", pod.Name, c.Reason, c.Message)
		}
	}
	return pod.Name + ": no PodScheduled condition"
}

// claimProblems lists what is wrong with the claims of the namespace and
// of the pods: a device allocated to two claims, a pod whose claim
// podClaim is not allocated to devices of its node or not reserved for
// it. Pods are looked up by name; claims are read from the API.
func (e *env) claimProblems(pods []string, podClaim string) []string {
	var problems []string
	claims, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return []string{"list claims: " + err.Error()}
	}
	byName := map[string]int{}
	holders := map[string][]string{}
	for i, c := range claims.Items {
		byName[c.Name] = i
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			key := r.Driver + "/" + r.Pool + "/" + r.Device
			holders[key] = append(holders[key], c.Name)
		}
	}
	for device, names := range holders {
		if len(names) > 1 {
			problems = append(problems, fmt.Sprintf("device %s is allocated to claims %v", device, names))
		}
	}
	list, err := e.client.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return append(problems, "list pods: "+err.Error())
	}
	want := map[string]bool{}
	for _, n := range pods {
		want[n] = true
	}
	for _, pod := range list.Items {
		if !want[pod.Name] {
			continue
		}
		delete(want, pod.Name)
		name := ""
		for _, s := range pod.Status.ResourceClaimStatuses {
			if s.Name == podClaim && s.ResourceClaimName != nil {
				name = *s.ResourceClaimName
			}
		}
		for _, c := range pod.Spec.ResourceClaims {
			if c.Name == podClaim && c.ResourceClaimName != nil {
				name = *c.ResourceClaimName
			}
		}
		i, ok := byName[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("pod %s: claim %s %q not found", pod.Name, podClaim, name))
			continue
		}
		c := claims.Items[i]
		switch {
		case c.Status.Allocation == nil || len(c.Status.Allocation.Devices.Results) == 0:
			problems = append(problems, fmt.Sprintf("pod %s on %s: claim %s not allocated", pod.Name, pod.Spec.NodeName, c.Name))
		case !reservedFor(c.Status.ReservedFor, pod.UID):
			problems = append(problems, fmt.Sprintf("pod %s on %s: claim %s not reserved for it (%v)", pod.Name, pod.Spec.NodeName, c.Name, c.Status.ReservedFor))
		default:
			for _, r := range c.Status.Allocation.Devices.Results {
				if r.Pool != pod.Spec.NodeName {
					problems = append(problems, fmt.Sprintf("pod %s on %s: claim %s holds %s/%s of another node", pod.Name, pod.Spec.NodeName, c.Name, r.Pool, r.Device))
				}
			}
		}
	}
	for n := range want {
		problems = append(problems, "pod "+n+" is gone")
	}
	sort.Strings(problems)
	return problems
}

func reservedFor(refs []resourceapi.ResourceClaimConsumerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.UID == uid {
			return true
		}
	}
	return false
}

// forceDelete deletes a pod at once, as when its node is gone.
var forceDelete = metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}

// deleteNow deletes pods at once, ignoring those already gone.
func (e *env) deleteNow(names ...string) {
	e.t.Helper()
	for _, n := range names {
		if err := e.client.CoreV1().Pods(e.ns).Delete(e.ctx, n, forceDelete); err != nil && !apierrors.IsNotFound(err) {
			e.t.Fatalf("delete pod %s: %v", n, err)
		}
	}
}

// templatedPods creates pods prefix-from ... prefix-(to-1), each with the
// claim "dev" from template, and returns their names.
func (e *env) templatedPods(prefix, template string, from, to int) []string {
	e.t.Helper()
	var names []string
	for i := from; i < to; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		e.create(objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", template).Obj())
		names = append(names, name)
	}
	return names
}

// gpuNodes creates nodes node-0 ... node-(n-1), each with a slice of
// perNode devices dev-0 ... of driver.
func (e *env) gpuNodes(driver string, n, perNode int) {
	e.t.Helper()
	for i := range n {
		node := fmt.Sprintf("node-%d", i)
		slice := objects.MakeSlice(node, driver, node)
		for d := range perNode {
			slice.Device(fmt.Sprintf("dev-%d", d), nil)
		}
		e.create(objects.MakeNode(node).Obj(), slice.Obj())
	}
}

// chaosLoop runs do every period with ±50% jitter until stop is closed,
// on a goroutine of its own; the returned function stops it and waits.
func chaosLoop(period time.Duration, seed uint64, do func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	rng := rand.New(rand.NewPCG(seed, 41))
	wg.Go(func() {
		for {
			d := period/2 + time.Duration(rng.Int64N(int64(period)))
			select {
			case <-done:
				return
			case <-time.After(d):
				do()
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}

// chaosProxy forwards TCP connections to an API server until cut closes
// every one of them: a client on the other side sees its watches end and
// its requests in flight fail, as when a load balancer or the network
// drops connections. Requests whose response was lost may have been
// applied.
type chaosProxy struct {
	listener net.Listener
	target   string
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	// downUntil is when an outage ends (UnixNano; 0: none): until then,
	// connections are closed as they come.
	downUntil atomic.Int64
	cuts      atomic.Int64
	cutConns  atomic.Int64
}

// startChaosProxy forwards a loopback port to target (host:port) until the
// test ends.
func startChaosProxy(t *testing.T, target string) *chaosProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &chaosProxy{listener: l, target: target, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() {
		_ = l.Close()
		p.cut()
	})
	return p
}

func (p *chaosProxy) serve() {
	for {
		in, err := p.listener.Accept()
		if err != nil {
			return
		}
		go p.forward(in)
	}
}

func (p *chaosProxy) forward(in net.Conn) {
	if time.Now().UnixNano() < p.downUntil.Load() {
		_ = in.Close()
		return
	}
	out, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = in.Close()
		return
	}
	p.mu.Lock()
	p.conns[in], p.conns[out] = struct{}{}, struct{}{}
	p.mu.Unlock()
	go func() {
		_, _ = io.Copy(out, in)
		_ = out.Close()
		_ = in.Close()
	}()
	_, _ = io.Copy(in, out)
	_ = in.Close()
	_ = out.Close()
	p.mu.Lock()
	delete(p.conns, in)
	delete(p.conns, out)
	p.mu.Unlock()
}

// cut closes every connection open through the proxy.
func (p *chaosProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
		p.cutConns.Add(1)
	}
	clear(p.conns)
	p.cuts.Add(1)
}

// outage cuts every connection and refuses new ones for d: the clients'
// watches resume only once d has passed, from resource versions that may
// have been compacted meanwhile.
func (p *chaosProxy) outage(d time.Duration) {
	p.downUntil.Store(time.Now().Add(d).UnixNano())
	p.cut()
}

// kubeconfig writes an admin kubeconfig that reaches the control plane
// through the proxy and returns its path.
func (p *chaosProxy) kubeconfig(t *testing.T, cp *controlplane.ControlPlane) string {
	t.Helper()
	config := restclient.CopyConfig(cp.Config)
	config.Host = "https://" + p.listener.Addr().String()
	path := filepath.Join(cp.Dir, "proxied.kubeconfig")
	if err := controlplane.WriteKubeconfig(config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// hostPort is the host:port of an https URL.
func hostPort(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// listCounts counts, by resource, the lists the API server answered: LIST
// requests and watches that began with the current objects
// (sendInitialEvents, which informers use when the API server offers it).
// An informer's first sync is one; each relist after "too old resource
// version" another.
func listCounts(t *testing.T) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for key, v := range gatherMetrics(t, "apiserver_") {
		name, labels, _ := strings.Cut(strings.TrimSuffix(key, "}"), "{")
		var verb, resource string
		for _, l := range strings.Split(labels, ",") {
			if v, ok := strings.CutPrefix(l, "verb="); ok {
				verb = v
			}
			if v, ok := strings.CutPrefix(l, "resource="); ok {
				resource = v
			}
		}
		switch {
		case name == "apiserver_request_total" && verb == "LIST",
			name == "apiserver_watch_list_duration_seconds":
			out[resource] += v
		}
	}
	return out
}

// chaosReplica is a dra-scheduler process (startReplica) serving
// /metrics on a loopback port without authorization.
type chaosReplica struct {
	*replica
	port int
}

// startChaosReplica starts a replica with configPath and waits until it
// reports ready.
func startChaosReplica(t *testing.T, name, configPath string) *chaosReplica {
	t.Helper()
	port := freePort(t)
	r := startReplica(t, name, configPath, "--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--cert-dir="+t.TempDir(), "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics")
	waitProbe(t, t.Context(), r, port, "/healthz")
	return &chaosReplica{replica: r, port: port}
}

// scrapeSeries reads the series of the replica's /metrics whose names
// start with prefix, keyed as exposed.
func (r *chaosReplica) scrapeSeries(t *testing.T, prefix string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for line := range strings.Lines(scrapeOpen(t, t.Context(), r.port)) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// runCheck runs the replica's consistency check (SIGUSR2) and returns
// what it logged as differing since it started, the gauge
// dra_scheduler_consistency_check_differences and the sum of
// dra_scheduler_cache_differences_total over its life.
func (r *chaosReplica) runCheck(t *testing.T) (logged []string, gauge, total float64) {
	t.Helper()
	const count = "dra_scheduler_consistency_check_duration_seconds_count"
	checks := func() float64 { return r.scrapeSeries(t, count)[count] }
	before := checks()
	if err := r.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatalf("signal replica %s: %v", r.name, err)
	}
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return checks() > before, nil
	})
	if err != nil {
		t.Fatalf("replica %s ran no consistency check within a minute of SIGUSR2 (%v checks before)", r.name, before)
	}
	series := r.scrapeSeries(t, "dra_scheduler_c")
	for key, v := range series {
		if strings.HasPrefix(key, "dra_scheduler_cache_differences_total{") {
			total += v
		}
	}
	r.mu.Lock()
	for line := range strings.Lines(r.log.String()) {
		if strings.Contains(line, "DRAAllocator state differs from the API") {
			logged = append(logged, strings.TrimSpace(line))
		}
	}
	r.mu.Unlock()
	return logged, series["dra_scheduler_consistency_check_differences"], total
}

// writeChaosConfig writes a scheduler configuration into the control
// plane's directory.
func writeChaosConfig(t *testing.T, cp *controlplane.ControlPlane, name, config string) string {
	t.Helper()
	path, err := cp.WriteSchedulerConfig(name, []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// newChaosEnv starts a control plane with opts and creates the test
// namespace; no scheduler runs yet.
func newChaosEnv(t *testing.T, opts controlplane.Options) *env {
	t.Helper()
	start := time.Now()
	cp, err := controlplane.Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	t.Logf("control plane ready in %v", time.Since(start).Round(time.Millisecond))
	e := &env{t: t, ctx: t.Context(), cp: cp, client: cp.Client, ns: "test"}
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}})
	return e
}

// logChaos logs a scenario's numbers on one line.
func logChaos(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("chaos: "+format, args...)
}
