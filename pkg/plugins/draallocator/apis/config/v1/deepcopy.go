package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *DRAAllocatorArgs) DeepCopyInto(out *DRAAllocatorArgs) {
	*out = *in
	if in.FilterTimeout != nil {
		out.FilterTimeout = new(metav1.Duration)
		*out.FilterTimeout = *in.FilterTimeout
	}
	if in.BindingTimeout != nil {
		out.BindingTimeout = new(metav1.Duration)
		*out.BindingTimeout = *in.BindingTimeout
	}
	if in.ScoringStrategy != nil {
		out.ScoringStrategy = in.ScoringStrategy.DeepCopy()
	}
	if in.DeviceSelectionPolicy != nil {
		out.DeviceSelectionPolicy = new(DeviceSelectionPolicy)
		*out.DeviceSelectionPolicy = *in.DeviceSelectionPolicy
	}
}

// DeepCopy returns a deep copy of the receiver, or nil for a nil receiver.
func (in *DRAAllocatorArgs) DeepCopy() *DRAAllocatorArgs {
	if in == nil {
		return nil
	}
	out := new(DRAAllocatorArgs)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *DRAAllocatorArgs) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *ScoringStrategy) DeepCopyInto(out *ScoringStrategy) {
	*out = *in
	if in.Type != nil {
		out.Type = new(ScoringStrategyType)
		*out.Type = *in.Type
	}
}

// DeepCopy returns a deep copy of the receiver, or nil for a nil receiver.
func (in *ScoringStrategy) DeepCopy() *ScoringStrategy {
	if in == nil {
		return nil
	}
	out := new(ScoringStrategy)
	in.DeepCopyInto(out)
	return out
}
