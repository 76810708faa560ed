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
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Random devices of a pool, following its driver's schema: attributes,
// capacities and their request policies, counter consumption, taints,
// binding conditions and per-device node selection.

// device creates a device of the pool's driver schema.
func (g *generator) device(p *genPool, name string) resourceapi.Device {
	d := resourceapi.Device{Name: name, Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}}
	for _, a := range p.schema.attrs {
		switch {
		case g.chance(g.o.MissingAttribute):
		case g.chance(g.o.MistypedAttribute):
			d.Attributes[a.name] = g.attributeOfKind(a, (a.kind+1+attrKind(g.r.IntN(3)))%4)
		case g.chance(g.o.ListAttribute):
			d.Attributes[a.name] = g.listAttribute(a)
		default:
			d.Attributes[a.name] = g.attributeValue(a)
		}
	}
	multi := p.multi && g.chance(0.7)
	if multi {
		d.AllowMultipleAllocations = ptr(true)
	}
	for _, c := range p.schema.caps {
		if !g.chance(0.9) {
			continue
		}
		if d.Capacity == nil {
			d.Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{}
		}
		units := pick(g, c.values)
		capacity := resourceapi.DeviceCapacity{Value: c.quantity(units)}
		if multi && g.chance(0.75) {
			capacity.RequestPolicy = g.requestPolicy(c, units)
		}
		d.Capacity[c.name] = capacity
	}
	if p.partitionable && g.chance(0.8) {
		d.ConsumesCounters = g.consumption(p, name)
	}
	if g.chance(g.o.Taint) {
		for k := range 1 + g.r.IntN(2) {
			d.Taints = append(d.Taints, resourceapi.DeviceTaint{
				Key:       taintKeys[k],
				Value:     pick(g, []string{"", "true"}),
				Effect:    pick(g, taintEffects),
				TimeAdded: &taintTime,
			})
		}
	}
	if g.chance(g.o.BindingConditions) {
		d.BindingConditions = []string{"example.com/attached"}
		d.BindingFailureConditions = []string{"example.com/attach-failed"}
		if g.chance(0.5) {
			d.BindsToNode = ptr(true)
		}
	}
	if p.mode == modePerDevice {
		switch x := g.r.Float64(); {
		case x < 0.6:
			d.NodeName = ptr(g.nodeNameChoice())
		case x < 0.8:
			d.AllNodes = ptr(true)
		default:
			terms := 1
			if g.chance(g.o.MultiTermDeviceSelector) {
				terms = 2
				g.note("device %s/%s/%s: node selector with 2 terms", p.schema.name, p.name, name)
			}
			d.NodeSelector = g.nodeSelector(terms)
		}
	}
	return d
}

// consumption picks what a device of a partitionable pool consumes.
func (g *generator) consumption(p *genPool, device string) []resourceapi.DeviceCounterConsumption {
	set := pick(g, p.counterSets)
	memQ, slotsQ := set.Counters["mem"].Value, set.Counters["slots"].Value
	mem, slots := memQ.Value()>>30, slotsQ.Value()
	c := resourceapi.DeviceCounterConsumption{
		CounterSet: set.Name,
		Counters: map[string]resourceapi.Counter{
			"mem": {Value: *resource.NewQuantity((1+g.r.Int64N(max(mem/2, 1)))<<30, resource.BinarySI)},
		},
	}
	if g.chance(0.6) {
		c.Counters["slots"] = resourceapi.Counter{Value: *resource.NewQuantity(1+g.r.Int64N(slots), resource.DecimalSI)}
	}
	switch {
	case g.chance(g.o.InsufficientCounters):
		c.Counters["mem"] = resourceapi.Counter{Value: *resource.NewQuantity((mem+1)<<30, resource.BinarySI)}
		g.note("device %s/%s/%s: consumes more mem than set %s holds", p.schema.name, p.name, device, set.Name)
	case g.chance(g.o.UnknownCounter):
		if g.chance(0.5) {
			c.CounterSet = "set-9"
		} else {
			c.Counters["bogus"] = resourceapi.Counter{Value: *resource.NewQuantity(1, resource.DecimalSI)}
		}
		g.note("device %s/%s/%s: consumes an unknown counter (invalid pool)", p.schema.name, p.name, device)
	}
	out := []resourceapi.DeviceCounterConsumption{c}
	if len(p.counterSets) > 1 && set.Name == p.counterSets[0].Name && g.chance(0.2) {
		out = append(out, resourceapi.DeviceCounterConsumption{
			CounterSet: p.counterSets[1].Name,
			Counters:   map[string]resourceapi.Counter{"slots": {Value: *resource.NewQuantity(1, resource.DecimalSI)}},
		})
	}
	for i := range out {
		if g.chance(g.o.CompatibilityGroup) {
			out[i].CompatibilityGroups = pick(g, compatibilityGroups)
		}
	}
	return out
}

// requestPolicy returns a valid policy for a capacity of the given units:
// default only, validValues, or validRange (sometimes with milli values).
func (g *generator) requestPolicy(c capSpec, units int64) *resourceapi.CapacityRequestPolicy {
	q := func(u int64) *resource.Quantity { v := c.quantity(u); return &v }
	switch g.r.IntN(5) {
	case 0:
		return &resourceapi.CapacityRequestPolicy{Default: q(1 + g.r.Int64N(units))}
	case 1, 2:
		var values []resource.Quantity
		for v := int64(1); v <= units; v *= 2 {
			if g.chance(0.6) || v == 1 {
				values = append(values, c.quantity(v))
			}
		}
		def := pick(g, values)
		return &resourceapi.CapacityRequestPolicy{Default: &def, ValidValues: values}
	default:
		if c.unit == 1 && g.chance(g.o.FractionalRange) {
			// Milli steps: with FractionalCapacityRange off, upstream rounds
			// each value up to an integer.
			milli := func(m int64) *resource.Quantity { return resource.NewMilliQuantity(m, resource.DecimalSI) }
			r := &resourceapi.CapacityRequestPolicyRange{Min: milli(500), Step: milli(500)}
			maxSteps := (units*1000 - 500) / 500
			if g.chance(0.5) {
				r.Max = milli(500 + 500*(1+g.r.Int64N(maxSteps)))
			}
			return &resourceapi.CapacityRequestPolicy{Default: milli(500 + 500*g.r.Int64N(2)), ValidRange: r}
		}
		lo := g.r.Int64N(min(3, units))
		r := &resourceapi.CapacityRequestPolicyRange{Min: q(lo)}
		step := int64(1)
		if g.chance(0.6) {
			step = pick(g, []int64{1, 2, 4})
			if lo+step > units {
				step = 1
			}
			r.Step = q(step)
		}
		steps := (units - lo) / step
		hi := lo + steps*step
		if g.chance(0.5) {
			hi = lo + (1+g.r.Int64N(max(steps, 1)))*step
			hi = min(hi, lo+steps*step)
			r.Max = q(hi)
		}
		def := lo + g.r.Int64N((hi-lo)/step+1)*step
		return &resourceapi.CapacityRequestPolicy{Default: q(def), ValidRange: r}
	}
}
