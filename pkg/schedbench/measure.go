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
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// progressEvery is how often a long wait reports on stderr.
const progressEvery = 10 * time.Second

// fillPods creates the pods newPod returns for names, which take devices
// before what a run measures (the preemption workload's low-priority
// pods, the racks' fillers, the held backlog's holders), and waits until
// the run's scheduler has bound them all ("<label> fill" in progress).
func (o *Options) fillPods(ctx context.Context, client kubernetes.Interface, rec *podlatency.Recorder, sched *child, ns string, names []string, newPod func(i int) *v1.Pod, label string) error {
	if err := createMadePods(ctx, client, rec, ns, len(names), o.Writers, newPod); err != nil {
		return err
	}
	return waitBound(ctx, rec, names, sched, o.Timeout, o.Stall, o.Progress, label+" fill")
}

// createMadePods creates the n pods newPod returns on workers concurrent
// clients, recording each creation time.
func createMadePods(ctx context.Context, client kubernetes.Interface, r *podlatency.Recorder, namespace string, n, workers int, newPod func(i int) *v1.Pod) error {
	return Parallel(ctx, n, workers, func(ctx context.Context, i int) error {
		pod := newPod(i)
		r.Created(pod.Name, time.Now())
		if _, err := client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %s/%s: %w", namespace, pod.Name, err)
		}
		return nil
	})
}

// errStalled ends a wait in which no pod was bound for too long, and
// errTimedOut one whose timeout passed.
var (
	errStalled  = errors.New("no pod bound")
	errTimedOut = errors.New("timed out")
)

// waitBound waits until all names are bound, the timeout passes, no pod
// is bound for stall, or the scheduler exits. It reports progress on w
// (if not nil) every progressEvery.
func waitBound(ctx context.Context, r *podlatency.Recorder, names []string, sched *child, timeout, stall time.Duration, w io.Writer, label string) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	lastCount, lastChange := -1, time.Now()
	start := time.Now()
	for {
		n := r.CountBound(names)
		if n == len(names) {
			return nil
		}
		if n != lastCount {
			lastCount, lastChange = n, time.Now()
		}
		if time.Since(lastChange) > stall {
			return fmt.Errorf("%w for %v: %d of %d pods bound", errStalled, stall, n, len(names))
		}
		if err := r.Err(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("%w after %v: %d of %d pods bound", errTimedOut, timeout, n, len(names))
		case <-sched.done:
			return fmt.Errorf("scheduler exited (%v): %d of %d pods bound; log: %s", sched.cmd.ProcessState, n, len(names), sched.logPath)
		case <-r.Done():
			return fmt.Errorf("pod watch ended (%v): %d of %d pods bound", r.Err(), n, len(names))
		case <-tick.C:
			if w != nil {
				fmt.Fprintf(w, "dra-bench: %s: %d/%d pods bound after %v\n", label, n, len(names), time.Since(start).Round(time.Second))
			}
		case <-r.Changed():
		case <-poll.C:
		}
	}
}
