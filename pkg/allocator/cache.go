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
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// cacheLimits bound what a Matcher keeps for selectors: compiled
// expressions with their result per device, and per selector chain the
// selections and summaries of every node view it was asked about. When a
// new expression or chain takes either count past its limit, or the
// estimated size past MaxBytes, the least recently used entries are
// evicted until all are back under three quarters of their limits. An
// evicted entry costs only recomputation: a pod that uses it again
// compiles and evaluates it anew, with the same results.
type cacheLimits struct {
	// MaxExpressions bounds the compiled CEL expressions kept.
	MaxExpressions int
	// MaxChains bounds the selector chains (a class's and a request's
	// selectors together) whose per-node results are kept.
	MaxChains int
	// MaxBytes bounds the estimated size of both (MatcherStats.Bytes).
	MaxBytes int64
}

// Default cache limits: far more distinct selectors than the pods one
// scheduler has pending or just placed use, and a size that fits a
// scheduler's memory request.
const (
	defaultMaxExpressions = 4096
	defaultMaxChains      = 4096
	defaultMaxBytes       = 256 << 20
)

// defaultCacheLimits returns the limits NewMatcher uses.
func defaultCacheLimits() cacheLimits {
	return cacheLimits{MaxExpressions: defaultMaxExpressions, MaxChains: defaultMaxChains, MaxBytes: defaultMaxBytes}
}

