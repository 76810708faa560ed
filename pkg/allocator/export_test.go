package allocator

import (
	"fmt"
	"slices"
)

// MaxActivations is how many devices' CEL inputs a Matcher keeps.
const MaxActivations = maxActivations

// DiffStates describes how two States differ ("" if they are equal): the
// allocated, shared and aggregated-capacity entries per device index.
func DiffStates(a, b *State) string {
	switch {
	case !a.dedicated.Equal(b.dedicated):
		return fmt.Sprintf("dedicated devices differ: %v vs %v", slices.Collect(a.dedicated.All()), slices.Collect(b.dedicated.All()))
	case !a.shared.Equal(b.shared):
		return fmt.Sprintf("shared devices differ: %v vs %v", slices.Collect(a.shared.All()), slices.Collect(b.shared.All()))
	case len(a.aggregated) != len(b.aggregated):
		return fmt.Sprintf("aggregated capacity for %d vs %d devices", len(a.aggregated), len(b.aggregated))
	}
	for i, ca := range a.aggregated {
		cb, ok := b.aggregated[i]
		if !ok || len(ca) != len(cb) {
			return fmt.Sprintf("aggregated capacity of device %d: %v vs %v", i, ca, cb)
		}
		for name, q := range ca {
			if cb[name] == nil || q.Cmp(*cb[name]) != 0 {
				return fmt.Sprintf("aggregated capacity %s of device %d: %v vs %v", name, i, q, cb[name])
			}
		}
	}
	return ""
}
