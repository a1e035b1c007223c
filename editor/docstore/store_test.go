package docstore

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const testURI = uri.URI("file:///tmp/main.go")

func openStore(t *testing.T, text string) *Store {
	t.Helper()
	s := NewStore()
	if _, err := s.Open(protocol.TextDocumentItem{URI: testURI, LanguageID: "go", Version: 1, Text: text}); err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func edit(sl, sc, el, ec uint32, text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangePartial{
		Range: protocol.Range{Start: pos(sl, sc), End: pos(el, ec)},
		Text:  text,
	}
}

func whole(text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangeWholeDocument{Text: text}
}

func changes(evs ...protocol.TextDocumentContentChangeEvent) []protocol.TextDocumentContentChangeEvent {
	return evs
}

func TestOpenGet(t *testing.T) {
	s := openStore(t, "package main\n")
	d, ok := s.Get(testURI)
	if !ok {
		t.Fatal("Get: not found")
	}
	if d.URI != testURI || d.Path != "/tmp/main.go" || d.LanguageID != "go" || d.Version != 1 || string(d.Text) != "package main\n" || d.Encoding() != UTF16 {
		t.Errorf("unexpected snapshot %+v", d)
	}
	if _, ok := s.Get("file:///tmp/other.go"); ok {
		t.Error("Get of unopened document succeeded")
	}
	// Re-open replaces, whatever the version.
	if _, err := s.Open(protocol.TextDocumentItem{URI: testURI, LanguageID: "go", Version: 0, Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.Get(testURI); d.Version != 0 || string(d.Text) != "x" {
		t.Errorf("re-open: got version %d text %q", d.Version, d.Text)
	}
	if _, err := s.Open(protocol.TextDocumentItem{}); !errors.Is(err, ErrInvalidURI) {
		t.Errorf("Open with empty URI: err = %v, want ErrInvalidURI", err)
	}
}

func TestURIsAreCanonicalised(t *testing.T) {
	s := NewStore()
	if _, err := s.Open(protocol.TextDocumentItem{URI: "file:///C:/x.go", Version: 1, Text: "x"}); err != nil {
		t.Fatal(err)
	}
	d, ok := s.Get("file:///c%3A/x.go")
	if !ok {
		t.Fatal("Get with the canonical spelling failed")
	}
	if d.URI != "file:///c%3A/x.go" {
		t.Errorf("URI = %q, want canonical form", d.URI)
	}
	if _, err := s.Change("file:///C:/x.go", 2, changes(whole("y"))); err != nil {
		t.Errorf("Change with the original spelling: %v", err)
	}
}

func TestChange(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		enc     Encoding
		changes []protocol.TextDocumentContentChangeEvent
		want    string
		clamped bool
	}{
		{"full replacement", "old\ntext", UTF16, changes(whole("new")), "new", false},
		{"no changes keeps text", "same", UTF16, nil, "same", false},
		{"insert", "hello", UTF16, changes(edit(0, 5, 0, 5, " world")), "hello world", false},
		{"insert after emoji utf16", "a😀b", UTF16, changes(edit(0, 3, 0, 3, "!")), "a😀!b", false},
		{"insert after emoji utf8", "a😀b", UTF8, changes(edit(0, 5, 0, 5, "!")), "a😀!b", false},
		{"insert after emoji utf32", "a😀b", UTF32, changes(edit(0, 2, 0, 2, "!")), "a😀!b", false},
		{"delete emoji", "a😀b", UTF16, changes(edit(0, 1, 0, 3, "")), "ab", false},
		{"delete across lines with emoji", "a😀\nb😀c\nd", UTF16, changes(edit(0, 1, 1, 3, "")), "ac\nd", false},
		{"join lines with emoji", "😀x\n😀y", UTF16, changes(edit(0, 3, 1, 2, "")), "😀xy", false},
		{"insert lines with emoji", "😀|😀", UTF16, changes(edit(0, 2, 0, 3, "\n👍\n")), "😀\n👍\n😀", false},
		{"replace across crlf", "ab\r\ncd\r\nef", UTF16, changes(edit(0, 1, 2, 1, "X")), "aXf", false},
		{"replace cjk utf8", "世界\n", UTF8, changes(edit(0, 3, 0, 6, "間")), "世間\n", false},
		{
			"several changes in order", "hello", UTF16,
			changes(
				edit(0, 5, 0, 5, " world"), // "hello world"
				edit(0, 0, 0, 5, "HELLO"),  // positions refer to the previous result
				edit(0, 11, 0, 11, "\n😀"),  // "HELLO world\n😀"
				edit(1, 2, 1, 2, "!"),      // after the emoji on the new line
			),
			"HELLO world\n😀!", false,
		},
		{"full then range", "abc", UTF16, changes(whole("xyz\n"), edit(1, 0, 1, 0, "w")), "xyz\nw", false},
		{"range then full", "abc", UTF16, changes(edit(0, 0, 0, 1, "Z"), whole("fresh")), "fresh", false},
		{"character past line end is clamped", "ab\ncd", UTF16, changes(edit(0, 9, 0, 9, "!")), "ab!\ncd", true},
		{"inside surrogate pair is clamped", "a😀b", UTF16, changes(edit(0, 2, 0, 2, "!")), "a!😀b", true},
		{"clamped flag survives later changes", "ab", UTF16, changes(edit(0, 9, 0, 9, "c"), edit(0, 0, 0, 0, "x")), "xabc", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore()
			s.SetEncoding(tt.enc)
			if _, err := s.Open(protocol.TextDocumentItem{URI: testURI, Version: 1, Text: tt.text}); err != nil {
				t.Fatal(err)
			}
			old, _ := s.Get(testURI)
			d, err := s.Change(testURI, 2, tt.changes)
			if err != nil {
				t.Fatalf("Change: %v", err)
			}
			if string(d.Text) != tt.want || d.Version != 2 || d.Clamped() != tt.clamped || d.Encoding() != tt.enc {
				t.Errorf("got text %q version %d clamped %v enc %v; want %q 2 %v %v",
					d.Text, d.Version, d.Clamped(), d.Encoding(), tt.want, tt.clamped, tt.enc)
			}
			if cur, _ := s.Get(testURI); cur != d {
				t.Error("Get does not return the new snapshot")
			}
			if string(old.Text) != tt.text || old.Version != 1 {
				t.Errorf("old snapshot modified: %q version %d", old.Text, old.Version)
			}
			checkConsistent(t, d)
		})
	}
}

func TestChangeErrors(t *testing.T) {
	s := openStore(t, "abc")
	d1, _ := s.Get(testURI)
	if _, err := s.Change(testURI, 5, changes(whole("v5"))); err != nil {
		t.Fatal(err)
	}
	cur, _ := s.Get(testURI)

	for _, v := range []int32{5, 4, 1, 0, -1} {
		d, err := s.Change(testURI, v, changes(whole("stale")))
		if !errors.Is(err, ErrStaleVersion) {
			t.Errorf("version %d: err = %v, want ErrStaleVersion", v, err)
		}
		if d != cur {
			t.Errorf("version %d: stale change did not return the current snapshot", v)
		}
	}
	if got, _ := s.Get(testURI); got != cur || string(got.Text) != "v5" {
		t.Errorf("stale changes modified the document: %q", got.Text)
	}
	if string(d1.Text) != "abc" {
		t.Errorf("first snapshot modified: %q", d1.Text)
	}

	d, err := s.Change(testURI, 6, changes(whole("ok"), nil))
	if out, _ := d.OutOfSync(); !errors.Is(err, ErrInvalidChange) || string(d.Text) != "v5" || d.Version != 5 || !out {
		t.Errorf("nil change: got %v, %v; want the current text marked out of sync and ErrInvalidChange", d, err)
	}
	if _, err := s.Change(testURI, 6, changes(whole("v6"))); err != nil {
		t.Fatalf("a full text brings the document back in sync: %v", err)
	}
	var nilPartial *protocol.TextDocumentContentChangePartial
	if _, err := s.Change(testURI, 7, changes(nilPartial)); !errors.Is(err, ErrInvalidChange) {
		t.Errorf("typed nil change: err = %v, want ErrInvalidChange", err)
	}

	if d, err := s.Change("file:///tmp/never.go", 1, changes(whole("x"))); !errors.Is(err, ErrNotOpen) || d != nil {
		t.Errorf("unopened: got %v, %v; want nil, ErrNotOpen", d, err)
	}

	if err := s.Close(testURI); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := s.Change(testURI, 7, changes(whole("x"))); !errors.Is(err, ErrNotOpen) {
		t.Errorf("change after close: err = %v, want ErrNotOpen", err)
	}
	if err := s.Close(testURI); !errors.Is(err, ErrNotOpen) {
		t.Errorf("second close: err = %v, want ErrNotOpen", err)
	}
	if _, ok := s.Get(testURI); ok {
		t.Error("Get after Close succeeded")
	}
	if string(cur.Text) != "v5" {
		t.Error("snapshot handed out before Close was modified")
	}
}

func TestErrorsNameTheDocument(t *testing.T) {
	s := openStore(t, "")
	_, err := s.Change(testURI, 1, nil)
	if err == nil || !strings.Contains(err.Error(), string(testURI)) || !strings.Contains(err.Error(), "version 1, current 1") {
		t.Errorf("stale error %q should name the URI and both versions", err)
	}
}

func TestSequentialChanges(t *testing.T) {
	s := NewStore()
	if _, err := s.Open(protocol.TextDocumentItem{URI: testURI, Version: 0, Text: ""}); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for v := int32(1); v <= 200; v++ {
		line := uint32(v - 1)
		ins := fmt.Sprintf("%d😀\n", v)
		if _, err := s.Change(testURI, v, changes(edit(line, 0, line, 0, ins))); err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		want.WriteString(ins)
	}
	d, _ := s.Get(testURI)
	if d.Version != 200 || string(d.Text) != want.String() || d.LineCount() != 201 {
		t.Errorf("got version %d, %d lines; want 200, 201 lines; text ok: %v", d.Version, d.LineCount(), string(d.Text) == want.String())
	}
}

// TestConcurrentGetWhileChange runs readers against a writer; with -race it
// also checks that snapshots are never written after publication.
func TestConcurrentGetWhileChange(t *testing.T) {
	s := openStore(t, "")
	const n = 500
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			last := int32(0)
			for {
				select {
				case <-done:
					return
				default:
				}
				d, ok := s.Get(testURI)
				if !ok {
					t.Error("document vanished")
					return
				}
				// Version v (>1) holds v-1 lines "x😀".
				if want := strings.Repeat("x😀\n", int(d.Version-1)); string(d.Text) != want {
					t.Errorf("version %d has text %q", d.Version, d.Text)
					return
				}
				if d.Version < last {
					t.Errorf("version went back from %d to %d", last, d.Version)
					return
				}
				last = d.Version
				_ = d.Position(len(d.Text) / 2)
				_ = s.All()
				_ = s.Overlay()
			}
		})
	}
	for v := int32(2); v <= n; v++ {
		line := uint32(v - 2)
		if _, err := s.Change(testURI, v, changes(edit(line, 0, line, 0, "x😀\n"))); err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
	}
	close(done)
	wg.Wait()
}

