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

package inventorygen

import (
	"fmt"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The drivers Random draws from. Each has a fixed attribute and capacity
// schema so that selectors and constraints written against the schema mostly
// make sense; MissingAttribute and MistypedAttribute break it on purpose.
// Attributes without a domain belong to the driver's domain; the
// resource.kubernetes.io/pcieRoot attribute is shared by all drivers so that
// constraints can span drivers.

type attrKind int

const (
	kindString attrKind = iota
	kindInt
	kindBool
	kindVersion
)

type attrSpec struct {
	name    resourceapi.QualifiedName
	kind    attrKind
	strings []string // string and version values
	ints    []int64
}

type capSpec struct {
	name   resourceapi.QualifiedName
	unit   int64 // value of one unit
	format resource.Format
	values []int64 // capacity values in units
}

type driverSchema struct {
	name  string
	short string // prefix of device and slice names
	attrs []attrSpec
	caps  []capSpec
}

const sharedRootAttr resourceapi.QualifiedName = "resource.kubernetes.io/pcieRoot"

var randomDrivers = []*driverSchema{
	{
		name: "gpu.example.com", short: "gpu",
		attrs: []attrSpec{
			{name: "model", kind: kindString, strings: []string{"a100", "h100", "l4"}},
			{name: "index", kind: kindInt, ints: []int64{0, 1, 2, 3}},
			{name: "healthy", kind: kindBool},
			{name: "driverVersion", kind: kindVersion, strings: []string{"1.0.0", "1.2.3", "2.0.0"}},
			{name: sharedRootAttr, kind: kindString, strings: []string{"pci0000:00", "pci0000:40"}},
		},
		caps: []capSpec{
			{name: "memory", unit: 1 << 30, format: resource.BinarySI, values: []int64{8, 16, 40, 80}},
			{name: "cores", unit: 1, format: resource.DecimalSI, values: []int64{16, 32, 64}},
		},
	},
	{
		name: "nic.example.com", short: "nic",
		attrs: []attrSpec{
			{name: "vendor", kind: kindString, strings: []string{"mlx", "intel"}},
			{name: "speed", kind: kindInt, ints: []int64{10, 25, 100}},
			{name: "sriov", kind: kindBool},
			{name: "firmware", kind: kindVersion, strings: []string{"20.1.0", "22.0.1"}},
			{name: sharedRootAttr, kind: kindString, strings: []string{"pci0000:00", "pci0000:40"}},
		},
		caps: []capSpec{
			{name: "bandwidth", unit: 1_000_000_000, format: resource.DecimalSI, values: []int64{10, 25, 100}},
			{name: "queues", unit: 1, format: resource.DecimalSI, values: []int64{8, 16}},
		},
	},
	{
		name: "fpga.example.org", short: "fpga",
		attrs: []attrSpec{
			{name: "family", kind: kindString, strings: []string{"agilex", "versal"}},
			{name: "slots", kind: kindInt, ints: []int64{1, 2, 4}},
			{name: "example.org/region", kind: kindString, strings: []string{"eu", "us"}},
			{name: "shell", kind: kindVersion, strings: []string{"1.0.0", "1.1.0"}},
		},
		caps: []capSpec{
			{name: "memory", unit: 1 << 30, format: resource.BinarySI, values: []int64{4, 8}},
		},
	},
}

// domainAndID splits an attribute or capacity name, defaulting the domain to
// the driver.
func domainAndID(driver string, name resourceapi.QualifiedName) (string, string) {
	if domain, id, ok := strings.Cut(string(name), "/"); ok {
		return domain, id
	}
	return driver, string(name)
}

// fullyQualified is the name as constraints refer to it.
func fullyQualified(driver string, name resourceapi.QualifiedName) resourceapi.FullyQualifiedName {
	domain, id := domainAndID(driver, name)
	return resourceapi.FullyQualifiedName(domain + "/" + id)
}

// celAttribute is the CEL access path of an attribute.
func celAttribute(driver string, name resourceapi.QualifiedName) string {
	domain, id := domainAndID(driver, name)
	return fmt.Sprintf("device.attributes[%q].%s", domain, id)
}

// celCapacity is the CEL access path of a capacity.
func celCapacity(driver string, name resourceapi.QualifiedName) string {
	domain, id := domainAndID(driver, name)
	return fmt.Sprintf("device.capacity[%q].%s", domain, id)
}

func (c capSpec) quantity(units int64) resource.Quantity {
	return *resource.NewQuantity(units*c.unit, c.format)
}

// attributeValue returns a value of the spec's kind.
func (g *generator) attributeValue(a attrSpec) resourceapi.DeviceAttribute {
	return g.attributeOfKind(a, a.kind)
}

// listAttribute returns a list of one to three values of the spec's kind
// (duplicates possible, as the API allows), or one time in twenty an empty
// list, which no constraint accepts.
func (g *generator) listAttribute(a attrSpec) resourceapi.DeviceAttribute {
	n := 1 + g.r.IntN(3)
	if g.chance(0.05) {
		n = 0
	}
	var out resourceapi.DeviceAttribute
	switch a.kind {
	case kindInt:
		out.IntValues = []int64{}
		for range n {
			out.IntValues = append(out.IntValues, *g.attributeValue(a).IntValue)
		}
	case kindBool:
		out.BoolValues = []bool{}
		for range n {
			out.BoolValues = append(out.BoolValues, *g.attributeValue(a).BoolValue)
		}
	case kindVersion:
		out.VersionValues = []string{}
		for range n {
			out.VersionValues = append(out.VersionValues, *g.attributeValue(a).VersionValue)
		}
	default:
		out.StringValues = []string{}
		for range n {
			out.StringValues = append(out.StringValues, *g.attributeValue(a).StringValue)
		}
	}
	return out
}

func (g *generator) attributeOfKind(a attrSpec, kind attrKind) resourceapi.DeviceAttribute {
	switch kind {
	case kindInt:
		if len(a.ints) == 0 {
			return intAttr(int64(g.r.IntN(4)))
		}
		return intAttr(pick(g, a.ints))
	case kindBool:
		return boolAttr(g.r.IntN(4) != 0)
	case kindVersion:
		if a.kind != kindVersion {
			return versionAttr(pick(g, []string{"1.0.0", "3.1.4"}))
		}
		return versionAttr(pick(g, a.strings))
	default:
		if a.kind != kindString {
			return stringAttr(pick(g, []string{"1", "true", "x"}))
		}
		return stringAttr(pick(g, a.strings))
	}
}