func (l cacheLimits) withDefaults() cacheLimits {
	d := defaultCacheLimits()
	if l.MaxExpressions <= 0 {
		l.MaxExpressions = d.MaxExpressions
	}
	if l.MaxChains <= 0 {
		l.MaxChains = d.MaxChains
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	return l
}

// Size estimates, in bytes, of what the cache keeps. They count the data
// and the map and slice overheads it comes with, not exact allocator
// classes; what they are meant for is the order of magnitude and the
// trend.
const (
	// compiledBytes is a compiled expression: the CEL program and its
	// AST (measured: 17 KB for a selector comparing one attribute).
	compiledBytes = 16 << 10
	// resultBytes is one device's result in an expression's table.
	resultBytes = 64
	// chainBytes is a chain's entry and empty summary table.
	chainBytes = 256
	// selectionBytes is a selection without its bit set words and errors,
	// with its place in the view's memo.
	selectionBytes = 512
	// selectionErrorBytes is a device's error in a selection.
	selectionErrorBytes = 128
	// summaryBytes is a summary without its index lists.
	summaryBytes = 80
)

// size estimates the expression's entry without its results.
func (e *exprResults) size() int64 { return compiledBytes + int64(len(e.expression)) }

// chainEntry is a selector chain the matcher knows: its number in view
// memos and its table of summaries.
type chainEntry struct {
	key  string
	id   int
	sums *chainSummaries

	lastUse atomic.Uint64
	evicted atomic.Bool
	// grown estimates the bytes of the selections and summaries kept for
	// the chain: the sum of perSlot and the summary table.
	grown atomic.Int64

	// perSlot charges the chain's selection and summary to the view they
	// were computed for, by view slot: a new view of a node (its slices
	// or labels changed) replaces the old view's charge, as it replaces
	// the old view, whose memo and summary the garbage collector frees.
	mu      sync.Mutex
	perSlot []slotCharge
}

// slotCharge is what a chain keeps for the view with that serial.
type slotCharge struct {
	serial uint64
	bytes  int64
}

// size estimates the chain's entry without its selections and summaries.
func (c *chainEntry) size() int64 { return chainBytes + int64(len(c.key)) }

// selectionSize estimates a selection over n candidate devices: three bit
// sets of n bits and the errors.
func selectionSize(n int, s *selection) int64 {
	return selectionBytes + 3*8*int64((n+63)/64) + selectionErrorBytes*int64(len(s.errs))
}

// summarySize estimates a summary of n matches: two int32 lists.
func summarySize(n int) int64 { return summaryBytes + 8*int64(n) }

// charge accounts n more bytes kept for the chain on the view with that
// ID, dropping what was charged for an older view in the same slot.
func (m *Matcher) charge(c *chainEntry, view inventory.ViewID, n int64) {
	c.mu.Lock()
	if int(view.Slot) >= len(c.perSlot) {
		c.perSlot = append(c.perSlot, make([]slotCharge, int(view.Slot)+1-len(c.perSlot))...)
	}
	sc := &c.perSlot[view.Slot]
	delta := n
	if sc.serial != view.Serial {
		delta -= sc.bytes
		sc.serial, sc.bytes = view.Serial, 0
	}
	sc.bytes += n
	c.mu.Unlock()
	m.grewChain(c, delta)
}

// grewChain accounts n more bytes kept for the chain (its summary table
// grew, or a view's charge changed by n), counted in the cache's total
// unless the chain was evicted.
func (m *Matcher) grewChain(c *chainEntry, n int64) {
	if n == 0 {
		return
	}
	c.grown.Add(n)
	m.grew(&c.evicted, n)
}

// grew accounts n more bytes kept for an entry unless it was evicted.
func (m *Matcher) grew(evicted *atomic.Bool, n int64) {
	if !evicted.Load() {
		m.bytes.Add(n)
	}
}

// overLimits reports whether the cache passed a limit. Callers hold mu.
func (m *Matcher) overLimits() bool {
	return len(m.exprs) > m.limits.MaxExpressions || len(m.chains) > m.limits.MaxChains || m.bytes.Load() > m.limits.MaxBytes
}

// cacheEntry is an expression or a chain, as eviction sees them.
type cacheEntry struct {
	lastUse uint64
	expr    *exprResults
	chain   *chainEntry
	bytes   int64
}

// evict removes the least recently used expressions and chains until
// every count and the estimated size are back under three quarters of
// their limits; the most recently used entry (the one just added) stays.
// It then recomputes the estimated size from what is left, so that races
// between accounting and eviction cannot make it drift. Callers hold mu.
func (m *Matcher) evict() {
	entries := make([]cacheEntry, 0, len(m.exprs)+len(m.chains))
	var total int64
	for _, e := range m.exprs {
		e.mu.RLock()
		n := int64(len(e.results))
		e.mu.RUnlock()
		entries = append(entries, cacheEntry{lastUse: e.lastUse.Load(), expr: e, bytes: e.size() + n*resultBytes})
	}
	for _, c := range m.chains {
		entries = append(entries, cacheEntry{lastUse: c.lastUse.Load(), chain: c, bytes: c.size() + c.grown.Load()})
	}
	for _, e := range entries {
		total += e.bytes
	}
	slices.SortFunc(entries, func(a, b cacheEntry) int { return cmp.Compare(a.lastUse, b.lastUse) })

	exprs, chains := len(m.exprs), len(m.chains)
	targetExprs, targetChains, targetBytes := m.limits.MaxExpressions*3/4, m.limits.MaxChains*3/4, m.limits.MaxBytes*3/4
	for _, e := range entries[:max(len(entries)-1, 0)] {
		bytesOver := total > targetBytes
		switch {
		case e.expr != nil && (exprs > targetExprs || bytesOver):
			e.expr.evicted.Store(true)
			delete(m.exprs, e.expr.expression)
			exprs--
		case e.chain != nil && (chains > targetChains || bytesOver):
			e.chain.evicted.Store(true)
			delete(m.chains, e.chain.key)
			delete(m.chainByID, e.chain.id)
			chains--
		default:
			continue
		}
		total -= e.bytes
		m.evictions.Add(1)
		if exprs <= targetExprs && chains <= targetChains && total <= targetBytes {
			break
		}
	}
	m.bytes.Store(total)
	m.sweeps.Add(1)
}

// isLiveChain reports whether chain is still cached (view memos drop the
// selections of evicted chains, memo.go).
func (m *Matcher) isLiveChain(chain int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.chainByID[chain]
	return ok
}

// cacheSize fills in st's cache fields.
func (m *Matcher) cacheSize(st *MatcherStats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st.Expressions, st.Chains = len(m.exprs), len(m.chains)
	st.Bytes, st.Evictions = m.bytes.Load(), m.evictions.Load()
}
