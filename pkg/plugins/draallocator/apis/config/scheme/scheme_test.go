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

package scheme

import (
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	v1 "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/v1"
)

// args builds internal args; empty strings and zero durations are kept as is.
func args(filter, binding time.Duration, s config.ScoringStrategyType, p config.DeviceSelectionPolicy) *config.DRAAllocatorArgs {
	return &config.DRAAllocatorArgs{
		FilterTimeout:            metav1.Duration{Duration: filter},
		BindingTimeout:           metav1.Duration{Duration: binding},
		ScoringStrategy:          config.ScoringStrategy{Type: s},
		DeviceSelectionPolicy:    p,
		Preemption:               config.PreemptionEnabled,
		PlacementScoring:         config.PlacementMostAllocated,
		MaxPlacements:            10,
		ConsistencyCheckInterval: metav1.Duration{Duration: time.Minute},
	}
}

var defaults = args(10*time.Second, 600*time.Second, config.FirstAvailable, config.FirstFit)

func raw(s string) *runtime.Unknown {
	return &runtime.Unknown{Raw: []byte(s), ContentType: runtime.ContentTypeJSON}
}

func TestDecodeAcceptsEveryFormTheSchedulerPasses(t *testing.T) {
	mostAllocated := v1.MostAllocated
	tests := []struct {
		name string
		in   runtime.Object
		want *config.DRAAllocatorArgs
	}{
		{"nil args (no pluginConfig) give the defaults", nil, defaults},
		{"a nil *runtime.Unknown gives the defaults", (*runtime.Unknown)(nil), defaults},
		{"raw args with no bytes give the defaults", &runtime.Unknown{}, defaults},
		{"raw null args give the defaults", raw(`null`), defaults},
		{"an empty JSON object gives the defaults", raw(`{}`), defaults},
		{"an empty JSON object with apiVersion and kind gives the defaults",
			raw(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"DRAAllocatorArgs"}`), defaults},
		{"a partial args block keeps its value and defaults the rest",
			raw(`{"scoringStrategy":{"type":"MostAllocated"}}`),
			args(10*time.Second, 600*time.Second, config.MostAllocated, config.FirstFit)},
		{"an empty scoring strategy object gets the default type",
			raw(`{"scoringStrategy":{}}`), defaults},
		{"every field is decoded without apiVersion and kind",
			raw(`{"filterTimeout":"30s","bindingTimeout":"2m","scoringStrategy":{"type":"LeastAllocated"},"deviceSelectionPolicy":"Packing"}`),
			args(30*time.Second, 2*time.Minute, config.LeastAllocated, config.Packing)},
		{"every field is decoded with apiVersion and kind",
			raw(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"DRAAllocatorArgs","filterTimeout":"1m30s","bindingTimeout":"45s","scoringStrategy":{"type":"MostAllocated"},"deviceSelectionPolicy":"Packing"}`),
			args(90*time.Second, 45*time.Second, config.MostAllocated, config.Packing)},
		{"kind alone is enough to name the type",
			raw(`{"kind":"DRAAllocatorArgs","filterTimeout":"5s"}`),
			args(5*time.Second, 600*time.Second, config.FirstAvailable, config.FirstFit)},
		{"apiVersion alone is enough to name the type",
			raw(`{"apiVersion":"kubescheduler.config.k8s.io/v1","bindingTimeout":"1s"}`),
			args(10*time.Second, time.Second, config.FirstAvailable, config.FirstFit)},
		{"an explicit zero filter timeout is kept and disables the limit",
			raw(`{"filterTimeout":"0s"}`),
			args(0, 600*time.Second, config.FirstAvailable, config.FirstFit)},
		{"YAML args are decoded too",
			&runtime.Unknown{ContentType: runtime.ContentTypeYAML, Raw: []byte("filterTimeout: 3s\nscoringStrategy:\n  type: LeastAllocated\n")},
			args(3*time.Second, 600*time.Second, config.LeastAllocated, config.FirstFit)},
		{"typed v1 args are defaulted and converted",
			&v1.DRAAllocatorArgs{ScoringStrategy: &v1.ScoringStrategy{Type: &mostAllocated}},
			args(10*time.Second, 600*time.Second, config.MostAllocated, config.FirstFit)},
		{"nil typed v1 args give the defaults", (*v1.DRAAllocatorArgs)(nil), defaults},
		{"placementScoring Spreading, its name before 0.1.0, is read as LeastAllocated",
			raw(`{"placementScoring":"Spreading"}`),
			func() *config.DRAAllocatorArgs {
				a := args(10*time.Second, 600*time.Second, config.FirstAvailable, config.FirstFit)
				a.PlacementScoring = config.PlacementLeastAllocated
				return a
			}()},
		{"complete internal args are returned unchanged",
			args(0, time.Second, config.LeastAllocated, config.Packing),
			args(0, time.Second, config.LeastAllocated, config.Packing)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Typed nil pointers copy to an untyped nil, so only non-nil
			// inputs are checked for modification.
			var before runtime.Object
			if tc.in != nil && !reflect.ValueOf(tc.in).IsNil() {
				before = tc.in.DeepCopyObject()
			}
			got, err := Decode(tc.in)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(tc.want, got) {
				t.Errorf("unexpected args (-want +got):\n%s", diff.Diff(tc.want, got))
			}
			if got == tc.in {
				t.Error("Decode returned the caller's object instead of a copy")
			}
			if before != nil && !reflect.DeepEqual(before, tc.in) {
				t.Errorf("Decode modified its input (-before +after):\n%s", diff.Diff(before, tc.in))
			}
		})
	}
}

