// Package docstore keeps the documents a language client has opened as
// versioned, immutable snapshots, and converts between LSP positions and byte
// offsets in UTF-16, UTF-8 or UTF-32.
//
// A [Store] holds the current [Document] for every open URI. didOpen,
// didChange and didClose map to [Store.Open], [Store.Change] and
// [Store.Close]; work that needs the text takes a snapshot with [Store.Get]
// and keeps using it even if the document changes meanwhile, comparing
// [Document.Version] before applying results.
package docstore
