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

package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// settle waits until every pod of the namespace is bound or has been found
// unschedulable, and returns them by name.
func settle(ctx context.Context, client kubernetes.Interface, timeout time.Duration) ([]v1.Pod, error) {
	var pods []v1.Pod
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		pods = list.Items
		for _, p := range pods {
			if p.Spec.NodeName == "" && !unschedulable(&p) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the pods of %s to settle: %w", namespace, err)
	}
	sort.Slice(pods, func(i, j int) bool { return naturalLess(pods[i].Name, pods[j].Name) })
	return pods, nil
}

// naturalLess orders "x-2" before "x-10".
func naturalLess(a, b string) bool {
	split := func(s string) (string, int) {
		i := strings.LastIndexByte(s, '-')
		if n, err := strconv.Atoi(s[i+1:]); i >= 0 && err == nil {
			return s[:i], n
		}
		return s, -1
	}
	pa, na := split(a)
	pb, nb := split(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}

// placements prints where each pod landed with which devices, and why the
// others wait.
func placements(ctx context.Context, out io.Writer, client kubernetes.Interface, pods []v1.Pod) error {
	claims, err := client.ResourceV1().ResourceClaims(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	devicesOf := map[string][]string{} // pod name -> devices
	for _, c := range claims.Items {
		if c.Status.Allocation == nil {
			continue
		}
		var devs []string
		for _, r := range c.Status.Allocation.Devices.Results {
			devs = append(devs, r.Device)
		}
		for _, ref := range c.Status.ReservedFor {
			devicesOf[ref.Name] = append(devicesOf[ref.Name], devs...)
		}
	}
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "\nPOD\tNODE\tDEVICES")
	var pending []v1.Pod
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			pending = append(pending, p)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", p.Name, p.Spec.NodeName, compact(devicesOf[p.Name]))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(pending) > 0 {
		fmt.Fprintf(out, "\nPending (%d), as the scheduler explains them:\n", len(pending))
		for _, p := range pending {
			fmt.Fprintf(out, "  %s: %s\n", p.Name, pendingReason(&p))
		}
	}
	return nil
}

// compact shortens long device lists ("gpu-0 … gpu-7 (8)").
func compact(devs []string) string {
	if len(devs) <= 4 {
		return strings.Join(devs, ",")
	}
	return fmt.Sprintf("%s … %s (%d)", devs[0], devs[len(devs)-1], len(devs))
}

func unschedulable(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

func pendingReason(p *v1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return c.Message
		}
	}
	return "not yet considered"
}

// latencySummary prints the pods' creation-to-binding latency and the
// scheduler's time per DRAAllocator extension point (from its metrics,
// this process being the scheduler).
func latencySummary(out io.Writer, s *submission, pods []v1.Pod) error {
	lat, first, last := s.rec.Samples(s.names)
	bound := 0
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			bound++
		}
	}
	fmt.Fprintf(out, "\n%d of %d pods bound, %d pending.\n", bound, len(pods), len(pods)-bound)
	if len(lat) == 0 {
		return nil
	}
	sum, span := allocbench.Summarize(lat), last.Sub(first)
	ms := func(ns int64) time.Duration { return time.Duration(ns).Round(time.Millisecond) }
	fmt.Fprintf(out, "Latency, pod created → bound, including the resourceclaim controller creating each claim (%d pods submitted at once):\n  p50 %v  p90 %v  p99 %v  max %v; %.1f pods/s over %v\n",
		len(lat), ms(sum.P50Ns), ms(sum.P90Ns), ms(sum.P99Ns), ms(sum.MaxNs), float64(len(lat))/span.Seconds(), span.Round(time.Millisecond))

	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return fmt.Errorf("gather scheduler metrics: %w", err)
	}
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "\nDRAAllocator\tcalls\tmean\tp50 ≤\tp99 ≤")
	for _, f := range families {
		if f.GetName() != "dra_scheduler_extension_point_duration_seconds" {
			continue
		}
		for _, point := range mergeByLabel(f, "extension_point") {
			fmt.Fprintf(w, "%s\t%d\t%v\t%v\t%v\n", point.name, point.count,
				seconds(point.sum/float64(max(point.count, 1))), seconds(point.quantile(0.5)), seconds(point.quantile(0.99)))
		}
	}
	return w.Flush()
}

// histogram is one extension point's merged histogram.
type histogram struct {
	name    string
	count   uint64
	sum     float64
	bounds  []float64
	buckets []uint64 // cumulative, per bound
}

// quantile returns the upper bound of the bucket holding quantile q.
func (h histogram) quantile(q float64) float64 {
	target := uint64(q * float64(h.count))
	for i, c := range h.buckets {
		if c > target || (c == h.count && c > 0) {
			return h.bounds[i]
		}
	}
	return 0
}

// mergeByLabel sums a histogram family's series per value of label (the
// status label is merged away), in extension-point order.
func mergeByLabel(f *dto.MetricFamily, label string) []histogram {
	byName := map[string]*histogram{}
	for _, m := range f.GetMetric() {
		var name string
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				name = l.GetValue()
			}
		}
		h := byName[name]
		hm := m.GetHistogram()
		if h == nil {
			h = &histogram{name: name}
			for _, b := range hm.GetBucket() {
				h.bounds = append(h.bounds, b.GetUpperBound())
			}
			h.buckets = make([]uint64, len(h.bounds))
			byName[name] = h
		}
		h.count += hm.GetSampleCount()
		h.sum += hm.GetSampleSum()
		for i, b := range hm.GetBucket() {
			h.buckets[i] += b.GetCumulativeCount()
		}
	}
	order := []string{"PreFilter", "Filter", "PostFilter", "Score", "Reserve", "Unreserve", "PreBind"}
	var out []histogram
	for _, name := range order {
		if h := byName[name]; h != nil {
			out = append(out, *h)
			delete(byName, name)
		}
	}
	for _, h := range byName {
		out = append(out, *h)
	}
	return out
}

func seconds(s float64) time.Duration {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(100 * time.Nanosecond)
	}
}

// admissionDemo shows the namespace's admission policies: a claim-using pod
// that names no scheduler is sent to dra-scheduler, one that names another
// scheduler is refused.
func admissionDemo(ctx context.Context, out io.Writer, client kubernetes.Interface) {
	pods := client.CoreV1().Pods(namespace)
	var got string
	_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		p := objects.MakePod("no-scheduler-named", namespace).ClaimFromTemplate("gpu", "gpu-80gi").Obj()
		created, err := pods.Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			return false, nil
		}
		got = created.Spec.SchedulerName
		// Shown, not run: give its GPU back.
		_ = pods.Delete(ctx, created.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := pods.Get(ctx, created.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		return got == schedulerapp.Name, nil
	})
	fmt.Fprintf(out, "\nAdmission (manifests/install/admission.yaml), namespace %s:\n  a pod with a claim and no schedulerName comes out with schedulerName %q\n", namespace, got)
	p := objects.MakePod("other-scheduler-named", namespace).ClaimFromTemplate("gpu", "gpu-80gi").Obj()
	p.Spec.SchedulerName = "other-scheduler"
	if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
		fmt.Fprintf(out, "  a pod with a claim naming another scheduler is refused:\n    %v\n", err)
	} else {
		fmt.Fprintln(out, "  a pod with a claim naming another scheduler was admitted: the validating policy is not active")
		_ = pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	}
}
