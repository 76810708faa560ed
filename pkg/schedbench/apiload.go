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
	"fmt"
	"syscall"
	"time"

	"k8s.io/component-base/metrics/legacyregistry"
)

// apiLoad is what the in-process control plane has done so far: the CPU
// time of this process (kube-apiserver, etcd, the resourceclaim controller
// and the tool's own clients) and the write requests kube-apiserver served.
// Differences over the measured phase show where a configuration's time
// goes when the scheduler is not the bottleneck.
type apiLoad struct {
	cpu time.Duration
	// writesBy counts the write requests by what they wrote (writeKind).
	writesBy map[string]float64
}

// recordLoad sets the result's control-plane CPU and API writes to what
// the control plane did between before and after.
func (r *Result) recordLoad(before, after apiLoad) {
	r.ControlPlaneCPUSeconds = (after.cpu - before.cpu).Seconds()
	r.APIWritesBy = after.writesSince(before)
	r.APIWrites = 0
	for _, n := range r.APIWritesBy {
		r.APIWrites += n
	}
}

// writeKind names what a write request wrote: its resource, subresource
// if any, and verb, as "resourceclaims/status PUT".
func writeKind(resource, subresource, verb string) string {
	if subresource != "" {
		resource += "/" + subresource
	}
	return resource + " " + verb
}

// writesSince returns the writes of each kind served since before, the
// kinds without any left out.
func (l apiLoad) writesSince(before apiLoad) map[string]int64 {
	out := map[string]int64{}
	for kind, n := range l.writesBy {
		if d := int64(n - before.writesBy[kind]); d > 0 {
			out[kind] = d
		}
	}
	return out
}

// writeVerbs are apiserver_request_total's verbs that change objects.
var writeVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true, "DELETECOLLECTION": true}

// currentAPILoad reads this process' CPU time and kube-apiserver's write
// count from the process-wide metrics registry the in-process API server
// registers in.
func currentAPILoad() (apiLoad, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return apiLoad{}, fmt.Errorf("getrusage: %w", err)
	}
	load := apiLoad{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), writesBy: map[string]float64{}}
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return apiLoad{}, fmt.Errorf("gather kube-apiserver metrics: %w", err)
	}
	for _, f := range families {
		if f.GetName() != "apiserver_request_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if verb := labels["verb"]; writeVerbs[verb] {
				load.writesBy[writeKind(labels["resource"], labels["subresource"], verb)] += m.GetCounter().GetValue()
			}
		}
	}
	return load, nil
}

// bindingWrites is the kind of write that binds a pod (writeKind).
const bindingWrites = "pods/binding POST"

// apiLoadSettle is the pause between settledAPILoad's reads, and
// apiLoadSettleTimeout how long it reads at most.
const (
	apiLoadSettle        = 50 * time.Millisecond
	apiLoadSettleTimeout = 2 * time.Second
)

// settledAPILoad reads the API load at the end of a measured phase in
// which bound pods were seen bound. kube-apiserver counts a request once
// it has answered it, so a binding the tool's watch has reported may not
// be in apiserver_request_total yet, nor a write made just before it: the
// writes are read (read: currentAPILoad) until the bindings counted since
// before reach bound and two reads apiLoadSettle apart count the same
// writes, for at most apiLoadSettleTimeout. The CPU time is the first
// read's, taken as the phase ended, so that the wait adds none.
func settledAPILoad(ctx context.Context, read func() (apiLoad, error), before apiLoad, bound int) (apiLoad, error) {
	first, err := read()
	if err != nil {
		return apiLoad{}, err
	}
	last := first
	deadline := time.Now().Add(apiLoadSettleTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return apiLoad{}, context.Cause(ctx)
		case <-time.After(apiLoadSettle):
		}
		next, err := read()
		if err != nil {
			return apiLoad{}, err
		}
		settled := next.writes() == last.writes() && next.writesSince(before)[bindingWrites] >= int64(bound)
		last = next
		if settled {
			break
		}
	}
	return apiLoad{cpu: first.cpu, writesBy: last.writesBy}, nil
}

// writes is the number of write requests of every kind.
func (l apiLoad) writes() float64 {
	var n float64
	for _, c := range l.writesBy {
		n += c
	}
	return n
}
