package config

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the plugin args; it is shared with the
// kube-scheduler configuration, as for in-tree plugin args.
const GroupName = "kubescheduler.config.k8s.io"

// Kind is the kind of the plugin args.
const Kind = "DRAAllocatorArgs"

// SchemeGroupVersion is the internal group version of the plugin args.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: runtime.APIVersionInternal}

// AddToScheme registers the internal types with scheme.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypeWithName(SchemeGroupVersion.WithKind(Kind), &DRAAllocatorArgs{})
	return nil
}
