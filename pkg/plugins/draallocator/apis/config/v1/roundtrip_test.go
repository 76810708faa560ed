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

package v1

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"
	"sigs.k8s.io/randfill"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// roundTrips is how many random args each fuzzed round trip checks.
const roundTrips = 2000

// filler fills args at random: every optional field set or nil, every
// duration possibly zero, strategy and policy from the valid values, an
// unknown value, or empty.
func filler(seed uint64) *randfill.Filler {
	pick := func(c randfill.Continue, values ...string) string { return values[c.Intn(len(values))] }
	return randfill.NewWithSeed(int64(seed)).NilChance(0.3).Funcs(
		func(d *metav1.Duration, c randfill.Continue) {
			d.Duration = time.Duration(c.Int63n(int64(time.Hour))) * time.Duration(c.Intn(2))
		},
		func(t *ScoringStrategyType, c randfill.Continue) {
			*t = ScoringStrategyType(pick(c, string(FirstAvailable), string(MostAllocated), string(LeastAllocated), "Unknown", ""))
		},
		func(p *DeviceSelectionPolicy, c randfill.Continue) {
			*p = DeviceSelectionPolicy(pick(c, string(FirstFit), string(Packing), "Unknown", ""))
		},
		func(m *PreemptionMode, c randfill.Continue) {
			*m = PreemptionMode(pick(c, string(PreemptionEnabled), string(PreemptionDisabled), "Unknown", ""))
		},
		func(m *config.PreemptionMode, c randfill.Continue) {
			*m = config.PreemptionMode(pick(c, string(config.PreemptionEnabled), string(config.PreemptionDisabled)))
		},
		func(t *config.ScoringStrategyType, c randfill.Continue) {
			*t = config.ScoringStrategyType(pick(c, string(config.FirstAvailable), string(config.MostAllocated), string(config.LeastAllocated)))
		},
		func(p *config.DeviceSelectionPolicy, c randfill.Continue) {
			*p = config.DeviceSelectionPolicy(pick(c, string(config.FirstFit), string(config.Packing)))
		},
		func(m *metav1.TypeMeta, c randfill.Continue) {}, // the scheme's business
	)
}

func TestRandomArgsSurviveEveryRoundTrip(t *testing.T) {
	s := newTestScheme(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	f := filler(seed)

	t.Run("v1 args, defaulted, come back unchanged from internal", func(t *testing.T) {
		for range roundTrips {
			in := &DRAAllocatorArgs{}
			f.Fill(in)
			s.Default(in)
			internal := &config.DRAAllocatorArgs{}
			if err := s.Convert(in, internal, nil); err != nil {
				t.Fatalf("to internal: %v", err)
			}
			back := &DRAAllocatorArgs{}
			if err := s.Convert(internal, back, nil); err != nil {
				t.Fatalf("to v1: %v", err)
			}
			if !apiequality.Semantic.DeepEqual(in, back) {
				t.Fatalf("round trip changed the args:\n%s", diff.Diff(in, back))
			}
		}
	})

	t.Run("internal args come back unchanged from v1 and its JSON", func(t *testing.T) {
		for range roundTrips {
			in := &config.DRAAllocatorArgs{}
			f.Fill(in)
			in.TypeMeta = metav1.TypeMeta{}
			versioned := &DRAAllocatorArgs{}
			if err := s.Convert(in, versioned, nil); err != nil {
				t.Fatalf("to v1: %v", err)
			}
			data, err := json.Marshal(versioned)
			if err != nil {
				t.Fatal(err)
			}
			decoded := &DRAAllocatorArgs{}
			if err := json.Unmarshal(data, decoded); err != nil {
				t.Fatalf("decode %s: %v", data, err)
			}
			// Converted args are complete: defaulting changes nothing.
			defaulted := decoded.DeepCopy()
			s.Default(defaulted)
			if !apiequality.Semantic.DeepEqual(decoded, defaulted) {
				t.Fatalf("defaulting changed converted args %s:\n%s", data, diff.Diff(decoded, defaulted))
			}
			back := &config.DRAAllocatorArgs{}
			if err := s.Convert(decoded, back, nil); err != nil {
				t.Fatalf("to internal: %v", err)
			}
			if !apiequality.Semantic.DeepEqual(in, back) {
				t.Fatalf("round trip through %s changed the args:\n%s", data, diff.Diff(in, back))
			}
		}
	})

	t.Run("deep copies are equal and share nothing", func(t *testing.T) {
		for range roundTrips {
			in := &DRAAllocatorArgs{}
			f.Fill(in)
			s.Default(in)
			out := in.DeepCopyObject().(*DRAAllocatorArgs)
			if !apiequality.Semantic.DeepEqual(in, out) {
				t.Fatalf("deep copy differs:\n%s", diff.Diff(in, out))
			}
			*out.FilterTimeout = metav1.Duration{Duration: in.FilterTimeout.Duration + time.Second}
			*out.ScoringStrategy.Type = "changed"
			*out.DeviceSelectionPolicy = "changed"
			*out.Preemption = "changed"
			if in.FilterTimeout.Duration == out.FilterTimeout.Duration || *in.ScoringStrategy.Type == "changed" || *in.DeviceSelectionPolicy == "changed" || *in.Preemption == "changed" {
				t.Fatalf("the deep copy shares memory with the original")
			}
		}
	})
}
