package schedbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// progressEvery is how often a long wait reports on stderr.
const progressEvery = 10 * time.Second

// recorder watches a namespace's pods and records when each pod was
// created (just before its Create call) and first seen bound.
//
// The API server may end a watch at any time (its timeout, or a watcher
// too slow for its buffer under load): the recorder then watches again
// from the last resource version it saw, or, if that is too old, lists the
// pods and records those already bound at the time of the list (counted in
// relists: their latency is then an upper bound).
type recorder struct {
	client    kubernetes.Interface
	namespace string

	mu      sync.Mutex
	created map[string]time.Time
	bound   map[string]time.Time
	// restarts counts watches started again, relists lists after a watch
	// could not be resumed.
	restarts, relists int
	// watchErr is set when the pods can no longer be observed.
	watchErr error

	// changed is signalled (without blocking) on every new binding.
	changed chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}
}

// startRecorder starts watching the pods of namespace. Call stop.
func startRecorder(ctx context.Context, client kubernetes.Interface, namespace string) (*recorder, error) {
	list, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("list pods in %s: %w", namespace, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &recorder{
		client:    client,
		namespace: namespace,
		created:   map[string]time.Time{},
		bound:     map[string]time.Time{},
		changed:   make(chan struct{}, 1),
		cancel:    cancel,
		done:      make(chan struct{}),
	}
	w, err := r.watch(ctx, list.ResourceVersion)
	if err != nil {
		cancel()
		return nil, err
	}
	go r.observe(ctx, w, list.ResourceVersion)
	return r, nil
}

func (r *recorder) watch(ctx context.Context, rv string) (watch.Interface, error) {
	w, err := r.client.CoreV1().Pods(r.namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		return nil, fmt.Errorf("watch pods in %s: %w", r.namespace, err)
	}
	return w, nil
}

// observe consumes watches until ctx ends.
func (r *recorder) observe(ctx context.Context, w watch.Interface, rv string) {
	defer close(r.done)
	for {
		rv = r.consume(w, rv)
		w.Stop()
		if ctx.Err() != nil {
			return
		}
		var err error
		if rv == "" {
			rv, err = r.relist(ctx)
		}
		if err == nil {
			w, err = r.watch(ctx, rv)
		}
		if err != nil {
			if ctx.Err() == nil {
				r.mu.Lock()
				r.watchErr = err
				r.mu.Unlock()
			}
			return
		}
		r.mu.Lock()
		r.restarts++
		r.mu.Unlock()
	}
}

// consume records the events of one watch and returns the last resource
// version seen, or "" when the watch cannot be resumed from it.
func (r *recorder) consume(w watch.Interface, rv string) string {
	for ev := range w.ResultChan() {
		now := time.Now()
		if ev.Type == watch.Error {
			// Typically 410 Gone: the resource version is too old.
			return ""
		}
		p, ok := ev.Object.(*v1.Pod)
		if !ok {
			continue
		}
		rv = p.ResourceVersion
		if ev.Type != watch.Bookmark && p.Spec.NodeName != "" {
			r.markBound(p.Name, now)
		}
	}
	return rv
}

// relist records the pods bound now and returns the list's resource version.
func (r *recorder) relist(ctx context.Context) (string, error) {
	list, err := r.client.CoreV1().Pods(r.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("list pods in %s: %w", r.namespace, err)
	}
	now := time.Now()
	for i := range list.Items {
		if p := &list.Items[i]; p.Spec.NodeName != "" {
			r.markBound(p.Name, now)
		}
	}
	r.mu.Lock()
	r.relists++
	r.mu.Unlock()
	return list.ResourceVersion, nil
}

func (r *recorder) markBound(name string, t time.Time) {
	r.mu.Lock()
	if _, seen := r.bound[name]; !seen {
		r.bound[name] = t
	}
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) stop() {
	r.cancel()
	<-r.done
}

// watchStats returns how often the watch was restarted and the pods
// relisted.
func (r *recorder) watchStats() (restarts, relists int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restarts, r.relists
}

// markCreated records pod name's creation time.
func (r *recorder) markCreated(name string, t time.Time) {
	r.mu.Lock()
	r.created[name] = t
	r.mu.Unlock()
}

// countBound returns how many of names are bound.
func (r *recorder) countBound(names []string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, name := range names {
		if _, ok := r.bound[name]; ok {
			n++
		}
	}
	return n
}

// samples returns the latencies of names seen bound, the first creation
// and the last binding among them.
func (r *recorder) samples(names []string) (lat []time.Duration, first, last time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range names {
		c, ok := r.created[name]
		if !ok {
			continue
		}
		if first.IsZero() || c.Before(first) {
			first = c
		}
		b, ok := r.bound[name]
		if !ok {
			continue
		}
		lat = append(lat, b.Sub(c))
		if b.After(last) {
			last = b
		}
	}
	return lat, first, last
}

// createPods creates the named pods on workers concurrent clients,
// recording each creation time.
func createPods(ctx context.Context, client kubernetes.Interface, r *recorder, namespace string, names []string, c Config, mode ClaimMode, workers int) error {
	return Parallel(ctx, len(names), workers, func(ctx context.Context, i int) error {
		pod := makePod(names[i], namespace, c, mode)
		r.markCreated(pod.Name, time.Now())
		if _, err := client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %s/%s: %w", namespace, pod.Name, err)
		}
		return nil
	})
}

// errStalled ends a wait in which no pod was bound for too long.
var errStalled = errors.New("no pod bound")

// waitBound waits until all names are bound, the timeout passes, no pod
// is bound for stall, or the scheduler exits. It reports progress on w
// (if not nil) every progressEvery.
func waitBound(ctx context.Context, r *recorder, names []string, sched *child, timeout, stall time.Duration, w io.Writer, label string) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	lastCount, lastChange := -1, time.Now()
	start := time.Now()
	for {
		n := r.countBound(names)
		if n == len(names) {
			return nil
		}
		if n != lastCount {
			lastCount, lastChange = n, time.Now()
		}
		if time.Since(lastChange) > stall {
			return fmt.Errorf("%w for %v: %d of %d pods bound", errStalled, stall, n, len(names))
		}
		r.mu.Lock()
		werr := r.watchErr
		r.mu.Unlock()
		if werr != nil {
			return werr
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("timed out after %v: %d of %d pods bound", timeout, n, len(names))
		case <-sched.done:
			return fmt.Errorf("scheduler exited (%v): %d of %d pods bound; log: %s", sched.cmd.ProcessState, n, len(names), sched.logPath)
		case <-r.done:
			r.mu.Lock()
			werr := r.watchErr
			r.mu.Unlock()
			return fmt.Errorf("pod watch ended (%v): %d of %d pods bound", werr, n, len(names))
		case <-tick.C:
			if w != nil {
				fmt.Fprintf(w, "dra-bench: %s: %d/%d pods bound after %v\n", label, n, len(names), time.Since(start).Round(time.Second))
			}
		case <-r.changed:
		case <-poll.C:
		}
	}
}
