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

package podlatency

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// Recorder watches a namespace's pods and records when each pod was
// created (just before its Create call) and first seen bound.
//
// The API server may end a watch at any time (its timeout, or a watcher
// too slow for its buffer under load): the recorder then watches again
// from the last resource version it saw, or, if that is too old, lists the
// pods and records those already bound at the time of the list (counted in
// relists: their latency is then an upper bound).
type Recorder struct {
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
	// current is the watch being consumed; stopped is set by Stop, which
	// stops it (a watch need not end with its context).
	current watch.Interface
	stopped bool
}

// Start starts watching the pods of namespace. Call Stop.
func Start(ctx context.Context, client kubernetes.Interface, namespace string) (*Recorder, error) {
	list, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("list pods in %s: %w", namespace, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Recorder{
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

func (r *Recorder) watch(ctx context.Context, rv string) (watch.Interface, error) {
	w, err := r.client.CoreV1().Pods(r.namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		return nil, fmt.Errorf("watch pods in %s: %w", r.namespace, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		w.Stop()
	}
	r.current = w
	return w, nil
}

// observe consumes watches until ctx ends.
func (r *Recorder) observe(ctx context.Context, w watch.Interface, rv string) {
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
func (r *Recorder) consume(w watch.Interface, rv string) string {
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
func (r *Recorder) relist(ctx context.Context) (string, error) {
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

func (r *Recorder) markBound(name string, t time.Time) {
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

// Stop ends the watch.
func (r *Recorder) Stop() {
	r.cancel()
	r.mu.Lock()
	r.stopped = true
	if r.current != nil {
		r.current.Stop()
	}
	r.mu.Unlock()
	<-r.done
}

// WatchStats returns how often the watch was restarted and the pods
// relisted.
func (r *Recorder) WatchStats() (restarts, relists int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restarts, r.relists
}

// Created records pod name's creation time: call it just before the
// pod's Create call.
func (r *Recorder) Created(name string, t time.Time) {
	r.mu.Lock()
	r.created[name] = t
	r.mu.Unlock()
}

// CountBound returns how many of names are bound.
func (r *Recorder) CountBound(names []string) int {
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

// Samples returns the latencies of names seen bound, the first creation
// and the last binding among them.
func (r *Recorder) Samples(names []string) (lat []time.Duration, first, last time.Time) {
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

// Changed is signalled (without blocking) on every new binding.
func (r *Recorder) Changed() <-chan struct{} { return r.changed }

// Done is closed when the recorder stops observing: after Stop, or when
// the pods can no longer be watched (Err says why).
func (r *Recorder) Done() <-chan struct{} { return r.done }

// Err is why the pods can no longer be observed, or nil.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.watchErr
}
