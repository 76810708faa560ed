package allocator

import "sync/atomic"

// counter is a monotonically increasing statistic.
type counter struct{ v atomic.Int64 }

func (c *counter) add(n int64) { c.v.Add(n) }
func (c *counter) load() int64 { return c.v.Load() }
