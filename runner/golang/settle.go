package golang

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"
)

// A root that a pass restored from its memo (graph.go: nodeMemo) has its
// earlier check's results, which are right, and its earlier check's types,
// which were built against its imports as they were then. When an import
// was checked again meanwhile (its text is new, though it looks the same to
// importers), the next pass that checks a package importing the restored
// root must first check the root again, and what imports it, for types
// that agree: on go-toml, an edit of the external test file after an undone
// rename in internal/characters checked three packages instead of one.
//
// settle does that work after such a pass, in the background, while the
// editor waits for the next keystroke: it checks again every node of the
// snapshot that is not consistent with its imports, and commits. The next
// Analyze call, of any package, cancels it (a node being checked finishes
// first); what it had not committed is done again by the pass that needs
// it, as before.

// startSettle starts settling every state whose last pass left its
// snapshot unsettled, st's (which its caller has just analysed) and those
// of other states whose settling a pass of another package cancelled
// before it was done. st is locked by the caller, which unlocks it after;
// each settling waits for its state's lock.
func (a *Analyzer) startSettle(st *pkgState) {
	unsettled := st.snap != nil && st.snap.unsettled
	a.mu.Lock()
	defer a.mu.Unlock()
	if unsettled {
		a.unsettled[st] = true
	} else {
		delete(a.unsettled, st)
	}
	if a.noSettle {
		return
	}
	for u := range a.unsettled {
		if a.settling[u] == nil {
			a.startSettleLocked(u)
		}
	}
}

// startSettleLocked starts settling u in the background (a.mu is held).
func (a *Analyzer) startSettleLocked(u *pkgState) {
	ctx, cancel := context.WithCancel(context.Background())
	me := &settling{stop: cancel}
	a.settling[u] = me
	go func() {
		defer func() {
			a.mu.Lock()
			cancel()
			if a.settling[u] == me {
				delete(a.settling, u)
			}
			a.mu.Unlock()
		}()
		if a.settle(ctx, u) {
			a.mu.Lock()
			delete(a.unsettled, u)
			a.mu.Unlock()
		}
	}()
}

// settling is one state's settling, running or waiting for the state.
type settling struct {
	stop context.CancelFunc
}

// stopSettling cancels every settling that runs or waits: it is background
// work, and a pass of any package comes first.
func (a *Analyzer) stopSettling() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for st, sg := range a.settling {
		sg.stop()
		delete(a.settling, st)
	}
}

// settle checks again the nodes of st's snapshot that are not consistent
// with their imports, unless ctx ends first. It reports whether the
// snapshot is settled (or gone) when it returns.
func (a *Analyzer) settle(ctx context.Context, st *pkgState) bool {
	if err := st.lock(ctx); err != nil {
		return false
	}
	defer st.unlock()
	s := st.snap
	if s == nil || !s.unsettled {
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	t0 := time.Now()
	ps := s.newPass(a, readOverlay(s.overlay))
	// Like a pass, it holds the collector back and has its garbage
	// collected when it ends, not in the next pass.
	ps.mem = claimPass(0)
	defer ps.mem.release()
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				a.log.Error("settling panicked", "dir", st.dir, "panic", r, "stack", string(debug.Stack()))
				st.snap = nil // the next call loads the package again
				err = fmt.Errorf("internal error: %v", r)
			}
		}()
		for _, n := range s.deferred {
			if why := ps.gatherNode(n, s.overlay, nil); why != "" {
				a.log.Debug("settling: a provisional dependency is left to the next pass", "package", n.spec.path, "why", why)
				continue
			}
			if ps.changed[n] && ps.up[n] == nil {
				if err := ps.recheck(ctx, n); err != nil {
					return err
				}
			}
		}
		for _, n := range s.nodes {
			if err := ps.ensureConsistent(ctx, n); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		ps.discard()
		a.log.Debug("settle pass stopped", "dir", st.dir, "checked", len(ps.rechecked), "error", err)
		return st.snap == nil
	}
	s.unsettled, s.overlay, s.deferred = false, nil, nil
	if len(ps.rechecked) == 0 {
		ps.discard()
		return true
	}
	// The roots' alerts were made again: the result kept for a call with
	// unchanged inputs is made again from them.
	var res *Result
	if s.result != nil {
		res = ps.result(s.resultFile, nil)
	}
	ps.commit()
	s.result = res
	a.nodesSettled.Add(int64(len(ps.rechecked)))
	a.log.Debug("settle pass", "dir", st.dir, "checked", len(ps.rechecked), "nodes", ps.rechecked, "total", time.Since(t0))
	return true
}
