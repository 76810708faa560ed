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
	"testing"

	"github.com/dra-scheduler/dra-scheduler/manifests"
)

// The demo's cluster has the driver's classes and the examples' classes;
// every workload but the one meant to show a missing class must find its
// classes there, or the demo shows nothing but "does not exist".
func TestEveryWorkloadButNoClassUsesAnInstalledDeviceClass(t *testing.T) {
	installed := map[string]bool{}
	for _, c := range driverClasses() {
		installed[c.Name] = true
	}
	examples, err := manifests.Load(manifests.ExamplesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range examples {
		for _, o := range f.Objects {
			if o.GetKind() == "DeviceClass" {
				installed[o.GetName()] = true
			}
		}
	}
	for _, w := range workloads() {
		var missing []string
		for _, r := range w.template.Spec.Spec.Devices.Requests {
			classes := []string{}
			if r.Exactly != nil {
				classes = append(classes, r.Exactly.DeviceClassName)
			}
			for _, sub := range r.FirstAvailable {
				classes = append(classes, sub.DeviceClassName)
			}
			for _, c := range classes {
				if !installed[c] {
					missing = append(missing, c)
				}
			}
		}
		if wantMissing := w.prefix == "no-class"; wantMissing != (len(missing) > 0) {
			t.Errorf("workload %s (%s): classes not installed %v; installed %v", w.prefix, w.why, missing, installed)
		}
	}
}
