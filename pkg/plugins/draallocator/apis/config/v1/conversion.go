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
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// The conversions below complete the generated ones
// (zz_generated.conversion.go) for the fields conversion-gen cannot
// convert: optional pointers here, plain values in package config.

// Convert_v1_DRAAllocatorArgs_To_config_DRAAllocatorArgs converts versioned
// args to internal args. Nil fields become zero values, so in should have
// been defaulted first. TypeMeta is not copied; the scheme sets it.
func Convert_v1_DRAAllocatorArgs_To_config_DRAAllocatorArgs(in *DRAAllocatorArgs, out *config.DRAAllocatorArgs, s conversion.Scope) error {
	if err := autoConvert_v1_DRAAllocatorArgs_To_config_DRAAllocatorArgs(in, out, s); err != nil {
		return err
	}
	out.ScoringStrategy = config.ScoringStrategy{}
	if in.ScoringStrategy != nil {
		if err := Convert_v1_ScoringStrategy_To_config_ScoringStrategy(in.ScoringStrategy, &out.ScoringStrategy, s); err != nil {
			return err
		}
	}
	out.DeviceSelectionPolicy = config.DeviceSelectionPolicy(ptr.Deref(in.DeviceSelectionPolicy, ""))
	out.Preemption = config.PreemptionMode(ptr.Deref(in.Preemption, ""))
	out.PlacementScoring = config.PlacementScoringType(ptr.Deref(in.PlacementScoring, ""))
	out.MaxPlacements = ptr.Deref(in.MaxPlacements, 0)
	return nil
}

// Convert_config_DRAAllocatorArgs_To_v1_DRAAllocatorArgs converts internal
// args to versioned args. Every field of out is set, so the result is
// already complete and defaulting it is a no-op. TypeMeta is not copied.
func Convert_config_DRAAllocatorArgs_To_v1_DRAAllocatorArgs(in *config.DRAAllocatorArgs, out *DRAAllocatorArgs, s conversion.Scope) error {
	if err := autoConvert_config_DRAAllocatorArgs_To_v1_DRAAllocatorArgs(in, out, s); err != nil {
		return err
	}
	out.ScoringStrategy = &ScoringStrategy{}
	if err := Convert_config_ScoringStrategy_To_v1_ScoringStrategy(&in.ScoringStrategy, out.ScoringStrategy, s); err != nil {
		return err
	}
	out.DeviceSelectionPolicy = ptr.To(DeviceSelectionPolicy(in.DeviceSelectionPolicy))
	out.Preemption = ptr.To(PreemptionMode(in.Preemption))
	out.PlacementScoring = ptr.To(PlacementScoringType(in.PlacementScoring))
	out.MaxPlacements = ptr.To(in.MaxPlacements)
	return nil
}

// Convert_v1_ScoringStrategy_To_config_ScoringStrategy converts a versioned
// scoring strategy; a nil type becomes the empty type.
func Convert_v1_ScoringStrategy_To_config_ScoringStrategy(in *ScoringStrategy, out *config.ScoringStrategy, s conversion.Scope) error {
	if err := autoConvert_v1_ScoringStrategy_To_config_ScoringStrategy(in, out, s); err != nil {
		return err
	}
	out.Type = config.ScoringStrategyType(ptr.Deref(in.Type, ""))
	return nil
}

// Convert_config_ScoringStrategy_To_v1_ScoringStrategy converts an internal
// scoring strategy, setting its type.
func Convert_config_ScoringStrategy_To_v1_ScoringStrategy(in *config.ScoringStrategy, out *ScoringStrategy, s conversion.Scope) error {
	if err := autoConvert_config_ScoringStrategy_To_v1_ScoringStrategy(in, out, s); err != nil {
		return err
	}
	out.Type = ptr.To(ScoringStrategyType(in.Type))
	return nil
}