// TestConcurrentChanges checks that racing writers lose no edit: each change
// is applied to the latest snapshot, and stale versions are rejected.
func TestConcurrentChanges(t *testing.T) {
	s := openStore(t, "")
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := int32(2)
	for range 4 {
		wg.Go(func() {
			for range 50 {
				mu.Lock()
				v := next
				next++
				mu.Unlock()
				// Appending at a far character is clamped to the line end.
				if _, err := s.Change(testURI, v, changes(edit(0, 1<<20, 0, 1<<20, "x"))); err != nil && !errors.Is(err, ErrStaleVersion) {
					t.Errorf("version %d: %v", v, err)
				}
			}
		})
	}
	wg.Wait()
	d, _ := s.Get(testURI)
	if d.Version != 201 {
		t.Errorf("final version %d, want 201", d.Version)
	}
	if len(d.Text) == 0 || len(d.Text) > 200 {
		t.Errorf("text length %d, want 1..200", len(d.Text))
	}
}

func TestSetEncoding(t *testing.T) {
	s := openStore(t, "a😀b") // created while UTF-16
	before, _ := s.Get(testURI)
	s.SetEncoding(UTF8)
	d, err := s.Change(testURI, 2, changes(edit(0, 5, 0, 5, "!"))) // byte 5: after the emoji
	if err != nil {
		t.Fatal(err)
	}
	if string(d.Text) != "a😀!b" || d.Encoding() != UTF8 {
		t.Errorf("got %q in %v, want %q in utf-8", d.Text, d.Encoding(), "a😀!b")
	}
	if before.Encoding() != UTF16 {
		t.Errorf("existing snapshot's encoding changed to %v", before.Encoding())
	}
}