func TestDecodeRejectsBadArgsWithAClearError(t *testing.T) {
	tests := []struct {
		name string
		in   runtime.Object
		want string // the whole message, or a prefix when it ends in "..."
	}{{
		name: "a misspelled field is a strict decoding error",
		in:   raw(`{"filterTimeOut":"5s"}`),
		want: `DRAAllocator args: strict decoding error: unknown field "filterTimeOut"`,
	}, {
		name: "an unknown nested field is a strict decoding error",
		in:   raw(`{"scoringStrategy":{"type":"MostAllocated","resources":[]}}`),
		want: `DRAAllocator args: strict decoding error: unknown field "scoringStrategy.resources"`,
	}, {
		name: "a duplicate field is a strict decoding error",
		in:   raw(`{"filterTimeout":"5s","filterTimeout":"6s"}`),
		want: `DRAAllocator args: strict decoding error: duplicate field "filterTimeout"`,
	}, {
		name: "an unknown field in YAML args is a strict decoding error",
		in:   &runtime.Unknown{ContentType: runtime.ContentTypeYAML, Raw: []byte("bindingtimeout: 3s\n")},
		want: `DRAAllocator args: strict decoding error: unknown field "bindingtimeout"`,
	}, {
		name: "the args of another plugin are the wrong kind",
		in:   raw(`{"kind":"NodeResourcesFitArgs","scoringStrategy":{"type":"MostAllocated"}}`),
		want: `DRAAllocator args: unsupported apiVersion/kind "kubescheduler.config.k8s.io/v1"/"NodeResourcesFitArgs", want "kubescheduler.config.k8s.io/v1"/"DRAAllocatorArgs"`,
	}, {
		name: "an unknown apiVersion is rejected",
		in:   raw(`{"apiVersion":"kubescheduler.config.k8s.io/v1beta3","kind":"DRAAllocatorArgs"}`),
		want: `DRAAllocator args: unsupported apiVersion/kind "kubescheduler.config.k8s.io/v1beta3"/"DRAAllocatorArgs", want "kubescheduler.config.k8s.io/v1"/"DRAAllocatorArgs"`,
	}, {
		name: "the internal version cannot be used on the wire",
		in:   raw(`{"apiVersion":"kubescheduler.config.k8s.io/__internal","kind":"DRAAllocatorArgs"}`),
		want: `DRAAllocator args: unsupported apiVersion/kind "kubescheduler.config.k8s.io/__internal"/"DRAAllocatorArgs", want "kubescheduler.config.k8s.io/v1"/"DRAAllocatorArgs"`,
	}, {
		name: "a duration without a unit is rejected",
		in:   raw(`{"filterTimeout":"30"}`),
		want: `DRAAllocator args: time: missing unit in duration "30"`,
	}, {
		name: "a number instead of a duration string is rejected",
		in:   raw(`{"bindingTimeout":30}`),
		want: `DRAAllocator args: json: cannot unmarshal number into Go struct field DRAAllocatorArgs.bindingTimeout of type string`,
	}, {
		name: "malformed JSON is rejected",
		in:   raw(`{"filterTimeout":`),
		want: `DRAAllocator args: ...`,
	}, {
		name: "an unsupported scoring strategy names the field and the valid values",
		in:   raw(`{"scoringStrategy":{"type":"Spread"}}`),
		want: `DRAAllocator args: scoringStrategy.type: Unsupported value: "Spread": supported values: "FirstAvailable", "LeastAllocated", "MostAllocated"`,
	}, {
		name: "an unsupported device selection policy names the field and the valid values",
		in:   raw(`{"deviceSelectionPolicy":"BestFit"}`),
		want: `DRAAllocator args: deviceSelectionPolicy: Unsupported value: "BestFit": supported values: "FirstFit", "Packing"`,
	}, {
		name: "a negative filter timeout is rejected",
		in:   raw(`{"filterTimeout":"-1s"}`),
		want: `DRAAllocator args: filterTimeout: Invalid value: "-1s": must be zero (no limit) or positive`,
	}, {
		name: "a zero binding timeout is rejected",
		in:   raw(`{"bindingTimeout":"0s"}`),
		want: `DRAAllocator args: bindingTimeout: Invalid value: "0s": must be positive`,
	}, {
		name: "several problems are reported together",
		in:   raw(`{"bindingTimeout":"-1s","scoringStrategy":{"type":"Spread"}}`),
		want: `DRAAllocator args: [bindingTimeout: Invalid value: "-1s": must be positive, scoringStrategy.type: Unsupported value: "Spread": supported values: "FirstAvailable", "LeastAllocated", "MostAllocated"]`,
	}, {
		name: "invalid typed v1 args are rejected",
		in:   &v1.DRAAllocatorArgs{BindingTimeout: &metav1.Duration{Duration: -time.Second}},
		want: `DRAAllocator args: bindingTimeout: Invalid value: "-1s": must be positive`,
	}, {
		name: "internal args are not defaulted, so incomplete ones are rejected",
		in:   &config.DRAAllocatorArgs{BindingTimeout: metav1.Duration{Duration: time.Second}, DeviceSelectionPolicy: config.FirstFit},
		want: `DRAAllocator args: [scoringStrategy.type: Unsupported value: "": supported values: "FirstAvailable", "LeastAllocated", "MostAllocated", preemption: Unsupported value: "": supported values: "Disabled", "Enabled", placementScoring: Unsupported value: "": supported values: "LeastAllocated", "MostAllocated"]`,
	}, {
		name: "a nil internal args pointer is rejected",
		in:   (*config.DRAAllocatorArgs)(nil),
		want: `DRAAllocator args: got a nil *config.DRAAllocatorArgs`,
	}, {
		name: "an object of an unrelated type is rejected",
		in:   &metav1.Status{},
		want: `DRAAllocator args: unsupported args type *v1.Status, want *runtime.Unknown, *v1.DRAAllocatorArgs or *config.DRAAllocatorArgs`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.in)
			if err == nil {
				t.Fatalf("no error, got args %+v", got)
			}
			if got != nil {
				t.Errorf("args = %+v alongside an error, want nil", got)
			}
			if prefix, ok := strings.CutSuffix(tc.want, "..."); ok {
				if !strings.HasPrefix(err.Error(), prefix) {
					t.Errorf("error = %q, want prefix %q", err, prefix)
				}
			} else if err.Error() != tc.want {
				t.Errorf("error = %q\nwant    %q", err, tc.want)
			}
		})
	}
}

