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

package metrics

import (
	"runtime"
	"testing"
	"time"

	"k8s.io/component-base/metrics/testutil"

	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

func TestLatencyObservesUnderTheExtensionPointAndStatusOfItsIndex(t *testing.T) {
	Register()
	l := NewLatency("TestPoint", []string{"Success", "Error"})
	for range 3 {
		l.Since(1, time.Now())
	}
	l.Since(0, time.Now())
	for status, want := range map[string]uint64{"Success": 1, "Error": 3} {
		got, err := testutil.GetHistogramMetricCount(ExtensionPointDuration.WithLabelValues("TestPoint", status))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s observations: %d, want %d", status, got, want)
		}
	}
}

func TestBuildInfoNamesThisBinary(t *testing.T) {
	Register()
	got, err := testutil.GetGaugeMetricValue(BuildInfo.WithLabelValues(version.Version(), version.Kubernetes(), runtime.Version()))
	if err != nil {
		t.Fatal(err)
	}
	if got != 1 {
		t.Errorf("dra_scheduler_build_info{version=%q, kubernetes_version=%q, go_version=%q} = %v, want 1", version.Version(), version.Kubernetes(), runtime.Version(), got)
	}
}
