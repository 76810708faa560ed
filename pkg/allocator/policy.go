package allocator

// Policy chooses among valid allocations.
type Policy string

const (
	// FirstFit takes the first valid allocation in upstream's search
	// order: exactly what upstream's allocator returns.
	FirstFit Policy = "FirstFit"
)
