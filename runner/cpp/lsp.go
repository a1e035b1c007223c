package cpp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// lspConn is the client side of one LSP connection to clangd: framed JSON
// over its stdin and stdout. It reads every message on its own goroutine:
// answers to fixloop's requests go to their caller, publishDiagnostics
// notifications are kept by document, and clangd's own requests
// (workDoneProgress/create, workspace/configuration) are answered with
// null. A message larger than maxLSPMessage, or one that is not JSON, ends
// the connection.
type lspConn struct {
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	calls   map[int64]chan lspMessage
	pubs    map[string]*lspPublication // by URI
	moved   chan struct{}              // closed and replaced at each publication
	err     error                      // why reading stopped
	stopped chan struct{}
}

// maxLSPMessage bounds one message clangd sends.
const maxLSPMessage = 64 << 20

type lspMessage struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Params json.RawMessage  `json:"params,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// lspPublication is a publishDiagnostics notification.
type lspPublication struct {
	URI         string          `json:"uri"`
	Version     *int            `json:"version"`
	Diagnostics []lspDiagnostic `json:"diagnostics"`

	// macros are where the document's macros are used, when the check
	// asked clangd (clangdRequest.wantMacros); macrosKnown says it did.
	macros      []macroSpan
	macrosKnown bool
}

type lspDiagnostic struct {
	Range              lspRange          `json:"range"`
	Severity           int               `json:"severity"`
	Code               json.RawMessage   `json:"code"`
	Source             string            `json:"source"`
	Message            string            `json:"message"`
	RelatedInformation []lspRelated      `json:"relatedInformation"`
	CodeActions        []lspCodeAction   `json:"codeActions"`
	Data               json.RawMessage   `json:"data"`
	Tags               []int             `json:"tags"`
	CodeDescription    map[string]string `json:"codeDescription"`
}

type lspRange struct {
	Start lspPosition `json:"start"`
	End   lspPosition `json:"end"`
}

type lspPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRelated struct {
	Location struct {
		URI   string   `json:"uri"`
		Range lspRange `json:"range"`
	} `json:"location"`
	Message string `json:"message"`
}

type lspCodeAction struct {
	Title string `json:"title"`
	Kind  string `json:"kind"`
	Edit  *struct {
		Changes map[string][]lspTextEdit `json:"changes"`
	} `json:"edit"`
}

type lspTextEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

func newLSPConn(r io.Reader, w io.Writer) *lspConn {
	c := &lspConn{w: w, calls: map[int64]chan lspMessage{}, pubs: map[string]*lspPublication{},
		moved: make(chan struct{}), stopped: make(chan struct{})}
	go c.readLoop(bufio.NewReaderSize(r, 64<<10))
	return c
}

func (c *lspConn) readLoop(r *bufio.Reader) {
	err := func() error {
		tp := textproto.NewReader(r)
		for {
			hdr, err := tp.ReadMIMEHeader()
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(hdr.Get("Content-Length"))
			if err != nil || n < 0 {
				return fmt.Errorf("a message from clangd without a valid Content-Length: %q", hdr.Get("Content-Length"))
			}
			if n > maxLSPMessage {
				return fmt.Errorf("a message from clangd of %d bytes, more than the %d MiB fixloop reads", n, maxLSPMessage>>20)
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				return err
			}
			var m lspMessage
			if err := json.Unmarshal(body, &m); err != nil {
				return fmt.Errorf("reading a message from clangd: %w", err)
			}
			c.dispatch(&m)
		}
	}()
	c.mu.Lock()
	c.err = err
	for id, ch := range c.calls {
		close(ch)
		delete(c.calls, id)
	}
	c.mu.Unlock()
	close(c.stopped)
}

func (c *lspConn) dispatch(m *lspMessage) {
	switch {
	case m.Method == "textDocument/publishDiagnostics":
		var p lspPublication
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return
		}
		c.mu.Lock()
		c.pubs[uriPath(p.URI)] = &p
		close(c.moved)
		c.moved = make(chan struct{})
		c.mu.Unlock()
	case m.Method != "" && m.ID != nil:
		// A request of clangd's: null is a valid answer to each it sends.
		_ = c.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
	case m.Method == "" && m.ID != nil:
		id, err := strconv.ParseInt(strings.TrimSpace(string(*m.ID)), 10, 64)
		if err != nil {
			return
		}
		c.mu.Lock()
		ch, ok := c.calls[id]
		delete(c.calls, id)
		c.mu.Unlock()
		if ok {
			ch <- *m
		}
	}
}

func (c *lspConn) write(msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = c.w.Write(data)
	return err
}

// notify sends a notification.
func (c *lspConn) notify(method string, params any) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request and returns where its answer arrives; the channel
// is closed without one when the connection ends.
func (c *lspConn) call(method string, params any) (<-chan lspMessage, error) {
	c.mu.Lock()
	if c.err != nil || isClosed(c.stopped) {
		c.mu.Unlock()
		return nil, errors.New("the connection to clangd ended")
	}
	c.nextID++
	id := c.nextID
	ch := make(chan lspMessage, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	return ch, nil
}

// publication returns the last publication for the file at path and a
// channel closed at the next one.
func (c *lspConn) publication(path string) (*lspPublication, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pubs[path], c.moved
}

// uriPath is the path of a file: URI; any other URI is returned as it is.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return u.Path
}

// readErr says why the connection stopped.
func (c *lspConn) readErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
