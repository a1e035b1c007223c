package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/rules"
	"github.com/fixloop/fixloop/toolset"
)

// An agent's checks of one file within one connection are the rounds of
// one session: the first call starts it (the file on disk is its
// original, checked once), each call's candidate is the next round's,
// and it ends, and is saved to the store, when a round is accepted, when
// its rounds run out, when the file on disk changes (the agent wrote its
// edit), when a call is cancelled, or when the client goes. The next call
// then starts a new session.

// sessionKey names an agent session: the connection and the file.
type sessionKey struct {
	conn *mcp.ServerSession
	file string
}

// agentSession is one running refactor.Run whose provider answers with
// the candidates of tool calls.
type agentSession struct {
	id       string
	original string
	// next hands a call's candidate to the provider.
	next chan *roundCall
	// ready is closed once the baseline is checked (goal and baseline
	// set, or err).
	ready    chan struct{}
	goal     refactor.Goal
	baseline *refactor.Check
	// rounds caps the session, as the configuration caps the editor's
	// (rounds.repair, rounds.refactor); a call after the cap starts a
	// new session.
	rounds int
	// done is closed when the session has ended (err or rec set).
	done   chan struct{}
	rec    *refactor.Record
	err    error
	cancel context.CancelFunc
	// ended is closed to end the session after its current round.
	ended   chan struct{}
	endOnce sync.Once

	mu      sync.Mutex
	current *roundCall
}

// roundCall is one tool call's candidate and where its round goes.
type roundCall struct {
	content string
	round   chan refactor.Round // buffered: one round
}

func (a *agentSession) end() { a.endOnce.Do(func() { close(a.ended) }) }

// agentProvider answers a session's rounds with the agents' candidates.
// It is not deterministic: a candidate is code no one has read, so it runs
// only where the sandbox confines it (or under `sandbox: none`).
type agentProvider struct {
	client string
	s      *agentSession
}

func (p *agentProvider) Name() string  { return aggregate.AgentProvider }
func (p *agentProvider) Model() string { return p.client }

func (p *agentProvider) Complete(ctx context.Context, req model.Request, progress model.Progress) (model.Reply, error) {
	select {
	case c := <-p.s.next:
		p.s.mu.Lock()
		p.s.current = c
		p.s.mu.Unlock()
		content := rules.CodeBlock(req.Language, c.content)
		if progress != nil {
			progress(utf8.RuneCountInString(content))
		}
		return model.Reply{Content: content, Model: p.client}, nil
	case <-p.s.ended:
		return model.Reply{}, &model.Error{Kind: model.ErrEnded, Msg: "the agent moved on"}
	case <-ctx.Done():
		return model.Reply{}, ctx.Err()
	}
}

// roundDone hands a checked round to the call whose candidate it was.
func (a *agentSession) roundDone(rd *refactor.Round) {
	a.mu.Lock()
	c := a.current
	a.current = nil
	a.mu.Unlock()
	if c != nil {
		c.round <- *rd
	}
}

// agentSession returns the running session of the connection for f,
// starting one when there is none or the file on disk is no longer its
// original (which ends the old one).
func (s *Server) agentSession(conn *mcp.ServerSession, client, full string, f *file, original string) (*agentSession, error) {
	key := sessionKey{conn: conn, file: f.abs}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("the server is closing")
	}
	if a := s.sessions[key]; a != nil {
		select {
		case <-a.done:
		default:
			if a.original == original {
				return a, nil
			}
			a.end()
		}
		delete(s.sessions, key)
	}
	if conn != nil && !s.conns[conn] {
		s.conns[conn] = true
		go func() {
			_ = conn.Wait()
			s.endConn(conn)
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &agentSession{
		id: newID(), original: original, next: make(chan *roundCall), ready: make(chan struct{}),
		done: make(chan struct{}), ended: make(chan struct{}), cancel: cancel,
	}
	s.sessions[key] = a
	s.running.Add(1)
	go s.runAgentSession(f.context(ctx), a, client, full, f)
	return a, nil
}

// runAgentSession checks the baseline, runs the session, and records it.
func (s *Server) runAgentSession(ctx context.Context, a *agentSession, client, full string, f *file) {
	defer s.running.Done()
	defer close(a.done)
	defer a.cancel()
	checker := s.checker(f)
	baseline, err := checker.CheckOriginal(ctx, f.abs, a.original)
	if err == nil {
		a.baseline = baseline
		a.goal, err = refactor.ChooseGoal("", baseline)
		a.rounds = f.rounds(a.goal)
	}
	a.err = err
	close(a.ready)
	if err != nil {
		return
	}
	tools := toolset.SessionTools(s.opts.Tools, f.cfg, f.abs)
	if tools == nil {
		tools = map[string]string{}
	}
	tools[aggregate.AgentProvider] = full
	rec, err := refactor.Run(ctx, f.abs, a.original, refactor.Options{
		Goal: a.goal, Rounds: a.rounds, Provider: &agentProvider{client: client, s: a}, Checker: checker,
		Baseline: baseline, AskAlways: true, Tools: tools, Logger: s.logger, ID: a.id,
		// The agent writes its own edit and is told its candidate's
		// measures: no search for a part of it to offer, which would
		// only delay the answer. The stuck rules are the configuration's.
		Minimize: refactor.Minimize{Off: true}, Stuck: toolset.Stuck(f.cfg),
		Observer: refactor.Observer{RoundDone: a.roundDone},
	})
	a.rec, a.err = rec, err
	if rec != nil && len(rec.Rounds) > 0 {
		s.record(rec, f.cfg)
	}
}

// endConn ends the sessions of a connection that closed.
func (s *Server) endConn(conn *mcp.ServerSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, conn)
	for key, a := range s.sessions {
		if key.conn == conn {
			a.end()
			delete(s.sessions, key)
		}
	}
}

// endSessions ends every session and waits (up to limit) for them to be
// recorded.
func (s *Server) endSessions(limit time.Duration) {
	s.mu.Lock()
	s.closed = true
	for key, a := range s.sessions {
		a.end()
		delete(s.sessions, key)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		s.logger.Warn("agent sessions still running at exit")
	}
}

// newID returns a random session id.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
