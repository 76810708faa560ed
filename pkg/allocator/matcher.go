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
	"errors"
	"sync"
	"sync/atomic"

	"k8s.io/dynamic-resource-allocation/cel"

	"github.com/dra-scheduler/dra-scheduler/pkg/celmatch"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Matcher evaluates CEL selectors on devices and remembers every result
// per (expression, device version), across pods and nodes. Selectors are
// user input, so what it keeps is bounded (cache.go): expressions and
// selector chains that no recent pod used are evicted, least recently
// used first, once their number or estimated size passes the limits. It
// is safe for concurrent use.
type Matcher struct {
	cache  *cel.Cache
	limits cacheLimits

	mu    sync.Mutex
	exprs map[string]*exprResults
	// chains numbers selector chains (class and request selectors), so
	// that per-node caches can key them by a small integer. Numbers are
	// never reused: a request prepared before its chain was evicted may
	// still ask views about it.
	chains    map[string]*chainEntry
	chainByID map[int]*chainEntry
	nextChain int
	// attrs numbers attribute names compared by constraints, for the
	// same reason.
	attrs map[string]int

	// use orders uses of expressions and chains (least recently used
	// first); bytes estimates what the cached entries hold; sweeps counts
	// evictions, so that view memos notice dead chains (memo.go).
	use    atomic.Uint64
	bytes  atomic.Int64
	sweeps atomic.Uint64

	// acts holds the CEL inputs of recently evaluated devices by device
	// index, at most maxActivations of them. An input serves the few
	// expressions a device meets in one selector chain; their results
	// live on in exprResults, so keeping every device's input (4 KB and
	// more) for the device's lifetime would only cost memory.
	actMu sync.RWMutex
	acts  map[int]versionedActivation

	// evaluations counts CEL evaluations; hits counts cached answers;
	// runtimeErrors counts evaluations that failed; evictions counts
	// evicted expressions and chains.
	evaluations, hits, runtimeErrors, evictions atomic.Int64
}

// NewMatcher returns a matcher compiling through cache (upstream's CEL
// environment and cost limit) with the default cache limits.
func NewMatcher(cache *cel.Cache) *Matcher {
	return newMatcherWithLimits(cache, defaultCacheLimits())
}

// newMatcherWithLimits is NewMatcher with other cache limits; zero fields
// take the defaults.
func newMatcherWithLimits(cache *cel.Cache, limits cacheLimits) *Matcher {
	if cache == nil {
		cache = cel.NewCache(10, cel.Features{EnableConsumableCapacity: true})
	}
	return &Matcher{cache: cache, limits: limits.withDefaults(),
		exprs: map[string]*exprResults{}, chains: map[string]*chainEntry{}, chainByID: map[int]*chainEntry{},
		attrs: map[string]int{}, acts: map[int]versionedActivation{}}
}

type exprResults struct {
	expression string
	sel        *celmatch.Selector
	// compileErr is upstream's compile error, if the expression has one.
	compileErr error

	// lastUse and evicted are the cache's bookkeeping (cache.go).
	lastUse atomic.Uint64
	evicted atomic.Bool

	mu      sync.RWMutex
	results map[int]exprResult // by device index
}

type exprResult struct {
	version uint64
	match   bool
	err     error
}

// expr returns the expression's results table, compiling it on first
// use. A compile error is kept in compileErr.
func (m *Matcher) expr(expression string) *exprResults {
	m.mu.Lock()
	e := m.exprs[expression]
	added := e == nil
	if added {
		e = &exprResults{expression: expression, results: map[int]exprResult{}}
		sel, err := celmatch.Compile(m.cache, expression)
		var ce *celmatch.CompileError
		switch {
		case errors.As(err, &ce):
			e.compileErr = ce.Err
		case err != nil:
			e.compileErr = err
		}
		e.sel = sel
		m.exprs[expression] = e
		m.bytes.Add(e.size())
	}
	e.lastUse.Store(m.use.Add(1))
	if added && m.overLimits() {
		m.evict()
	}
	m.mu.Unlock()
	return e
}

