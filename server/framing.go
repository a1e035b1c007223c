package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Limits of the frame reader.
const (
	// maxContentLength bounds a frame's body, as go.lsp.dev/jsonrpc2 does.
	maxContentLength = 1 << 30
	// maxHeaderLine bounds one header line; a longer "line" is garbage.
	maxHeaderLine = 4 << 10
	// readChunk is how much the reader asks the connection for at once.
	readChunk = 64 << 10
	// largeFrame is the size from which a frame's buffer is handed over
	// rather than copied, and not kept for the next frames.
	largeFrame = 1 << 20
)

// badFrame is a frame the reader skipped: its header could not be read.
// The reader has already resynchronised at the next header.
type badFrame struct{ reason string }

func (e *badFrame) Error() string { return e.reason }

// frameReader reads LSP frames (headers, a blank line, Content-Length bytes
// of body) from a byte stream and recovers from malformed ones: after a bad
// header it skips to the next "Content-Length:" header that starts a line
// (or follows the end of a JSON body), and a body that does not decode can
// be given back from a header found inside it, so that the frame a
// too-long Content-Length swallowed is read again.
type frameReader struct {
	src io.Reader
	buf []byte // read from src, not yet consumed
	eof error  // the error src returned, once it has
	// lost: the last header was bad; the next read first skips to a
	// header (after the caller has answered the bad one).
	lost bool
}

func newFrameReader(src io.Reader) *frameReader { return &frameReader{src: src} }

// fill reads more bytes from src into buf.
func (f *frameReader) fill() error {
	if f.eof != nil {
		return f.eof
	}
	if cap(f.buf)-len(f.buf) < readChunk {
		nb := make([]byte, len(f.buf), 2*cap(f.buf)+readChunk)
		copy(nb, f.buf)
		f.buf = nb
	}
	n, err := f.src.Read(f.buf[len(f.buf):cap(f.buf)])
	f.buf = f.buf[:len(f.buf)+n]
	if err != nil && n == 0 {
		f.eof = err
		return err
	}
	return nil
}

// consume drops the first n buffered bytes.
func (f *frameReader) consume(n int) {
	f.buf = f.buf[:copy(f.buf, f.buf[n:])]
}

// Next returns the body of the next frame, which the caller owns. A
// *badFrame error means a frame was skipped and reading may go on; any
// other error (io.EOF between frames, io.ErrUnexpectedEOF inside one, a
// read error) ends the stream.
func (f *frameReader) Next() ([]byte, int64, error) {
	if f.lost {
		if err := f.resync(); err != nil {
			return nil, 0, err
		}
		f.lost = false
	}
	length, headerLen, err := f.header()
	if err != nil {
		var bad *badFrame
		f.lost = errors.As(err, &bad)
		return nil, 0, err
	}
	if need := length + readChunk; cap(f.buf) < need && length > largeFrame {
		// Grow once to the frame's size rather than by doubling: a
		// 150 MB didOpen would otherwise leave a buffer of up to twice
		// that behind.
		nb := make([]byte, len(f.buf), need)
		copy(nb, f.buf)
		f.buf = nb
	}
	for len(f.buf) < length {
		if err := f.fill(); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
	}
	if length > largeFrame {
		// Hand the buffer itself over as the body and start a small one
		// with what follows: no copy of a large frame, and the reader
		// keeps nothing of its size once the message is handled.
		body := f.buf[:length:length]
		rest := f.buf[length:]
		f.buf = append(make([]byte, 0, max(len(rest), readChunk)), rest...)
		return body, int64(headerLen + length), nil
	}
	body := bytes.Clone(f.buf[:length])
	f.consume(length)
	if cap(f.buf) > largeFrame {
		f.buf = append(make([]byte, 0, max(len(f.buf), readChunk)), f.buf...)
	}
	return body, int64(headerLen + length), nil
}

// header reads one header block and returns its Content-Length. On a bad
// block it gives the block's bytes back, for resync to search.
func (f *frameReader) header() (length, consumed int, err error) {
	var raw []byte
	bad := func(format string, args ...any) (int, int, error) {
		f.Unread(raw)
		return 0, 0, &badFrame{"malformed message header: " + fmt.Sprintf(format, args...)}
	}
	have := false
	for lines := 0; ; lines++ {
		line, err := f.line(consumed > 0)
		if err != nil {
			var lb *badFrame
			if errors.As(err, &lb) {
				return bad("%s", lb.reason)
			}
			return 0, 0, err
		}
		raw = append(raw, line...)
		consumed += len(line)
		text := bytes.TrimRight(line, "\r\n")
		if len(text) == 0 {
			if lines == 0 {
				continue // a stray line break between frames
			}
			break
		}
		name, value, ok := bytes.Cut(text, []byte(":"))
		if !ok || !isToken(name) {
			return bad("%q is no header line", clip(line))
		}
		if !bytes.EqualFold(name, []byte("content-length")) {
			continue
		}
		v := bytes.TrimSpace(value)
		n, perr := strconv.Atoi(string(v))
		if perr != nil || n <= 0 || n > maxContentLength || v[0] == '+' {
			return bad("Content-Length %q is not a length from 1 to %d", clip(v), maxContentLength)
		}
		length, have = n, true
	}
	if !have {
		return bad("no Content-Length")
	}
	return length, consumed, nil
}

// isToken reports whether name is an HTTP header field name (RFC 9110).
func isToken(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// line returns the next line, terminator included. inFrame says a header
// line was read already, so that an end of stream is a truncated frame.
func (f *frameReader) line(inFrame bool) ([]byte, error) {
	for searched := 0; ; {
		if i := bytes.IndexByte(f.buf[searched:], '\n'); i >= 0 {
			n := searched + i + 1
			line := bytes.Clone(f.buf[:n])
			f.consume(n)
			return line, nil
		}
		searched = len(f.buf)
		if searched > maxHeaderLine {
			return nil, &badFrame{fmt.Sprintf("malformed message header: a header line longer than %d bytes", maxHeaderLine)}
		}
		if err := f.fill(); err != nil {
			if errors.Is(err, io.EOF) && (inFrame || len(f.buf) > 0) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// resync skips to the next "Content-Length: N" line, searching from the
// second buffered byte on (the first began the bad header). A JSON body
// holds no raw line break inside a string, so such a line is a header.
func (f *frameReader) resync() error {
	from := 1
	for {
		if i := headerStart(f.buf, from); i >= 0 {
			f.consume(i)
			return nil
		}
		// Keep what could be the start of a header line split by a read.
		if keep := maxHeaderLine; len(f.buf) > keep {
			f.consume(len(f.buf) - keep)
			from = 0
		}
		if err := f.fill(); err != nil {
			if errors.Is(err, io.EOF) && len(f.buf) > 0 {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
}

// Unread gives b back to be read again: the part of a body returned by
// Next that holds the start of the next frame.
func (f *frameReader) Unread(b []byte) {
	f.buf = append(bytes.Clone(b), f.buf...)
}

// headerLine is a Content-Length header line, anywhere.
var headerLine = regexp.MustCompile(`(?i)content-length:[ \t]*[0-9]+[ \t]*\r?\n`)

// headerStart returns the index in b, from from on, of a complete
// "Content-Length: N" line, or -1.
func headerStart(b []byte, from int) int {
	if from >= len(b) {
		return -1
	}
	loc := headerLine.FindIndex(b[from:])
	if loc == nil {
		return -1
	}
	return from + loc[0]
}
