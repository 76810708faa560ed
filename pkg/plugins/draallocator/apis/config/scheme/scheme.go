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

package scheme

import (
	"bytes"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	v1 "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/v1"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/validation"
)

// NewScheme returns a new scheme holding the internal and v1 DRAAllocatorArgs
// types, the v1 defaulter and the v1 <-> internal conversions.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(config.AddToScheme(s))
	utilruntime.Must(v1.AddToScheme(s))
	return s
}

// defaultDecoder is created once and only read afterwards.
var defaultDecoder = newDecoder(NewScheme())

// Decode turns the args a kube-scheduler hands an out-of-tree plugin into defaulted, validated internal args.
//
// obj may be nil (no pluginConfig for the plugin: all defaults), a
// *runtime.Unknown holding the JSON or YAML of the args block (with or
// without apiVersion/kind; unknown fields are errors), a *v1.DRAAllocatorArgs
// (defaulted, converted and validated) or a *config.DRAAllocatorArgs (taken
// as already defaulted: copied and validated). The returned args are always
// a fresh object.
func Decode(obj runtime.Object) (*config.DRAAllocatorArgs, error) {
	args, err := defaultDecoder.decode(obj)
	if err != nil {
		return nil, fmt.Errorf("DRAAllocator args: %w", err)
	}
	return args, nil
}

// decoder bundles a scheme with a strict deserializer built from it.
type decoder struct {
	scheme       *runtime.Scheme
	deserializer runtime.Decoder
}

func newDecoder(s *runtime.Scheme) *decoder {
	return &decoder{
		scheme: s,
		// UniversalDeserializer recognises JSON and YAML and neither
		// defaults nor converts; EnableStrict rejects unknown and
		// duplicate fields.
		deserializer: serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer(),
	}
}

func (d *decoder) decode(obj runtime.Object) (*config.DRAAllocatorArgs, error) {
	var versioned *v1.DRAAllocatorArgs
	switch o := obj.(type) {
	case nil:
		versioned = &v1.DRAAllocatorArgs{}
	case *runtime.Unknown:
		if o == nil || isEmpty(o.Raw) {
			versioned = &v1.DRAAllocatorArgs{}
			break
		}
		var err error
		if versioned, err = d.decodeRaw(o.Raw); err != nil {
			return nil, err
		}
	case *v1.DRAAllocatorArgs:
		if o == nil {
			versioned = &v1.DRAAllocatorArgs{}
			break
		}
		versioned = o.DeepCopy()
	case *config.DRAAllocatorArgs:
		if o == nil {
			return nil, fmt.Errorf("got a nil %T", o)
		}
		internal := o.DeepCopy()
		if err := validation.ValidateDRAAllocatorArgs(nil, internal); err != nil {
			return nil, err
		}
		return internal, nil
	default:
		return nil, fmt.Errorf("unsupported args type %T, want *runtime.Unknown, *v1.DRAAllocatorArgs or *config.DRAAllocatorArgs", obj)
	}

	d.scheme.Default(versioned)
	internal := &config.DRAAllocatorArgs{}
	if err := d.scheme.Convert(versioned, internal, nil); err != nil {
		return nil, fmt.Errorf("converting to internal args: %w", err)
	}
	if err := validation.ValidateDRAAllocatorArgs(nil, internal); err != nil {
		return nil, err
	}
	return internal, nil
}

// decodeRaw strictly decodes the JSON or YAML of an args block into v1 args.
func (d *decoder) decodeRaw(raw []byte) (*v1.DRAAllocatorArgs, error) {
	want := v1.SchemeGroupVersionKind
	obj, gvk, err := d.deserializer.Decode(raw, &want, nil)
	if err != nil {
		if runtime.IsNotRegisteredError(err) && gvk != nil {
			return nil, fmt.Errorf("unsupported apiVersion/kind %q/%q, want %q/%q",
				gvk.GroupVersion().String(), gvk.Kind, want.GroupVersion().String(), want.Kind)
		}
		return nil, err
	}
	versioned, ok := obj.(*v1.DRAAllocatorArgs)
	if !ok {
		return nil, fmt.Errorf("unsupported apiVersion/kind %q/%q, want %q/%q",
			gvk.GroupVersion().String(), gvk.Kind, want.GroupVersion().String(), want.Kind)
	}
	return versioned, nil
}

// isEmpty reports whether raw holds no args at all: nothing, only
// whitespace, or JSON null.
func isEmpty(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}
