package proc

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestLimitedBuffer(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		writes []string
		want   string
	}{
		{"empty", 10, nil, ""},
		{"fits", 10, []string{"abc", "def"}, "abcdef"},
		{"exactly full", 6, []string{"abc", "def"}, "abcdef"},
		{"one byte over", 6, []string{"abcdefg"}, "abc\n... 1 bytes omitted ...\nefg"},
		{"many small writes", 4, []string{"a", "b", "c", "d", "e", "f", "g"}, "ab\n... 3 bytes omitted ...\nfg"},
		{"big write then small", 4, []string{"0123456789", "x"}, "01\n... 7 bytes omitted ...\n9x"},
		{"zero size", 0, []string{"abc"}, "\n... 3 bytes omitted ...\n"},
		{"odd size", 5, []string{"0123456789"}, "01\n... 5 bytes omitted ...\n789"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewLimitedBuffer(tt.size)
			total := 0
			for _, w := range tt.writes {
				n, err := b.Write([]byte(w))
				if err != nil || n != len(w) {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
				total += n
			}
			if got := b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if b.Len() != total {
				t.Errorf("Len() = %d, want %d", b.Len(), total)
			}
		})
	}
}

func TestLimitedBufferLargeWrites(t *testing.T) {
	const size = 64 << 10
	b := NewLimitedBuffer(size)
	var lines int
	// 10 MB in lines of varying size, then a recognisable last line.
	chunk := []byte(strings.Repeat("x", 1000) + "\n")
	for written := 0; written < 10<<20; written += len(chunk) {
		if _, err := b.Write(chunk); err != nil {
			t.Fatal(err)
		}
		lines++
	}
	fmt.Fprintf(b, "the end\n")
	if want := lines*len(chunk) + len("the end\n"); b.Len() != want {
		t.Errorf("Len() = %d, want %d", b.Len(), want)
	}
	if !b.Truncated() {
		t.Error("Truncated() = false after 10 MB")
	}
	s := b.String()
	if len(s) > size+100 {
		t.Errorf("len(String()) = %d, want at most about %d", len(s), size)
	}
	if !strings.HasSuffix(s, "the end\n") {
		t.Errorf("String() does not end with the last line: ...%q", s[len(s)-40:])
	}
	if !strings.HasPrefix(s, "xxxx") || !strings.Contains(s, "bytes omitted") {
		t.Errorf("String() lacks the head or the marker")
	}
	// The retained tail must not grow past twice its share.
	if cap(b.tail) > 2*size {
		t.Errorf("tail capacity %d exceeds %d", cap(b.tail), 2*size)
	}
}

func TestLimitedBufferConcurrent(t *testing.T) {
	b := NewLimitedBuffer(1024)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				_, _ = io.WriteString(b, "hello\n")
			}
		})
	}
	wg.Wait()
	if b.Len() != 8*1000*6 {
		t.Errorf("Len() = %d, want %d", b.Len(), 8*1000*6)
	}
}

func TestLimitedBufferRuneBoundaries(t *testing.T) {
	b := NewLimitedBuffer(7)
	_, _ = b.Write(bytes.Repeat([]byte("é"), 20)) // 2 bytes each
	if s := b.String(); !utf8.ValidString(s) {
		t.Errorf("String() = %q is not valid UTF-8", s)
	}
}
