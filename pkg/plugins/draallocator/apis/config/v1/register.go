package v1

import (
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// SchemeGroupVersion is the group version of the versioned plugin args,
// kubescheduler.config.k8s.io/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: config.GroupName, Version: "v1"}

// SchemeGroupVersionKind is the full type identifier of DRAAllocatorArgs.
var SchemeGroupVersionKind = SchemeGroupVersion.WithKind(config.Kind)

// AddToScheme registers the v1 type, its defaulting function and the
// conversions to and from the internal type with scheme. The internal type
// itself is registered by config.AddToScheme.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypeWithName(SchemeGroupVersionKind, &DRAAllocatorArgs{})
	scheme.AddTypeDefaultingFunc(&DRAAllocatorArgs{}, func(obj interface{}) {
		SetDefaults_DRAAllocatorArgs(obj.(*DRAAllocatorArgs))
	})
	if err := scheme.AddConversionFunc((*DRAAllocatorArgs)(nil), (*config.DRAAllocatorArgs)(nil),
		func(a, b interface{}, s conversion.Scope) error {
			return Convert_v1_DRAAllocatorArgs_To_config_DRAAllocatorArgs(a.(*DRAAllocatorArgs), b.(*config.DRAAllocatorArgs), s)
		}); err != nil {
		return err
	}
	return scheme.AddConversionFunc((*config.DRAAllocatorArgs)(nil), (*DRAAllocatorArgs)(nil),
		func(a, b interface{}, s conversion.Scope) error {
			return Convert_config_DRAAllocatorArgs_To_v1_DRAAllocatorArgs(a.(*config.DRAAllocatorArgs), b.(*DRAAllocatorArgs), s)
		})
}
