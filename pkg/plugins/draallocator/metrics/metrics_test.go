package metrics

import (
	"testing"
	"time"

	"k8s.io/component-base/metrics/testutil"
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