// chain returns the cache entry of a selector chain key, numbering it on
// first use.
func (m *Matcher) chain(key string) *chainEntry {
	m.mu.Lock()
	c := m.chains[key]
	added := c == nil
	if added {
		c = &chainEntry{key: key, id: m.nextChain, sums: &chainSummaries{}}
		m.nextChain++
		m.chains[key] = c
		m.chainByID[c.id] = c
		m.bytes.Add(c.size())
	}
	c.lastUse.Store(m.use.Add(1))
	if added && m.overLimits() {
		m.evict()
	}
	m.mu.Unlock()
	return c
}

// attrID returns the number of an attribute name, assigning the next one
// on first use. Attribute names are qualified names of at most 64 bytes
// that constraints compare; they are not evicted.
func (m *Matcher) attrID(name string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.attrs[name]
	if !ok {
		id = len(m.attrs)
		m.attrs[name] = id
	}
	return id
}

// maxActivations bounds Matcher.acts: more than the devices of the nodes
// that Filter evaluates at once, so a chain's expressions on one device
// share one input.
const maxActivations = 4096

// activation returns the device's CEL input, built once per version while
// it stays among the recently used ones.
func (m *Matcher) activation(d *inventory.Device) *celmatch.Activation {
	m.actMu.RLock()
	a, ok := m.acts[d.Index]
	m.actMu.RUnlock()
	if ok && a.version == d.Version {
		return a.act
	}
	act := celmatch.NewActivation(d.Driver, d.Spec)
	m.actMu.Lock()
	if _, ok := m.acts[d.Index]; !ok && len(m.acts) >= maxActivations {
		for i := range m.acts { // map order: evicts an arbitrary input
			delete(m.acts, i)
			break
		}
	}
	m.acts[d.Index] = versionedActivation{version: d.Version, act: act}
	m.actMu.Unlock()
	return act
}

type versionedActivation struct {
	version uint64
	act     *celmatch.Activation
}

// match evaluates one compiled expression on a device. The error is the
// raw CEL runtime error (already passed through cel.EnhanceRuntimeError).
func (m *Matcher) match(ctx context.Context, e *exprResults, d *inventory.Device) (bool, error) {
	e.mu.RLock()
	r, ok := e.results[d.Index]
	e.mu.RUnlock()
	if ok && r.version == d.Version {
		m.hits.Add(1)
		return r.match, r.err
	}
	match, err := e.sel.Matches(ctx, m.activation(d))
	if err != nil {
		var ee *celmatch.EvalError
		if errors.As(err, &ee) {
			err = ee.Err
		}
		err = cel.EnhanceRuntimeError(err)
		if ctx.Err() != nil {
			// Interrupted, not a property of the device: neither counted
			// nor remembered.
			return false, err
		}
		m.runtimeErrors.Add(1)
	}
	m.evaluations.Add(1)
	e.mu.Lock()
	_, had := e.results[d.Index]
	e.results[d.Index] = exprResult{version: d.Version, match: match, err: err}
	e.mu.Unlock()
	if !had {
		m.grew(&e.evicted, resultBytes)
	}
	return match, err
}

// MatcherStats is what a Matcher did and keeps, for metrics.
type MatcherStats struct {
	// Evaluations counts the CEL evaluations that ran, Hits the answers
	// that came from the cache instead, and RuntimeErrors the evaluations
	// that ended in a CEL runtime error (each device version at most once
	// per expression).
	Evaluations, Hits, RuntimeErrors int64
	// Expressions and Chains are the cached CEL expressions and selector
	// chains.
	Expressions, Chains int
	// Bytes estimates the memory both hold: compiled programs, results
	// per device, and the chains' selections and summaries per node view.
	Bytes int64
	// Evictions counts expressions and chains evicted so far.
	Evictions int64
}

// Stats reports the matcher's counters and its cache's size.
func (m *Matcher) Stats() MatcherStats {
	st := MatcherStats{Evaluations: m.evaluations.Load(), Hits: m.hits.Load(), RuntimeErrors: m.runtimeErrors.Load()}
	m.cacheSize(&st)
	return st
}
