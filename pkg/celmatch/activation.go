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

package celmatch

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apiservercel "k8s.io/apiserver/pkg/cel"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// Names of the CEL variable and its fields. They must match the constants in
// k8s.io/dynamic-resource-allocation/cel/compile.go.
const (
	deviceVar     = "device"
	driverVar     = "driver"
	multiAllocVar = "allowMultipleAllocations"
	attributesVar = "attributes"
	capacityVar   = "capacity"
)

// adapter converts Go values into CEL values while an Activation is built.
//
// Upstream uses the environment's adapter (a types.Registry wrapped by the
// apiserver's DeclTypeProvider). Every value stored in an Activation is a Go
// primitive, a slice/map of those, or already a ref.Val (Semver, Quantity,
// maps and lists built here); for all of them the registry's NativeToValue
// takes the shared nativeToValue path, which is exactly what
// types.DefaultTypeAdapter does. The registry is only consulted for protobuf
// messages, which never occur in a device.
var adapter types.Adapter = types.DefaultTypeAdapter

// emptyMap is the value that upstream's default-value mapper returns for a
// domain that the device does not have (CompilationResult.emptyMapVal).
var emptyMap = adapter.NativeToValue(map[string]any{})

// Activation is the CEL input for one device, built once per device version
// and reused for every selector and every evaluation.
//
// An Activation is immutable after NewActivation returns and may be shared by
// any number of goroutines. It holds private deep copies of everything it
// needs from the device, so later changes to the device do not affect it (and
// a changed device needs a new Activation).
type Activation struct {
	driver string

	// err is the error that DeviceMatches would return for this device
	// before evaluating anything (an attribute without a value or with an
	// unparsable version). Every Matches call reports it.
	err error

	// device is the value of the CEL variable "device" shared by all
	// evaluations. Its "capacity" entry is a fail-safe view which copies
	// quantities on every access; selectors which can reach the capacity
	// use a per-evaluation copy of this map instead (see evalInput).
	device map[string]any

	capacity *capacityTemplate
}

// NewActivation builds the CEL input for a device published by the given
// driver. The driver is the default domain of unqualified attribute and
// capacity names, as in upstream's DeviceMatches.
func NewActivation(driver string, device *resourceapi.Device) *Activation {
	if device == nil {
		return NewActivationFromCELDevice(dracel.Device{Driver: driver})
	}
	return NewActivationFromCELDevice(dracel.Device{
		Driver:                   driver,
		AllowMultipleAllocations: device.AllowMultipleAllocations,
		Attributes:               device.Attributes,
		Capacity:                 device.Capacity,
	})
}

// NewActivationFromCELDevice builds the CEL input from the same struct that
// upstream's CompilationResult.DeviceMatches takes.
func NewActivationFromCELDevice(input dracel.Device) *Activation {
	a := &Activation{driver: input.Driver}

	attributes, err := buildAttributes(input.Driver, input.Attributes)
	a.err = err
	a.capacity = buildCapacity(input.Driver, input.Capacity)

	allowMulti := false
	if input.AllowMultipleAllocations != nil {
		allowMulti = *input.AllowMultipleAllocations
	}
	a.device = map[string]any{
		driverVar:     types.String(input.Driver),
		multiAllocVar: types.Bool(allowMulti),
		attributesVar: mapper{Mapper: adapter.NativeToValue(attributes).(traits.Mapper), defaultValue: emptyMap},
		capacityVar:   &capacityView{mapper: a.capacity.outer, tmpl: a.capacity},
	}
	return a
}

// Driver returns the driver name the Activation was built with.
func (a *Activation) Driver() string { return a.driver }

// Err returns the device-level error that every evaluation reports, or nil.
// Upstream's DeviceMatches detects the same problem on every call before it
// evaluates the expression.
func (a *Activation) Err() error { return a.err }

// sharedInput is the interpreter.Activation for evaluations which can use the
// shared device map. It is a conversion of *Activation (no allocation) so that
// the interpreter methods do not become part of the public API.
type sharedInput Activation

