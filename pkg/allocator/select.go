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

package allocator

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/bitset"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// selection is the outcome of one request's selector chain (§4.2) on every
// candidate device of one node view, as bit sets over the view's device
// positions. It is computed once per (chain, view) and shared by every pod
// and call that asks the same question about that node; a new view (any
// slice change, a label change of the node) starts afresh.
//
// Evaluating every candidate up front is safe because evaluation is pure:
// errors are kept per device and reported only when the search reaches the
// device, exactly when upstream would evaluate it.
type selection struct {
	// match holds devices the chain selects; failed those on which it
	// fails. The rest do not match.
	match, failed *bitset.Set
	// candidates is match ∪ failed: the devices the search must visit.
	candidates *bitset.Set
	errs       map[int]chainError
	// interrupted is set when the call's context or deadline ended while
	// the chain was evaluated: devices whose evaluation was cut off count
	// as failed, with the interruption as their error. Such a selection
	// serves the call that computed it only.
	interrupted bool
}

// selectorSource says whose selector list a selector is in.
type selectorSource uint8

const (
	// requestSelector: the claim's request (or subrequest).
	requestSelector selectorSource = iota
	// classSelector: the request's DeviceClass.
	classSelector
)

// chainError is where a chain failed on a device, to be worded for the
// claim and class at hand.
type chainError struct {
	source  selectorSource
	index   int
	compile bool
	// raw errors (node selection) are reported unwrapped.
	raw bool
	err error
}

// wrap words the error as upstream does.
func (e chainError) wrap(r *request, claimName klog.ObjectRef, d *inventory.Device) error {
	switch {
	case e.raw:
		return e.err
	case e.source == classSelector && e.compile:
		return fmt.Errorf("class %s: selector #%d: CEL compile error: %w", r.class.Name, e.index, e.err)
	case e.source == classSelector:
		return fmt.Errorf("class %s: selector #%d on device %s: CEL runtime error: %w", r.class.Name, e.index, d.ID(), e.err)
	case e.compile:
		return fmt.Errorf("claim %s: selector #%d: CEL compile error: %w", claimName, e.index, e.err)
	default:
		return fmt.Errorf("claim %s: selector #%d on device %s: CEL runtime error: %w", claimName, e.index, d.ID(), e.err)
	}
}

// chainKey identifies a selector chain: whether this allocator's features
// admit devices with binding conditions, class name and selectors, request
// selectors.
func (a *Allocator) chainKey(r *request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%t\x00%s\x00%d", a.features.DeviceBindingAndStatus, r.class.Name, len(r.class.Spec.Selectors))
	for _, sel := range r.class.Spec.Selectors {
		b.WriteByte(0)
		if sel.CEL != nil {
			b.WriteString(sel.CEL.Expression)
		} else {
			b.WriteByte(1)
		}
	}
	for _, sel := range r.selectors {
		b.WriteByte(0)
		b.WriteString(sel.CEL.Expression)
	}
	return b.String()
}

// selection returns the request's selection on this call's node view. A
// selection computed while the call's context or deadline ended is used by
// this call only: interrupted evaluations are not a property of the
// devices. Computing one honours the call's deadline, if it has one, as
// the search does; a kept selection needs no timer.
func (c *call) selection(r *request) *selection {
	if s := memoOf(c.view).selection(r.chain); s != nil {
		return s
	}
	if s := c.sels[r]; s != nil {
		return s
	}
	v := c.view
	var s *selection
	computed := false
	v.UpdateMemo(func(current any) any {
		m := asViewMemo(current)
		if s = m.selection(r.chain); s != nil {
			return current
		}
		computed = true
		ctx := c.ctx
		if !c.deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, c.deadline)
			defer cancel()
		}
		s = c.computeSelection(ctx, r)
		if ctx.Err() != nil {
			s.interrupted = true
			return current
		}
		return m.withSelection(c.a.matcher, r.chain, s)
	})
	if !s.interrupted {
		if computed {
			c.a.matcher.charge(r.cached, v.ID, selectionSize(len(v.Devices), s))
		}
		return s
	}
	if c.sels == nil {
		c.sels = map[*request]*selection{}
	}
	c.sels[r] = s
	return s
}

// computeSelection evaluates the request's chain on every candidate of the
// view, through ctx.
func (c *call) computeSelection(ctx context.Context, r *request) *selection {
	n := len(c.view.Devices)
	s := &selection{match: bitset.New(n), failed: bitset.New(n)}
	for i, d := range c.view.Devices {
		ok, cerr := c.chain(ctx, r, d)
		switch {
		case cerr != nil:
			s.failed.Set(i)
			if s.errs == nil {
				s.errs = map[int]chainError{}
			}
			s.errs[i] = *cerr
		case ok:
			s.match.Set(i)
		}
	}
	s.candidates = bitset.New(n)
	s.candidates.Or(s.match, s.failed)
	return s
}

// chain runs the request's selector chain on one device: binding
// conditions supported, class selectors, request selectors, the device's
// own node selection, in that order, stopping at the first false or error.
func (c *call) chain(ctx context.Context, r *request, d *inventory.Device) (bool, *chainError) {
	if !c.a.features.DeviceBindingAndStatus && len(d.Spec.BindingConditions) > 0 {
		return false, nil
	}
	for i, e := range r.classExprs {
		if ok, cerr := c.evaluateOne(ctx, e, d, classSelector, i); cerr != nil || !ok {
			return false, cerr
		}
	}
	for i, e := range r.exprs {
		if ok, cerr := c.evaluateOne(ctx, e, d, requestSelector, i); cerr != nil || !ok {
			return false, cerr
		}
	}
	if d.Slice.PerDeviceNodeSelection() {
		ok, err := d.DeviceMatchesNode(c.node)
		if err != nil {
			return false, &chainError{raw: true, err: err}
		}
		return ok, nil
	}
	return true, nil
}

func (c *call) evaluateOne(ctx context.Context, e *exprResults, d *inventory.Device, source selectorSource, i int) (bool, *chainError) {
	if e == nil {
		return false, &chainError{source: source, index: i, compile: true, err: fmt.Errorf("CEL expression empty (unsupported selector type?)")}
	}
	if e.compileErr != nil {
		return false, &chainError{source: source, index: i, compile: true, err: e.compileErr}
	}
	ok, err := c.a.matcher.match(ctx, e, d)
	if err != nil {
		return false, &chainError{source: source, index: i, err: err}
	}
	return ok, nil
}
