package checks

import (
	"context"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/runner"
)

// published records what a Scheduler publishes.
type published struct {
	mu  sync.Mutex
	got []*protocol.PublishDiagnosticsParams
}

func (p *published) publish(_ context.Context, params *protocol.PublishDiagnosticsParams) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, params)
	return nil
}

func (p *published) all() []*protocol.PublishDiagnosticsParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*protocol.PublishDiagnosticsParams(nil), p.got...)
}

func diagnostic(_ *docstore.Document, a runner.Alert) protocol.Diagnostic {
	return protocol.Diagnostic{
		Range:  protocol.Range{Start: protocol.Position{Line: uint32(a.Line - 1)}},
		Source: protocol.NewOptional(a.Source),
	}
}

const docURI = uri.URI("file:///w/a.go")

func setup(t *testing.T) (*Scheduler, *docstore.Store, *published) {
	t.Helper()
	store, pub := docstore.NewStore(), &published{}
	c := New(Options{Store: store, Publish: pub.publish, Diagnostic: diagnostic, Limit: 2})
	t.Cleanup(c.Close)
	return c, store, pub
}

func open(t *testing.T, store *docstore.Store, text string) *docstore.Document {
	t.Helper()
	doc, err := store.Open(protocol.TextDocumentItem{URI: docURI, LanguageID: "go", Version: 1, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func change(t *testing.T, store *docstore.Store, version int32, text string) *docstore.Document {
	t.Helper()
	doc, err := store.Change(docURI, version, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestSetLintKeepsOnlyTheOpenSnapshot(t *testing.T) {
	c, store, _ := setup(t)
	old := open(t, store, "a")
	c.Track(docURI)
	cur := change(t, store, 2, "b")
	alerts := []runner.Alert{{Line: 1, Message: "m"}}

	c.SetLint(old, alerts)
	if doc, _ := c.Latest(docURI); doc != nil {
		t.Errorf("the results of an old snapshot were kept")
	}
	c.SetLint(cur, alerts)
	if doc, got := c.Latest(docURI); doc != cur || len(got) != 1 {
		t.Errorf("Latest = %v, %v; want the current snapshot's alert", doc, got)
	}
	if !c.Current(docURI, cur) || c.Current(docURI, old) {
		t.Errorf("Current disagrees with the snapshot the results belong to")
	}
}

func TestWaitForTheCurrentSnapshot(t *testing.T) {
	c, store, _ := setup(t)
	doc := open(t, store, "a")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, ok := c.Wait(ctx, docURI); ok {
		t.Errorf("Wait on an untracked document succeeded")
	}

	c.Track(docURI)
	type result struct {
		doc *docstore.Document
		ok  bool
	}
	done := make(chan result)
	go func() {
		d, _, ok := c.Wait(context.Background(), docURI)
		done <- result{d, ok}
	}()
	c.SetLint(doc, nil)
	if r := <-done; !r.ok || r.doc != doc {
		t.Errorf("Wait = %v, %v; want the snapshot linted", r.doc, r.ok)
	}
}

func TestPublish(t *testing.T) {
	compiler := func(line int) runner.Alert { return runner.Alert{Line: line, Source: "compiler", Message: "build"} }
	testDiag := func(line uint32, source string) protocol.Diagnostic {
		return protocol.Diagnostic{Range: protocol.Range{Start: protocol.Position{Line: line}}, Source: protocol.NewOptional(source)}
	}
	tests := []struct {
		name      string
		lint      []runner.Alert
		tests     []protocol.Diagnostic
		outOfSync bool
		want      int // diagnostics published; -1: an unversioned clear
	}{
		{"lint and tests", []runner.Alert{{Line: 1}}, []protocol.Diagnostic{testDiag(4, "go test")}, false, 2},
		{"a build error reported once", []runner.Alert{compiler(3)}, []protocol.Diagnostic{testDiag(2, "compiler")}, false, 1},
		{"build errors on other lines kept", []runner.Alert{compiler(3)}, []protocol.Diagnostic{testDiag(5, "compiler")}, false, 2},
		{"out of sync: cleared", []runner.Alert{{Line: 1}}, nil, true, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, store, pub := setup(t)
			doc := open(t, store, "text")
			c.Track(docURI)
			c.SetLint(doc, tt.lint)
			c.SetTests(docURI, tt.tests)
			if tt.outOfSync {
				store.Reject(docURI, "unreadable")
			}
			c.Publish(context.Background(), docURI)
			got := pub.all()
			if len(got) != 1 {
				t.Fatalf("%d publications, want 1", len(got))
			}
			if tt.want < 0 {
				if len(got[0].Diagnostics) != 0 || !got[0].Version.IsZero() {
					t.Errorf("published %+v, want an unversioned clear", got[0])
				}
				return
			}
			if v, _ := got[0].Version.Get(); v != 1 || len(got[0].Diagnostics) != tt.want {
				t.Errorf("published version %d with %d diagnostics, want version 1 with %d", v, len(got[0].Diagnostics), tt.want)
			}
		})
	}
}

func TestPublishWaitsForTheCurrentSnapshot(t *testing.T) {
	c, store, pub := setup(t)
	old := open(t, store, "a")
	c.Track(docURI)
	c.SetLint(old, nil)
	change(t, store, 2, "b")
	c.Publish(context.Background(), docURI)
	if got := pub.all(); len(got) != 0 {
		t.Errorf("published the results of an older snapshot: %+v", got)
	}
}

func TestForget(t *testing.T) {
	c, store, pub := setup(t)
	doc := open(t, store, "a")
	c.Track(docURI)
	c.SetLint(doc, []runner.Alert{{Line: 1}})
	if !c.NoticeOnce(docURI, 1) || c.NoticeOnce(docURI, 1) || !c.NoticeOnce(docURI, 2) {
		t.Errorf("NoticeOnce does not give each notice exactly once")
	}
	c.Forget(context.Background(), docURI)
	if d, _ := c.Latest(docURI); d != nil {
		t.Errorf("results kept after Forget")
	}
	if c.NoticeOnce(docURI, 4) {
		t.Errorf("a notice for a forgotten document")
	}
	if got := pub.all(); len(got) != 1 || len(got[0].Diagnostics) != 0 {
		t.Errorf("Forget published %+v, want one clear", got)
	}
}

func TestPassesRunAndCount(t *testing.T) {
	c, _, _ := setup(t)
	lint, tests := make(chan struct{}), make(chan struct{})
	c.Lint(context.Background(), docURI, 0, true, func(context.Context) { c.LintDone(); close(lint) })
	c.Test(context.Background(), docURI, false, func(context.Context) { c.TestDone(); close(tests) })
	<-lint
	<-tests
	c.Close() // waits for both to return
	if st := c.Stats(); st.LintPasses != 1 || st.TestPasses != 1 || st.Passes != st.Lint || st.Tests != st.Lint {
		t.Errorf("Stats = %+v, want one pass of each and nothing left", st)
	}
}
