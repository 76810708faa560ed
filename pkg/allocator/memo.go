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
	"slices"
	"sync"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// viewMemo is what the allocator keeps per node view
// (inventory.NodeView.Memo): the selection of every selector chain asked
// about the view and the value classes of attributes that matchAttribute
// constraints compare. It is read without locking on every (pod, node)
// check, so a lookup touches few cache lines: a short array of chain ids
// scanned in place instead of a hash map. A stored memo is never
// modified; writers store an extended copy through the view's UpdateMemo.
type viewMemo struct {
	chains []int32 // chain ids, parallel to sels
	sels   []*selection
	// more holds the selections beyond the first maxMemoScan chains; it
	// is shared by all later copies.
	more *sync.Map // chain id -> *selection

	attrs   []int32 // attribute ids, parallel to classes
	classes []*attrClasses

	// sweep is the matcher's eviction count when the chains were last
	// checked: after an eviction, the next extension drops the
	// selections of evicted chains.
	sweep uint64
}

// maxMemoScan bounds the chains a lookup scans; a view asked about more
// chains keeps the rest in a map.
const maxMemoScan = 32

func memoOf(v *inventory.NodeView) *viewMemo { return asViewMemo(v.Memo()) }

// asViewMemo is a view's memo as the allocator stores it (nil at first).
func asViewMemo(memo any) *viewMemo {
	m, _ := memo.(*viewMemo)
	return m
}

// selection returns the chain's selection, or nil.
func (m *viewMemo) selection(chain int) *selection {
	if m == nil {
		return nil
	}
	if i := slices.Index(m.chains, int32(chain)); i >= 0 {
		return m.sels[i]
	}
	if m.more != nil {
		if s, ok := m.more.Load(chain); ok {
			return s.(*selection)
		}
	}
	return nil
}

// withSelection returns the memo extended by a chain's selection, without
// the selections of chains mt evicted since the memo was last checked.
func (m *viewMemo) withSelection(mt *Matcher, chain int, s *selection) *viewMemo {
	out := m.liveCopy(mt)
	if len(out.chains) >= maxMemoScan {
		if out.more == nil {
			out.more = &sync.Map{}
		}
		out.more.Store(chain, s)
		return out
	}
	out.chains = append(slices.Clip(out.chains), int32(chain))
	out.sels = append(slices.Clip(out.sels), s)
	return out
}

// liveCopy returns a copy of the memo to extend, without the selections
// of evicted chains if mt evicted any since the memo was last checked.
func (m *viewMemo) liveCopy(mt *Matcher) *viewMemo {
	sweep := mt.sweeps.Load()
	if m == nil {
		return &viewMemo{sweep: sweep}
	}
	out := &viewMemo{}
	*out = *m
	if out.sweep == sweep {
		return out
	}
	out.sweep = sweep
	out.chains, out.sels = nil, nil
	for i, chain := range m.chains {
		if mt.isLiveChain(int(chain)) {
			out.chains = append(out.chains, chain)
			out.sels = append(out.sels, m.sels[i])
		}
	}
	if m.more != nil {
		out.more = &sync.Map{}
		m.more.Range(func(chain, s any) bool {
			if mt.isLiveChain(chain.(int)) {
				out.more.Store(chain, s)
			}
			return true
		})
	}
	return out
}

// attrClasses returns the value classes of an attribute, or nil.
func (m *viewMemo) attrClasses(attr int) *attrClasses {
	if m == nil {
		return nil
	}
	if i := slices.Index(m.attrs, int32(attr)); i >= 0 {
		return m.classes[i]
	}
	return nil
}

// withClasses returns the memo extended by an attribute's classes.
func (m *viewMemo) withClasses(attr int, cl *attrClasses) *viewMemo {
	out := &viewMemo{}
	if m != nil {
		*out = *m
	}
	out.attrs = append(slices.Clip(out.attrs), int32(attr))
	out.classes = append(slices.Clip(out.classes), cl)
	return out
}