func TestAllAndOverlay(t *testing.T) {
	s := NewStore()
	items := []protocol.TextDocumentItem{
		{URI: "file:///tmp/b.go", Version: 1, Text: "package b"},
		{URI: "untitled:Untitled-1", Version: 1, Text: "scratch"},
		{URI: "file:///tmp/a.go", Version: 1, Text: "package a"},
	}
	for _, it := range items {
		if _, err := s.Open(it); err != nil {
			t.Fatal(err)
		}
	}
	var uris []string
	for _, d := range s.All() {
		uris = append(uris, string(d.URI))
	}
	if got, want := strings.Join(uris, " "), "file:///tmp/a.go file:///tmp/b.go untitled:Untitled-1"; got != want {
		t.Errorf("All() URIs = %s, want %s", got, want)
	}
	ov := s.Overlay()
	if len(ov) != 2 || string(ov["/tmp/a.go"]) != "package a" || string(ov["/tmp/b.go"]) != "package b" {
		t.Errorf("Overlay() = %q", ov)
	}
	if err := s.Close("file:///tmp/a.go"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Overlay()["/tmp/a.go"]; ok {
		t.Error("closed document still in overlay")
	}
}

// TestChangeOutOfRange: a change whose range leaves the document is
// rejected, the last good text stays, marked out of sync; incremental
// changes are then refused until a full text comes, which may follow
// other changes in the same notification.
func TestChangeOutOfRange(t *testing.T) {
	tests := []struct {
		name string
		ch   protocol.TextDocumentContentChangeEvent
	}{
		{"start line past the end", edit(2, 0, 2, 0, "x")},
		{"end line past the end", edit(0, 0, 9, 0, "x")},
		{"line 2^32-1", edit(1<<32-1, 0, 1<<32-1, 0, "x")},
		{"end before start", edit(1, 1, 0, 1, "x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore()
			if _, err := s.Open(protocol.TextDocumentItem{URI: testURI, Version: 1, Text: "ab\ncd"}); err != nil {
				t.Fatal(err)
			}
			d, err := s.Change(testURI, 2, changes(tt.ch))
			if !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("err = %v, want ErrOutOfRange", err)
			}
			if out, why := d.OutOfSync(); !out || why == "" || string(d.Text) != "ab\ncd" || d.Version != 1 {
				t.Errorf("got %q v%d out of sync %v (%q); want the last good text, out of sync", d.Text, d.Version, out, why)
			}
			if _, err := s.Change(testURI, 3, changes(edit(0, 0, 0, 0, "y"))); !errors.Is(err, ErrOutOfSync) {
				t.Errorf("an incremental change while out of sync: err = %v, want ErrOutOfSync", err)
			}
			d, err = s.Change(testURI, 4, changes(edit(0, 0, 0, 0, "ignored"), whole("new"), edit(0, 3, 0, 3, "!")))
			if out, _ := d.OutOfSync(); err != nil || out || string(d.Text) != "new!" || d.Version != 4 {
				t.Errorf("a full text: %v, %q v%d out of sync %v; want \"new!\" in sync", err, d.Text, d.Version, out)
			}
		})
	}
	s := NewStore()
	if _, err := s.Open(protocol.TextDocumentItem{URI: testURI, Version: 1, Text: "ab"}); err != nil {
		t.Fatal(err)
	}
	if d, ok := s.Reject(testURI, "a line of 1.5"); !ok || string(d.Text) != "ab" {
		t.Fatalf("Reject: %v %v", d, ok)
	}
	d, err := s.Open(protocol.TextDocumentItem{URI: testURI, Version: 1, Text: "reopened"})
	if out, _ := d.OutOfSync(); err != nil || out {
		t.Errorf("reopening: %v, out of sync %v", err, out)
	}
}