// ResolveName implements interpreter.Activation.
func (s *sharedInput) ResolveName(name string) (any, bool) {
	if name == deviceVar {
		return s.device, true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (s *sharedInput) Parent() interpreter.Activation { return nil }

// buildAttributes returns domain -> CEL map of id -> CEL value. Values are
// converted to ref.Val once here; upstream stores the native Go values and
// converts them with NativeToValue on every access, which for a ref.Val is
// the identity, so the results are the same values.
//
// Upstream iterates over the Go map and stops at the first bad attribute, so
// with several bad attributes it reports a random one. This reports the first
// in a fixed order. With two names which resolve to the same domain and id
// ("x" and "<driver>/x") upstream keeps a random one; this keeps the
// qualified one.
func buildAttributes(driver string, attrs map[resourceapi.QualifiedName]resourceapi.DeviceAttribute) (map[string]any, error) {
	names := sortedNames(attrs)
	inner := make(map[string]map[string]any)
	for _, name := range names {
		domain, id := parseQualifiedName(name, driver)
		value, err := attributeValue(attrs[name])
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		if inner[domain] == nil {
			inner[domain] = make(map[string]any)
		}
		inner[domain][id] = value
	}
	outer := make(map[string]any, len(inner))
	for domain, ids := range inner {
		outer[domain] = adapter.NativeToValue(ids)
	}
	return outer, nil
}

// attributeValue mirrors CompilationResult.getAttributeValue, including the
// order in which the union members are checked, and returns the value already
// converted to a CEL value. Slices are copied so that the Activation does not
// alias the device.
func attributeValue(attr resourceapi.DeviceAttribute) (ref.Val, error) {
	switch {
	case attr.IntValues != nil:
		return adapter.NativeToValue(slices.Clone(attr.IntValues)), nil
	case attr.BoolValues != nil:
		return adapter.NativeToValue(slices.Clone(attr.BoolValues)), nil
	case attr.StringValues != nil:
		return adapter.NativeToValue(slices.Clone(attr.StringValues)), nil
	case attr.VersionValues != nil:
		semVers := make([]apiservercel.Semver, len(attr.VersionValues))
		for i, versionStr := range attr.VersionValues {
			v, err := semver.Parse(versionStr)
			if err != nil {
				return nil, fmt.Errorf("parse semantic version: %w", err)
			}
			semVers[i] = apiservercel.Semver{Version: v}
		}
		return adapter.NativeToValue(semVers), nil
	case attr.IntValue != nil:
		return adapter.NativeToValue(*attr.IntValue), nil
	case attr.BoolValue != nil:
		return adapter.NativeToValue(*attr.BoolValue), nil
	case attr.StringValue != nil:
		return adapter.NativeToValue(*attr.StringValue), nil
	case attr.VersionValue != nil:
		v, err := semver.Parse(*attr.VersionValue)
		if err != nil {
			return nil, fmt.Errorf("parse semantic version: %w", err)
		}
		return apiservercel.Semver{Version: v}, nil
	default:
		return nil, errors.New("unsupported attribute value")
	}
}

// buildCapacity snapshots the device's capacities. See capacity.go for why
// quantities need special care. Name collisions resolve like attributes.
func buildCapacity(driver string, capacity map[resourceapi.QualifiedName]resourceapi.DeviceCapacity) *capacityTemplate {
	type domainEntries struct {
		ids        []string
		quantities []resource.Quantity
	}
	var domains []domainEntries
	var domainNames []string
	for _, name := range sortedNames(capacity) {
		domain, id := parseQualifiedName(name, driver)
		d := slices.Index(domainNames, domain)
		if d < 0 {
			d = len(domains)
			domainNames = append(domainNames, domain)
			domains = append(domains, domainEntries{})
		}
		value := capacity[name].Value.DeepCopy()
		if i := slices.Index(domains[d].ids, id); i >= 0 {
			domains[d].quantities[i] = value
			continue
		}
		domains[d].ids = append(domains[d].ids, id)
		domains[d].quantities = append(domains[d].quantities, value)
	}

	tmpl := &capacityTemplate{domains: make([]capacityDomain, len(domains))}
	outer := make(map[string]any, len(domains))
	for d, entries := range domains {
		dom := &tmpl.domains[d]
		dom.quantities = entries.quantities
		inner := make(map[string]apiservercel.Quantity, len(entries.ids))
		for i, id := range entries.ids {
			// Fill the lazily cached string now, while nobody else can see
			// the quantity: String() writes that cache on first use.
			_ = dom.quantities[i].String()
			inner[id] = apiservercel.Quantity{Quantity: &dom.quantities[i]}
		}
		// Upstream stores map[string]apiservercel.Quantity, which
		// NativeToValue turns into a reflection-based map on access.
		dom.shared = adapter.NativeToValue(inner).(traits.Mapper)
		outer[domainNames[d]] = dom.shared
	}
	tmpl.outer = mapper{Mapper: adapter.NativeToValue(outer).(traits.Mapper), defaultValue: emptyMap}
	return tmpl
}

// parseQualifiedName splits a qualified name into domain and ID, with the
// driver as the domain of unqualified names, as upstream's CEL input does.
func parseQualifiedName(name resourceapi.QualifiedName, defaultDomain string) (string, string) {
	sep := strings.Index(string(name), "/")
	if sep == -1 {
		return defaultDomain, string(name)
	}
	return string(name[0:sep]), string(name[sep+1:])
}

// sortedNames returns the unqualified names, sorted, followed by the qualified
// ones, sorted. Processing them in this order makes a qualified name win over
// an unqualified one which resolves to the same domain and id.
func sortedNames[V any](m map[resourceapi.QualifiedName]V) []resourceapi.QualifiedName {
	names := make([]resourceapi.QualifiedName, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b resourceapi.QualifiedName) int {
		aq, bq := strings.Contains(string(a), "/"), strings.Contains(string(b), "/")
		switch {
		case aq == bq:
			return strings.Compare(string(a), string(b))
		case aq:
			return 1
		default:
			return -1
		}
	})
	return names
}

// mapper behaves like the map type of upstream's CEL input: looking up an unknown
// key with Find returns a default value (an empty map) instead of failing.
// Only Find is overridden, exactly as upstream; Get, Contains, Equal etc. are
// those of the wrapped map.
type mapper struct {
	traits.Mapper
	defaultValue ref.Val
}

// Find implements traits.Mapper.
func (m mapper) Find(key ref.Val) (ref.Val, bool) {
	value, found := m.Mapper.Find(key)
	if found {
		return value, true
	}
	return m.defaultValue, true
}
