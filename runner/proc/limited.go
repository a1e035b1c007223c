package proc

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// LimitedBuffer is an io.Writer that keeps at most size bytes of what is
// written to it: the first half and the last half. String puts a
// "... N bytes omitted ..." line between them when anything was dropped, so a
// program that prints megabytes costs a bounded amount of memory while the
// beginning (often the cause) and the end (often the summary) are kept.
//
// It is safe for concurrent use, so one buffer can take both stdout and
// stderr of a command.
type LimitedBuffer struct {
	mu      sync.Mutex
	headMax int
	tailMax int
	head    []byte
	// tail holds the most recent bytes; it may grow to 2*tailMax before it is
	// compacted, which keeps writes amortised O(len(p)).
	tail  []byte
	total int
}

// NewLimitedBuffer returns a buffer that keeps at most size bytes. A size of 0
// or less keeps nothing but still counts what is written.
func NewLimitedBuffer(size int) *LimitedBuffer {
	limit := max(size, 0)
	head := limit / 2
	return &LimitedBuffer{headMax: head, tailMax: limit - head}
}

// Write keeps what fits and counts the rest. It never fails.
func (b *LimitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += n
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || b.tailMax == 0 {
		return n, nil
	}
	if len(p) >= b.tailMax {
		b.tail = append(b.tail[:0], p[len(p)-b.tailMax:]...)
		return n, nil
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*b.tailMax {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-b.tailMax:]...)
	}
	return n, nil
}

// String returns the kept bytes: everything, if no more than size bytes were
// written; else the head, an omission marker and the tail. The cut edges are
// moved to rune boundaries so the result stays valid UTF-8 if the input was.
func (b *LimitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := b.tail
	if len(tail) > b.tailMax {
		tail = tail[len(tail)-b.tailMax:]
	}
	omitted := b.total - len(b.head) - len(tail)
	if omitted <= 0 {
		return string(b.head) + string(tail)
	}
	head := trimPartialRuneEnd(b.head)
	tail = trimPartialRuneStart(tail)
	omitted = b.total - len(head) - len(tail)
	return fmt.Sprintf("%s\n... %d bytes omitted ...\n%s", head, omitted, tail)
}

// Len returns the total number of bytes written, kept or not.
func (b *LimitedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Truncated reports whether some written bytes were dropped.
func (b *LimitedBuffer) Truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total > b.headMax+b.tailMax
}

// trimPartialRuneEnd drops an incomplete UTF-8 sequence cut at the end of p.
func trimPartialRuneEnd(p []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		c := p[len(p)-i]
		if c < utf8.RuneSelf {
			return p // ASCII: nothing was cut
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			return p
		}
	}
	return p
}

// trimPartialRuneStart drops continuation bytes left at the start of p by a
// cut in the middle of a rune.
func trimPartialRuneStart(p []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(p); i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p
}
