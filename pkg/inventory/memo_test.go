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

package inventory

import (
	"sync"
	"testing"
)

func TestNodeViewMemo(t *testing.T) {
	newView := func(t *testing.T) *NodeView {
		inv := New()
		inv.Set(onNode(slice("s", "d", "n", 1, 1, "a"), "n"))
		v, err := inv.View(node("n"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	type memo struct{ n int }

	t.Run("a new view has no memo", func(t *testing.T) {
		if m := newView(t).Memo(); m != nil {
			t.Errorf("Memo() = %v, want nil", m)
		}
	})
	t.Run("what UpdateMemo returns is stored and handed to the next update", func(t *testing.T) {
		v := newView(t)
		v.UpdateMemo(func(cur any) any { return &memo{1} })
		var seen any
		v.UpdateMemo(func(cur any) any { seen = cur; return &memo{cur.(*memo).n + 1} })
		if seen.(*memo).n != 1 {
			t.Errorf("the second update saw %v, want the first one's value", seen)
		}
		if got := v.Memo().(*memo).n; got != 2 {
			t.Errorf("Memo() = %d, want 2", got)
		}
	})
	t.Run("returning nil or the current value keeps the memo", func(t *testing.T) {
		v := newView(t)
		first := &memo{1}
		v.UpdateMemo(func(any) any { return first })
		v.UpdateMemo(func(any) any { return nil })
		v.UpdateMemo(func(cur any) any { return cur })
		if v.Memo() != first {
			t.Errorf("Memo() = %v, want the first value kept", v.Memo())
		}
	})
	t.Run("concurrent updates do not lose each other's values", func(t *testing.T) {
		v := newView(t)
		const writers, each = 8, 200
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				for range each {
					v.UpdateMemo(func(cur any) any {
						if cur == nil {
							return &memo{1}
						}
						return &memo{cur.(*memo).n + 1}
					})
					_ = v.Memo() // readers never wait
				}
			})
		}
		wg.Wait()
		if got := v.Memo().(*memo).n; got != writers*each {
			t.Errorf("after %d updates the memo counts %d", writers*each, got)
		}
	})
}
