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

package validation

import (
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

func valid() *config.DRAAllocatorArgs {
	return &config.DRAAllocatorArgs{
		FilterTimeout:            metav1.Duration{Duration: 10 * time.Second},
		BindingTimeout:           metav1.Duration{Duration: 600 * time.Second},
		ScoringStrategy:          config.ScoringStrategy{Type: config.FirstAvailable},
		DeviceSelectionPolicy:    config.FirstFit,
		Preemption:               config.PreemptionEnabled,
		PlacementScoring:         config.PlacementMostAllocated,
		MaxPlacements:            10,
		ConsistencyCheckInterval: metav1.Duration{Duration: time.Minute},
	}
}

// wantErr is one expected field error: its type and full field path.
type wantErr struct {
	typ   field.ErrorType
	field string
}

func TestValidateDRAAllocatorArgs(t *testing.T) {
	tests := []struct {
		name   string
		path   *field.Path
		modify func(*config.DRAAllocatorArgs)
		want   []wantErr
	}{{
		name:   "defaulted args are valid",
		modify: func(*config.DRAAllocatorArgs) {},
	}, {
		name:   "a zero filter timeout is valid because it disables the limit",
		modify: func(a *config.DRAAllocatorArgs) { a.FilterTimeout.Duration = 0 },
	}, {
		name: "every supported strategy and policy is valid",
		modify: func(a *config.DRAAllocatorArgs) {
			a.ScoringStrategy.Type = config.LeastAllocated
			a.DeviceSelectionPolicy = config.Packing
		},
	}, {
		name:   "most allocated is a valid strategy",
		modify: func(a *config.DRAAllocatorArgs) { a.ScoringStrategy.Type = config.MostAllocated },
	}, {
		name:   "a negative filter timeout is invalid at filterTimeout",
		modify: func(a *config.DRAAllocatorArgs) { a.FilterTimeout.Duration = -time.Second },
		want:   []wantErr{{field.ErrorTypeInvalid, "filterTimeout"}},
	}, {
		name:   "a zero binding timeout is invalid at bindingTimeout",
		modify: func(a *config.DRAAllocatorArgs) { a.BindingTimeout.Duration = 0 },
		want:   []wantErr{{field.ErrorTypeInvalid, "bindingTimeout"}},
	}, {
		name:   "a negative binding timeout is invalid at bindingTimeout",
		modify: func(a *config.DRAAllocatorArgs) { a.BindingTimeout.Duration = -time.Minute },
		want:   []wantErr{{field.ErrorTypeInvalid, "bindingTimeout"}},
	}, {
		name:   "an unknown scoring strategy is not supported at scoringStrategy.type",
		modify: func(a *config.DRAAllocatorArgs) { a.ScoringStrategy.Type = "Spread" },
		want:   []wantErr{{field.ErrorTypeNotSupported, "scoringStrategy.type"}},
	}, {
		name:   "an empty scoring strategy is not supported at scoringStrategy.type",
		modify: func(a *config.DRAAllocatorArgs) { a.ScoringStrategy.Type = "" },
		want:   []wantErr{{field.ErrorTypeNotSupported, "scoringStrategy.type"}},
	}, {
		name:   "preemption may be disabled",
		modify: func(a *config.DRAAllocatorArgs) { a.Preemption = config.PreemptionDisabled },
	}, {
		name:   "an unknown preemption mode is not supported at preemption",
		modify: func(a *config.DRAAllocatorArgs) { a.Preemption = "Sometimes" },
		want:   []wantErr{{field.ErrorTypeNotSupported, "preemption"}},
	}, {
		name:   "an unknown device selection policy is not supported at deviceSelectionPolicy",
		modify: func(a *config.DRAAllocatorArgs) { a.DeviceSelectionPolicy = "BestFit" },
		want:   []wantErr{{field.ErrorTypeNotSupported, "deviceSelectionPolicy"}},
	}, {
		name:   "spreading placements is accepted",
		modify: func(a *config.DRAAllocatorArgs) { a.PlacementScoring = config.PlacementLeastAllocated },
	}, {
		name:   "an unknown placement scoring is rejected",
		modify: func(a *config.DRAAllocatorArgs) { a.PlacementScoring = "Random" },
		want:   []wantErr{{field.ErrorTypeNotSupported, "placementScoring"}},
	}, {
		name:   "zero maxPlacements is accepted: every domain is tried",
		modify: func(a *config.DRAAllocatorArgs) { a.MaxPlacements = 0 },
	}, {
		name:   "a negative maxPlacements is invalid at maxPlacements",
		modify: func(a *config.DRAAllocatorArgs) { a.MaxPlacements = -1 },
		want:   []wantErr{{field.ErrorTypeInvalid, "maxPlacements"}},
	}, {
		name:   "a positive groupPlanTimeout is accepted",
		modify: func(a *config.DRAAllocatorArgs) { a.GroupPlanTimeout.Duration = 2 * time.Second },
	}, {
		name:   "a negative groupPlanTimeout is invalid at groupPlanTimeout",
		modify: func(a *config.DRAAllocatorArgs) { a.GroupPlanTimeout.Duration = -time.Second },
		want:   []wantErr{{field.ErrorTypeInvalid, "groupPlanTimeout"}},
	}, {
		name:   "a zero consistencyCheckInterval is accepted: the check runs only on SIGUSR2",
		modify: func(a *config.DRAAllocatorArgs) { a.ConsistencyCheckInterval.Duration = 0 },
	}, {
		name:   "a negative consistencyCheckInterval is invalid at consistencyCheckInterval",
		modify: func(a *config.DRAAllocatorArgs) { a.ConsistencyCheckInterval.Duration = -time.Second },
		want:   []wantErr{{field.ErrorTypeInvalid, "consistencyCheckInterval"}},
	}, {
		name: "every problem is reported at once",
		modify: func(a *config.DRAAllocatorArgs) {
			*a = config.DRAAllocatorArgs{FilterTimeout: metav1.Duration{Duration: -1}}
		},
		want: []wantErr{
			{field.ErrorTypeInvalid, "filterTimeout"},
			{field.ErrorTypeInvalid, "bindingTimeout"},
			{field.ErrorTypeNotSupported, "scoringStrategy.type"},
			{field.ErrorTypeNotSupported, "deviceSelectionPolicy"},
			{field.ErrorTypeNotSupported, "preemption"},
			{field.ErrorTypeNotSupported, "placementScoring"},
		},
	}, {
		name:   "field paths are relative to the given path",
		path:   field.NewPath("profiles").Index(0).Child("pluginConfig").Index(2).Child("args"),
		modify: func(a *config.DRAAllocatorArgs) { a.ScoringStrategy.Type = "Spread" },
		want:   []wantErr{{field.ErrorTypeNotSupported, "profiles[0].pluginConfig[2].args.scoringStrategy.type"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := valid()
			tc.modify(args)
			before := *args
			err := ValidateDRAAllocatorArgs(tc.path, args)
			if *args != before {
				t.Errorf("validation modified the args: %+v", *args)
			}
			var got []wantErr
			if err != nil {
				var agg utilerrors.Aggregate
				if !errors.As(err, &agg) {
					t.Fatalf("error %v is %T, want an aggregate", err, err)
				}
				for _, e := range agg.Errors() {
					var fe *field.Error
					if !errors.As(e, &fe) {
						t.Fatalf("error %v is %T, want *field.Error", e, e)
					}
					got = append(got, wantErr{fe.Type, fe.Field})
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got errors %v (%v), want %v", got, err, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("error %d = %v, want %v (all: %v)", i, got[i], tc.want[i], err)
				}
			}
		})
	}
}

func TestErrorMessagesNameTheFieldAndTheSupportedValues(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*config.DRAAllocatorArgs)
		want   string
	}{{
		name:   "an unknown strategy lists the supported strategies",
		modify: func(a *config.DRAAllocatorArgs) { a.ScoringStrategy.Type = "Spread" },
		want:   `scoringStrategy.type: Unsupported value: "Spread": supported values: "FirstAvailable", "LeastAllocated", "MostAllocated"`,
	}, {
		name:   "an unknown policy lists the supported policies",
		modify: func(a *config.DRAAllocatorArgs) { a.DeviceSelectionPolicy = "BestFit" },
		want:   `deviceSelectionPolicy: Unsupported value: "BestFit": supported values: "FirstFit", "Packing"`,
	}, {
		name:   "an unknown preemption mode lists the supported modes",
		modify: func(a *config.DRAAllocatorArgs) { a.Preemption = "Sometimes" },
		want:   `preemption: Unsupported value: "Sometimes": supported values: "Disabled", "Enabled"`,
	}, {
		name:   "a negative filter timeout shows the duration",
		modify: func(a *config.DRAAllocatorArgs) { a.FilterTimeout.Duration = -time.Second },
		want:   `filterTimeout: Invalid value: "-1s": must be zero (no limit) or positive`,
	}, {
		name:   "a zero binding timeout shows the duration",
		modify: func(a *config.DRAAllocatorArgs) { a.BindingTimeout.Duration = 0 },
		want:   `bindingTimeout: Invalid value: "0s": must be positive`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := valid()
			tc.modify(args)
			err := ValidateDRAAllocatorArgs(nil, args)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v\nwant    %s", err, tc.want)
			}
		})
	}
}

func TestNilArgsAreRejected(t *testing.T) {
	err := ValidateDRAAllocatorArgs(nil, nil)
	if err == nil {
		t.Fatal("nil args were accepted")
	}
	if err.Error() != "args must not be nil" {
		t.Errorf("error = %q, want %q", err, "args must not be nil")
	}
	err = ValidateDRAAllocatorArgs(field.NewPath("args"), nil)
	if want := "args: Required value: args must not be nil"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}
