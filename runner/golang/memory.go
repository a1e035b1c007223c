package golang

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
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
	// holding counts the active claims that hold the collector back
	// (incremental passes); savedPercent is the GOGC before the first.
	holding      int
	savedPercent int
	// heldAllocs is what the heap had allocated, in all, when the first
	// active claim began holding the collector back.
	heldAllocs uint64
	// floor is the start floor's state (see holdToFloor): while on, the
	// collector is off (GOGC=-1) under a limit of at most heapFloor, and
	// floorPercent and floorLimit are the GOGC and the limit from before.
	floor        bool
	floorGen     int
	floorPercent int
	floorLimit   int64
}

// heapFloor is how large the heap of a process that starts a full load with
// a small heap may grow before the first collection (see holdToFloor).
const heapFloor = 64 << 20

// idleCollectMin is the least that passes must have allocated while they
// held the collector back for the garbage to be collected when they end: a
// pass that checked nothing (a document analysed again unchanged) leaves
// too little to pay for a collection beside the next pass.
const idleCollectMin = 8 << 20

// A memClaim is one load's share of the limit.
type memClaim struct {
	need int64 // bytes that the packages being checked need, beyond what is live
	hold bool  // the collector waits for the limit while this claim is active
}

// An incremental pass allocates about this much per byte of the source it
// checks (parse, types.Info, inspectors, IR, diagnostics: 18 MB for the 60
// KB of testdata/benchpkg, 40 MB for the 130 KB of go-toml's root package),
// nearly all of it garbage when the pass ends.
const passAllocPerSourceByte = 320

// passRoom is the least room beyond what is in use that the passes
// running at a time share while they hold the collector back (see
// applyLimitLocked).
const passRoom = 96 << 20

// passGC selects how incremental passes treat the collector; tests and
// benchmarks compare the modes.
var passGC = gcHoldIdle

const (
	// gcDefault leaves the collector alone (GOGC as configured).
	gcDefault = iota
	// gcHold turns the collector off while a pass runs, under a soft
	// memory limit of what is in use plus what the pass is expected to
	// allocate (claimPass): a pass that allocates what it was expected to
	// runs without a collection, one that allocates more is collected at
	// the limit. When the last pass ends, GOGC is restored.
	gcHold
	// gcHoldIdle is gcHold, and when the last pass ends, the garbage it
	// left is collected at once, in the background, while the editor
	// waits for the next keystroke, rather than in the next pass.
	gcHoldIdle
)

// collecting is set while a background collection runs; idleCollections
// counts those that passes started.
var (
	collecting      atomic.Bool
	idleCollections atomic.Int64
)

// claimPass registers an incremental pass that expects to allocate alloc
// bytes; call set as the estimate changes and release when it ends.
func claimPass(alloc int64) *memClaim {
	if passGC != gcHold && passGC != gcHoldIdle {
		return nil
	}
	c := &memClaim{need: alloc, hold: true}
	memBudget.mu.Lock()
	defer memBudget.mu.Unlock()
	if len(memBudget.active) == 0 {
		memBudget.active = make(map[*memClaim]bool)
		memBudget.saved = userLimitLocked()
	}
	if memBudget.holding == 0 {
		memBudget.savedPercent = debug.SetGCPercent(-1)
		if memBudget.floor {
			memBudget.savedPercent = memBudget.floorPercent
		}
		memBudget.heldAllocs = heapAllocs()
	}
	memBudget.holding++
	memBudget.active[c] = true
	applyLimitLocked()
	return c
}

// claimMemory registers a load; call set as its needs change and release
// when it ends.
func claimMemory() *memClaim {
	c := &memClaim{}
	memBudget.mu.Lock()
	defer memBudget.mu.Unlock()
	if len(memBudget.active) == 0 {
		memBudget.active = make(map[*memClaim]bool)
		memBudget.saved = userLimitLocked()
	}
	memBudget.active[c] = true
	applyLimitLocked()
	return c
}

// set records that the load now needs need bytes beyond what is live.
func (c *memClaim) set(need int64) {
	if c == nil {
		return
	}
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
	if c == nil {
		return
	}
	memBudget.mu.Lock()
	defer memBudget.mu.Unlock()
	if !memBudget.active[c] {
		return
	}
	delete(memBudget.active, c)
	if c.hold {
		memBudget.holding--
		if memBudget.holding == 0 {
			if !memBudget.floor {
				debug.SetGCPercent(memBudget.savedPercent)
			}
			if passGC == gcHoldIdle && heapAllocs()-memBudget.heldAllocs >= idleCollectMin && collecting.CompareAndSwap(false, true) {
				idleCollections.Add(1)
				go func() {
					runtime.GC()
					collecting.Store(false)
				}()
			}
		}
	}
	if len(memBudget.active) == 0 {
		setLimitLocked(memBudget.saved)
		return
	}
	applyLimitLocked()
}

