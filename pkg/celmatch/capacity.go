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
	"maps"

	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"

	"k8s.io/apimachinery/pkg/api/resource"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// Why capacity needs care
//
// resource.Quantity is not read-only: (*Quantity).Cmp calls AsDec on its
// receiver when the other operand is backed by an inf.Dec (for example
// quantity("123456789012345678901234")), which converts the receiver in place.
// The quantity library calls Cmp on the device's quantity for compareTo,
// isGreaterThan and isLessThan. Afterwards AsInt64 fails on that quantity, so
// isInteger() and asInteger() change their results.
//
// Upstream's DeviceMatches stores a pointer to a fresh shallow copy of every
// capacity in each call, so such a conversion is visible for the rest of that
// one evaluation and never leaks into another one. Sharing one quantity
// between evaluations would leak it (and race between goroutines). So:
//
//   - capacityTemplate keeps the Activation's private quantities and the
//     upstream-shaped CEL maps over them. Nothing hands these quantities to
//     library functions.
//   - Selectors which can reach device.capacity evaluate with an evalInput:
//     a per-evaluation device map whose "capacity" is a capacityView bound to
//     that evaluation. It hands out a copy of each quantity, made on first
//     access and reused for later accesses in the same evaluation, which is
//     upstream's sharing behaviour exactly.
//   - The shared device map also has a capacityView, without an evaluation.
//     It copies on every access. Selectors only see it if the static check in
//     referencesCapacity were wrong, in which case isolation still holds.

// capacityTemplate holds a device's capacities in upstream's shape: a mapper
// with default value over domain -> (reflection-based) map of id -> Quantity.
type capacityTemplate struct {
	outer   mapper
	domains []capacityDomain
}

type capacityDomain struct {
	// quantities are the private snapshots; shared's values point into it.
	quantities []resource.Quantity
	shared     traits.Mapper
}

// capacityView is device.capacity as seen by one evaluation (eval != nil) or
// by the shared device map (eval == nil). Only Find and Get are changed: they
// replace the shared per-domain map by a domainView. Everything else (size,
// iteration, "in", equality, type) is the upstream-shaped map's.
type capacityView struct {
	mapper
	tmpl *capacityTemplate
	eval *evalInput
}

// Find implements traits.Mapper.
func (v *capacityView) Find(key ref.Val) (ref.Val, bool) {
	value, found := v.mapper.Find(key)
	return v.isolate(value), found
}

// Get implements traits.Indexer.
func (v *capacityView) Get(key ref.Val) ref.Val {
	return v.isolate(v.mapper.Get(key))
}

func (v *capacityView) isolate(value ref.Val) ref.Val {
	for i := range v.tmpl.domains {
		dom := &v.tmpl.domains[i]
		if value != ref.Val(dom.shared) {
			continue
		}
		if v.eval == nil {
			return newDomainView(dom)
		}
		if v.eval.views == nil {
			if len(v.tmpl.domains) <= len(v.eval.viewsBuf) {
				v.eval.views = v.eval.viewsBuf[:len(v.tmpl.domains)]
			} else {
				v.eval.views = make([]*domainView, len(v.tmpl.domains))
			}
		}
		if v.eval.views[i] == nil {
			v.eval.views[i] = newDomainView(dom)
		}
		return v.eval.views[i]
	}
	return value
}

// domainView is device.capacity["<domain>"] for one evaluation. Find and Get
// return a copy of the quantity, the same copy for repeated lookups.
type domainView struct {
	traits.Mapper
	dom    *capacityDomain
	copies []quantityCopy
	buf    [4]quantityCopy // avoids a second allocation for small domains
}

type quantityCopy struct {
	valid    bool
	quantity resource.Quantity
}

func newDomainView(dom *capacityDomain) *domainView {
	v := &domainView{Mapper: dom.shared, dom: dom}
	if len(dom.quantities) <= len(v.buf) {
		v.copies = v.buf[:len(dom.quantities)]
	} else {
		v.copies = make([]quantityCopy, len(dom.quantities))
	}
	return v
}

// Find implements traits.Mapper.
func (v *domainView) Find(key ref.Val) (ref.Val, bool) {
	value, found := v.Mapper.Find(key)
	return v.isolate(value), found
}

// Get implements traits.Indexer.
func (v *domainView) Get(key ref.Val) ref.Val {
	return v.isolate(v.Mapper.Get(key))
}

func (v *domainView) isolate(value ref.Val) ref.Val {
	q, ok := value.(apiservercel.Quantity)
	if !ok {
		return value
	}
	for i := range v.dom.quantities {
		if q.Quantity != &v.dom.quantities[i] {
			continue
		}
		c := &v.copies[i]
		if !c.valid {
			// A shallow copy, like upstream's per-call copy of
			// DeviceCapacity: an inf.Dec, if any, is shared but
			// nothing modifies it in place.
			c.quantity = v.dom.quantities[i]
			c.valid = true
		}
		return apiservercel.Quantity{Quantity: &c.quantity}
	}
	return value
}

// evalInput is the interpreter.Activation for one evaluation of a selector
// which may access device.capacity.
type evalInput struct {
	device   map[string]any
	capacity capacityView
	views    []*domainView
	viewsBuf [4]*domainView
}

func (a *Activation) newEvalInput() *evalInput {
	e := &evalInput{}
	e.capacity = capacityView{mapper: a.capacity.outer, tmpl: a.capacity, eval: e}
	e.device = maps.Clone(a.device)
	e.device[capacityVar] = &e.capacity
	return e
}

// ResolveName implements interpreter.Activation.
func (e *evalInput) ResolveName(name string) (any, bool) {
	if name == deviceVar {
		return e.device, true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (e *evalInput) Parent() interpreter.Activation { return nil }
