package docstore

import "errors"

// Errors returned by [Store] methods, wrapped with the URI and versions
// involved; test for them with [errors.Is].
var (
	// ErrNotOpen: the document was never opened, or has been closed.
	ErrNotOpen = errors.New("docstore: document not open")
	// ErrStaleVersion: a change's version is not greater than the current
	// one. The change is ignored and the current snapshot is unchanged.
	ErrStaleVersion = errors.New("docstore: stale document version")
	// ErrInvalidChange: a content change was nil or of an unknown type. No
	// change of that notification is applied.
	ErrInvalidChange = errors.New("docstore: invalid content change")
	// ErrInvalidURI: Open was given an empty URI.
	ErrInvalidURI = errors.New("docstore: invalid document URI")
	// ErrOutOfRange: a change's range starts or ends on a line the text
	// does not have, or ends before it starts.
	ErrOutOfRange = errors.New("docstore: change range outside the document")
	// ErrOutOfSync: the document is out of sync (an earlier change was
	// rejected) and the change is not a full-text one.
	ErrOutOfSync = errors.New("docstore: document out of sync with the client")
)