// holdToFloor turns the collector off, in a process whose heap is still
// small, until the heap reaches heapFloor or end is called, whichever
// comes first; otherwise it does nothing. A new server's first full load
// otherwise collects a dozen times while its heap grows from a few MB to
// the size it keeps (the collector's pacing starts at a 4 MB heap), each
// collection taking a share of the two or so cores that the load is
// using; the heap that the load reaches is larger than heapFloor anyway.
func holdToFloor() (end func()) {
	memBudget.mu.Lock()
	defer memBudget.mu.Unlock()
	if memBudget.floor || runtimeCounter("/memory/classes/heap/objects:bytes") > heapFloor/2 {
		return func() {}
	}
	memBudget.floorGen++
	gen := memBudget.floorGen
	memBudget.floor = true
	memBudget.floorPercent = debug.SetGCPercent(-1)
	memBudget.floorLimit = debug.SetMemoryLimit(-1)
	if memBudget.holding > 0 {
		memBudget.floorPercent = memBudget.savedPercent
	}
	if len(memBudget.active) > 0 {
		memBudget.floorLimit = memBudget.saved
		applyLimitLocked()
	} else {
		setLimitLocked(memBudget.floorLimit)
	}
	// The first collection, at the floor, ends it.
	runtime.SetFinalizer(&floorSentinel{}, func(*floorSentinel) { endFloor(gen) })
	return func() { endFloor(gen) }
}

// A floorSentinel is garbage from the start: its finalizer runs after the
// first collection.
type floorSentinel struct {
	_ [32]byte
	_ *int
}

// endFloor ends the floor that holdToFloor began as generation gen, if it
// is still on: the collector's pacing and the limit come back.
func endFloor(gen int) {
	memBudget.mu.Lock()
	defer memBudget.mu.Unlock()
	if !memBudget.floor || memBudget.floorGen != gen {
		return
	}
	memBudget.floor = false
	if memBudget.holding == 0 {
		debug.SetGCPercent(memBudget.floorPercent)
	}
	if len(memBudget.active) == 0 {
		debug.SetMemoryLimit(memBudget.floorLimit)
		return
	}
	applyLimitLocked()
}

// userLimitLocked returns the memory limit that is in force apart from the
// floor's.
func userLimitLocked() int64 {
	if memBudget.floor {
		return memBudget.floorLimit
	}
	return debug.SetMemoryLimit(-1)
}

// setLimitLocked sets the memory limit to limit, or to the floor's if that
// is lower and the floor is on.
func setLimitLocked(limit int64) {
	if memBudget.floor {
		limit = min(limit, heapFloor)
	}
	debug.SetMemoryLimit(limit)
}

// applyLimitLocked sets the limit to what is in use, by the live heap as of
// the last collection and by everything but the heap, plus every active
// load's need and headroom.
//
// A load's claim that needs nothing (it decodes dependencies from the
// cache, or analyses the package itself) sets no limit: the collector's
// pacing (GOGC) then keeps the heap within about twice what is live,
// which for those phases costs less time than collecting at a limit just
// above it (a warm open of go-toml: 0.6 s instead of 0.75 s, with 15
// collections instead of 20), and needs no more memory than the server
// has at other times.
func applyLimitLocked() {
	needed := false
	for c := range memBudget.active {
		if c.need > 0 || c.hold {
			needed = true
		}
	}
	if !needed {
		setLimitLocked(memBudget.saved)
		return
	}
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
	var held int64
	for c := range memBudget.active {
		switch {
		case c.hold:
			held += c.need + memHeadroom
		case c.need > 0:
			limit += c.need + memHeadroom
		}
	}
	if memBudget.holding > 0 {
		// The space left in the heap's spans, which an earlier peak left
		// in use and mostly empty, counts towards the limit too, and a
		// pass allocates into it first. Leaving it out starts the pass at
		// its limit: the collector then runs again and again during the
		// pass, each cycle scanning the whole live heap (on client_golang,
		// a check of a test variant took 10x as long so). Garbage is not
		// counted: the claims stand for what passes allocate.
		limit += v(5)
		// The passes that run at a time (an edited package's and its open
		// dependents') share one room, as large as the live heap (what
		// GOGC=100 would give them) and at least passRoom, which most
		// single passes need no more than (cobra's largest file edit
		// allocates about 95 MB): beyond it, a collection during the pass
		// costs less than the memory. Without the bound the room was the
		// sum of their claims, and they kept all their garbage until the
		// last one ended: on client_golang an exported rename's five
		// passes took the heap to 3.5x what was live, and on cobra one
		// pass to 12x. The free spans that an earlier peak left mapped are
		// room too, which costs no more memory, but not room on top of
		// the passes': adding both let every pass grow the server's memory
		// by its room again above the last peak.
		held = max(min(held, max(passRoom, v(0))), v(3))
	}
	setLimitLocked(min(limit+held, memBudget.saved))
}

// heapAllocs is what the heap has allocated since the process started.
func heapAllocs() uint64 { return runtimeCounter("/gc/heap/allocs:bytes") }

// gcCycles is the number of collections the process has completed.
func gcCycles() uint64 { return runtimeCounter("/gc/cycles/total:gc-cycles") }

// runtimeCounter reads one of the runtime's cumulative metrics.
func runtimeCounter(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
