package golang

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Checking a dependency from source needs memory in proportion to its
// size: its syntax, types.Info, control-flow graphs and IR live together
// while its facts are computed (about 40 bytes per byte of source; 105 MB
// for the 2.7 MB of package runtime). With the collector's default pacing
// (GOGC=100) the heap may grow to twice what is live before it collects,
// so that a load whose live heap peaks at 120 MB takes 250 MB of memory
// from the OS. A full load therefore sets a soft memory limit
// (debug.SetMemoryLimit) of what the process has live plus what the
// packages being checked need, with a margin, and updates it as it goes:
// the collector works harder while big packages are checked, and not at
// all otherwise. The limit is process-wide; concurrent loads add up their
// needs, and when the last load ends, the limit that was in force before
// the first one began is restored (a limit that something else set in the
// meantime is overwritten). The limit never rises above that earlier
// limit, so a GOMEMLIMIT set by the user still applies.

// Memory that a package's check needs beyond what is live: per byte of
// source, and in any case.
const (
	memPerSourceByte = 48
	memHeadroom      = 24 << 20
)

// memBudget is the process-wide state of the limit.
var memBudget struct {
	mu     sync.Mutex
	active map[*memClaim]bool
	saved  int64 // the limit before the first active load
}

// A memClaim is one load's share of the limit.
type memClaim struct {
	need int64 // bytes that the packages being checked need, beyond what is live
}

// claimMemory registers a load; call set as its needs change and release
// when it ends.
func claimMemory() *memClaim {
	c := &memClaim{}
	memBudget.mu.Lock()
	defer memBudget.mu.Unlock()
	if len(memBudget.active) == 0 {
		memBudget.active = make(map[*memClaim]bool)
		memBudget.saved = debug.SetMemoryLimit(-1)
	}
	memBudget.active[c] = true
	applyLimitLocked()
	return c
}

// set records that the load now needs need bytes beyond what is live.
func (c *memClaim) set(need int64) {
	memBudget.mu.Lock()
	defer memBudget.mu.Unlock()
	if !memBudget.active[c] {
		return
	}
	c.need = need
	applyLimitLocked()
}

// release ends the claim; the last one restores the earlier limit.
func (c *memClaim) release() {
	memBudget.mu.Lock()
	defer memBudget.mu.Unlock()
	if !memBudget.active[c] {
		return
	}
	delete(memBudget.active, c)
	if len(memBudget.active) == 0 {
		debug.SetMemoryLimit(memBudget.saved)
		return
	}
	applyLimitLocked()
}

// applyLimitLocked sets the limit to what is in use, by the live heap as of
// the last collection and by everything but the heap, plus every active
// load's need and headroom.
func applyLimitLocked() {
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
	}
	metrics.Read(s)
	v := func(i int) int64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(min(s[i].Value.Uint64(), math.MaxInt64))
	}
	nonHeap := v(1) - v(2) - v(3) - v(4) - v(5)
	limit := v(0) + max(nonHeap, 0)
	for c := range memBudget.active {
		limit += c.need + memHeadroom
	}
	debug.SetMemoryLimit(min(limit, memBudget.saved))
}