func TestNewSchemeReturnsIndependentSchemesWithBothVersions(t *testing.T) {
	a, b := NewScheme(), NewScheme()
	if a == b {
		t.Fatal("NewScheme returned the same scheme twice")
	}
	for _, gvk := range []string{"kubescheduler.config.k8s.io/v1, Kind=DRAAllocatorArgs", "kubescheduler.config.k8s.io/__internal, Kind=DRAAllocatorArgs"} {
		found := false
		for k := range a.AllKnownTypes() {
			if k.String() == gvk {
				found = true
			}
		}
		if !found {
			t.Errorf("%s is not registered", gvk)
		}
	}
	if n := len(a.AllKnownTypes()); n != 2 {
		t.Errorf("scheme knows %d types, want only the 2 DRAAllocatorArgs versions", n)
	}
}

func TestDefaultedV1ArgsSurviveAV1InternalV1RoundTrip(t *testing.T) {
	s := NewScheme()
	in := &v1.DRAAllocatorArgs{}
	s.Default(in)
	internal := &config.DRAAllocatorArgs{}
	if err := s.Convert(in, internal, nil); err != nil {
		t.Fatal(err)
	}
	out := &v1.DRAAllocatorArgs{}
	if err := s.Convert(internal, out, nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip changed args (-want +got):\n%s", diff.Diff(in, out))
	}
}
