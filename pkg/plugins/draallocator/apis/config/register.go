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
