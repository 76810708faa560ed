package config

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies the receiver into out. in must be non-nil.
// All fields are values, so a shallow copy is a deep copy.
func (in *DRAAllocatorArgs) DeepCopyInto(out *DRAAllocatorArgs) {
	*out = *in
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
