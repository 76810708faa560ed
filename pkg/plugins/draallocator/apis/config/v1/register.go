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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// SchemeGroupVersion is the group version of the versioned plugin args,
// kubescheduler.config.k8s.io/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: config.GroupName, Version: "v1"}

// SchemeGroupVersionKind is the full type identifier of DRAAllocatorArgs.
var SchemeGroupVersionKind = SchemeGroupVersion.WithKind(config.Kind)

// localSchemeBuilder lists what AddToScheme registers: the v1 type and its
// generated defaulting; the generated conversions add themselves in their
// file's init (conversion-gen's convention).
var localSchemeBuilder = &runtime.SchemeBuilder{addKnownTypes, RegisterDefaults}

// AddToScheme registers the v1 type, its defaulting function and the
// conversions to and from the internal type with scheme. The internal type
// itself is registered by config.AddToScheme.
func AddToScheme(scheme *runtime.Scheme) error {
	return localSchemeBuilder.AddToScheme(scheme)
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypeWithName(SchemeGroupVersionKind, &DRAAllocatorArgs{})
	return nil
}
