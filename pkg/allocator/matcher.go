package allocator

import (
	"context"
	"sync"

	"k8s.io/dynamic-resource-allocation/cel"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Matcher evaluates CEL selectors on devices and remembers every result
// per (expression, device version), across pods and nodes. It is safe for
// concurrent use.
type Matcher struct {
	cache *cel.Cache

	mu    sync.Mutex
	exprs map[string]*exprResults

	// evaluations counts CEL evaluations; hits counts cached answers.
	evaluations, hits counter
}

// NewMatcher returns a matcher compiling through cache (upstream's CEL
// environment and cost limit).
func NewMatcher(cache *cel.Cache) *Matcher {
	if cache == nil {
		cache = cel.NewCache(10, cel.Features{EnableConsumableCapacity: true})
	}
	return &Matcher{cache: cache, exprs: map[string]*exprResults{}}
}

type exprResults struct {
	compiled cel.CompilationResult

	mu      sync.RWMutex
	results map[int]exprResult // by device index
}

type exprResult struct {
	version uint64
	match   bool
	err     error
}

// compiled returns the expression's results table, compiling it on first
// use. A compile error is kept in compiled.Error.
func (m *Matcher) expr(expression string) *exprResults {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.exprs[expression]
	if e == nil {
		e = &exprResults{compiled: m.cache.GetOrCompile(expression), results: map[int]exprResult{}}
		m.exprs[expression] = e
	}
	return e
}

// match evaluates one compiled expression on a device. The error is the
// raw CEL runtime error (already passed through cel.EnhanceRuntimeError).
func (m *Matcher) match(ctx context.Context, e *exprResults, d *inventory.Device) (bool, error) {
	e.mu.RLock()
	r, ok := e.results[d.Index]
	e.mu.RUnlock()
	if ok && r.version == d.Version {
		m.hits.add(1)
		return r.match, r.err
	}
	m.evaluations.add(1)
	match, _, err := e.compiled.DeviceMatches(ctx, cel.Device{
		Driver:                   d.Driver,
		AllowMultipleAllocations: d.Spec.AllowMultipleAllocations,
		Attributes:               d.Spec.Attributes,
		Capacity:                 d.Spec.Capacity,
	})
	if err != nil {
		err = cel.EnhanceRuntimeError(err)
		if ctx.Err() != nil {
			// Interrupted, not a property of the device: do not remember.
			return false, err
		}
	}
	e.mu.Lock()
	e.results[d.Index] = exprResult{version: d.Version, match: match, err: err}
	e.mu.Unlock()
	return match, err
}

// Stats reports how many CEL evaluations ran and how many answers came
// from the cache.
func (m *Matcher) Stats() (evaluations, hits int64) {
	return m.evaluations.load(), m.hits.load()
}
