package docstore

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Store holds the current snapshot of every open document. It is safe for
// concurrent use. Readers never wait for a change to be computed: Change
// builds the new snapshot outside the lock and then swaps it in.
type Store struct {
	mu   sync.RWMutex
	enc  Encoding
	docs map[uri.URI]*Document
}

// NewStore returns an empty store using UTF-16 positions.
func NewStore() *Store {
	return &Store{enc: UTF16, docs: make(map[uri.URI]*Document)}
}

// SetEncoding sets the position encoding negotiated at initialize. It applies
// to the positions of changes received afterwards and to the snapshots
// created afterwards; existing snapshots keep theirs.
func (s *Store) SetEncoding(e Encoding) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enc = e
}

// key returns the canonical form of u so that differently spelled URIs for
// the same document share one entry. URIs decoded from the wire are already
// canonical; an unparsable URI is used as is.
func key(u uri.URI) uri.URI {
	if c, err := uri.Parse(string(u)); err == nil {
		return c
	}
	return u
}

// Open records a newly opened document and returns its snapshot. Opening an
// open document replaces it, whatever the versions.
func (s *Store) Open(item protocol.TextDocumentItem) (*Document, error) {
	if item.URI.IsZero() {
		return nil, fmt.Errorf("open: %w", ErrInvalidURI)
	}
	k := key(item.URI)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := newDocument(k, string(item.LanguageID), item.Version, bytesOf(item.Text), s.enc)
	s.docs[k] = d
	return d, nil
}

// OpenBytes is Open for a text given as bytes, which the document takes
// ownership of (they must never be modified).
func (s *Store) OpenBytes(u uri.URI, languageID string, version int32, text []byte) (*Document, error) {
	if u.IsZero() {
		return nil, fmt.Errorf("open: %w", ErrInvalidURI)
	}
	k := key(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := newDocument(k, languageID, version, text, s.enc)
	s.docs[k] = d
	return d, nil
}

// Change applies content changes to the current snapshot of u, in order
// (each against the text the previous ones produced), and returns the new
// snapshot, which becomes current. Changes may be full replacements or range
// edits; positions are in the store's encoding.
//
// A character past the end of its line means the line end, as the LSP
// specifies; the result's [Document.Clamped] then reports true so the
// caller can log it.
//
// Errors:
//   - [ErrNotOpen]: u is not open; the result is nil.
//   - [ErrStaleVersion]: version is not greater than the current version;
//     the changes are ignored and the result is the unchanged current snapshot.
//   - [ErrInvalidChange]: a change is nil or of an unknown type, or
//     [ErrOutOfRange]: a range starts or ends on a line the text does not
//     have, or ends before it starts. Nothing is applied; the result is the
//     current text marked out of sync ([Document.OutOfSync]).
//   - [ErrOutOfSync]: the document is out of sync and the changes hold no
//     full-text change; nothing is applied. A full-text change (from the
//     last one in the list on) or reopening brings it back in sync.
func (s *Store) Change(u uri.URI, version int32, changes []protocol.TextDocumentContentChangeEvent) (*Document, error) {
	k := key(u)
	for {
		s.mu.RLock()
		cur, ok := s.docs[k]
		enc := s.enc
		s.mu.RUnlock()
		if !ok {
			return nil, fmt.Errorf("change %s (version %d): %w", u, version, ErrNotOpen)
		}
		if version <= cur.Version {
			return cur, fmt.Errorf("change %s: version %d, current %d: %w", u, version, cur.Version, ErrStaleVersion)
		}
		next, err := applyChanges(cur, version, enc, changes)
		if err != nil {
			err = fmt.Errorf("change %s (version %d): %w", u, version, err)
			if cur.outOfSync {
				return cur, err
			}
			// The client's text is not the server's any more: keep the
			// last good text, marked out of sync.
			marked := *cur
			marked.outOfSync, marked.syncProblem = true, err.Error()
			s.mu.Lock()
			if s.docs[k] != cur {
				s.mu.Unlock()
				continue
			}
			s.docs[k] = &marked
			s.mu.Unlock()
			return &marked, err
		}
		s.mu.Lock()
		if s.docs[k] == cur && s.enc == enc {
			s.docs[k] = next
			s.mu.Unlock()
			return next, nil
		}
		// Someone changed, closed or reopened the document (or the
		// encoding) meanwhile: start again from the new state.
		s.mu.Unlock()
	}
}

// Reject marks u out of sync: the client sent a change fixloop could not
// read (a range that is not made of integers). The text stays the last
// good one. It returns the marked snapshot, or false when u is not open.
func (s *Store) Reject(u uri.URI, reason string) (*Document, bool) {
	k := key(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.docs[k]
	if !ok {
		return nil, false
	}
	marked := *cur
	marked.outOfSync, marked.syncProblem = true, reason
	s.docs[k] = &marked
	return &marked, true
}

// Close forgets u. It returns [ErrNotOpen] if u is not open. Snapshots
// already handed out stay valid.
func (s *Store) Close(u uri.URI) error {
	k := key(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.docs[k]; !ok {
		return fmt.Errorf("close %s: %w", u, ErrNotOpen)
	}
	delete(s.docs, k)
	return nil
}

// Get returns the current snapshot of u.
func (s *Store) Get(u uri.URI) (*Document, bool) {
	k := key(u)
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.docs[k]
	return d, ok
}

// All returns the current snapshot of every open document, sorted by URI.
func (s *Store) All() []*Document {
	s.mu.RLock()
	docs := slices.Collect(maps.Values(s.docs))
	s.mu.RUnlock()
	slices.SortFunc(docs, func(a, b *Document) int { return strings.Compare(string(a.URI), string(b.URI)) })
	return docs
}

// Overlay returns file system path -> text for every open file:// document,
// as a go/packages overlay needs. The texts are the snapshots' own immutable
// slices: do not modify them.
func (s *Store) Overlay() map[string][]byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m := make(map[string][]byte, len(s.docs))
	for _, d := range s.docs {
		if d.Path != "" {
			m[d.Path] = d.Text
		}
	}
	return m
}
