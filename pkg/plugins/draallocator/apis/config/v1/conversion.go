package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// Convert_v1_DRAAllocatorArgs_To_config_DRAAllocatorArgs converts versioned
// args to internal args. Nil fields become zero values, so in should have
// been defaulted first. TypeMeta is not copied; the scheme sets it.
func Convert_v1_DRAAllocatorArgs_To_config_DRAAllocatorArgs(in *DRAAllocatorArgs, out *config.DRAAllocatorArgs, _ conversion.Scope) error {
	*out = config.DRAAllocatorArgs{}
	if in.FilterTimeout != nil {
		out.FilterTimeout = *in.FilterTimeout
	}
	if in.BindingTimeout != nil {
		out.BindingTimeout = *in.BindingTimeout
	}
	if in.ScoringStrategy != nil && in.ScoringStrategy.Type != nil {
		out.ScoringStrategy.Type = config.ScoringStrategyType(*in.ScoringStrategy.Type)
	}
	if in.DeviceSelectionPolicy != nil {
		out.DeviceSelectionPolicy = config.DeviceSelectionPolicy(*in.DeviceSelectionPolicy)
	}
	return nil
}

// Convert_config_DRAAllocatorArgs_To_v1_DRAAllocatorArgs converts internal
// args to versioned args. Every field of out is set, so the result is
// already complete and defaulting it is a no-op. TypeMeta is not copied.
func Convert_config_DRAAllocatorArgs_To_v1_DRAAllocatorArgs(in *config.DRAAllocatorArgs, out *DRAAllocatorArgs, _ conversion.Scope) error {
	t := ScoringStrategyType(in.ScoringStrategy.Type)
	p := DeviceSelectionPolicy(in.DeviceSelectionPolicy)
	*out = DRAAllocatorArgs{
		FilterTimeout:         &metav1.Duration{Duration: in.FilterTimeout.Duration},
		BindingTimeout:        &metav1.Duration{Duration: in.BindingTimeout.Duration},
		ScoringStrategy:       &ScoringStrategy{Type: &t},
		DeviceSelectionPolicy: &p,
	}
	return nil
}
