package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/fixloop/fixloop/refactor/model"
)

// maxServerMessage bounds how much of a server's error text is quoted.
const maxServerMessage = 300

// classify turns the failure err of one request into ctx.Err() when ctx has
// ended, else into a *model.Error. actx is the attempt's context.
func (p *Provider) classify(ctx, actx context.Context, ex *exchange, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	var merr *model.Error
	if errors.As(err, &merr) {
		return merr
	}
	if errors.Is(actx.Err(), context.DeadlineExceeded) {
		return p.timeoutError()
	}
	if status, msg := httpStatus(err); status != 0 {
		return p.statusError(status, msg, ex.header)
	}
	var apiErr *goopenai.APIError
	switch {
	case errors.As(err, &apiErr):
		// An error event inside a stream.
		return &model.Error{Kind: model.ErrServer, Msg: p.scrub("the server at " + p.shownURL + " reported an error in its stream: " + apiErr.Message)}
	case errors.Is(err, errTooLarge):
		return &model.Error{Kind: model.ErrMalformed, Msg: fmt.Sprintf("the answer from %s is larger than %d bytes", p.shownURL, bodyLimit(p.maxReply))}
	case errors.Is(err, errEmptyStream):
		return &model.Error{Kind: model.ErrMalformed, Msg: "the stream from " + p.shownURL + " ended before any data; try without streaming"}
	case errors.Is(err, goopenai.ErrChatCompletionInvalidModel):
		return &model.Error{Kind: model.ErrBadRequest, Msg: fmt.Sprintf("model %q is not a chat model", p.model)}
	case ex.bodyErr != nil:
		return &model.Error{Kind: model.ErrUnavailable, Msg: "the connection to " + p.shownURL + " broke while reading the answer", Err: p.scrubErr(ex.bodyErr)}
	}
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case errors.As(err, &urlErr) && urlErr.Timeout():
		return p.timeoutError()
	case errors.As(err, &urlErr), errors.As(err, &netErr):
		return &model.Error{
			Kind: model.ErrUnavailable,
			Msg:  "could not reach " + p.shownURL + "; is the server running and is the base URL right?",
			Err:  p.scrubErr(rootCause(err)),
		}
	}
	return &model.Error{Kind: model.ErrMalformed, Msg: "could not decode the answer from " + p.shownURL, Err: p.scrubErr(err)}
}

func (p *Provider) timeoutError() *model.Error {
	return &model.Error{
		Kind: model.ErrTimeout,
		Msg:  fmt.Sprintf("no complete answer from %s within %s; the server may be overloaded, or the timeout too short", p.shownURL, p.timeout),
	}
}

// httpStatus returns the status and the server's message of an HTTP error
// answer, or 0.
func httpStatus(err error) (int, string) {
	var apiErr *goopenai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0 {
		return apiErr.HTTPStatusCode, apiErr.Message
	}
	var reqErr *goopenai.RequestError
	if errors.As(err, &reqErr) && reqErr.HTTPStatusCode != 0 {
		return reqErr.HTTPStatusCode, string(reqErr.Body)
	}
	return 0, ""
}

// statusError explains an HTTP error answer.
func (p *Provider) statusError(status int, serverMsg string, header http.Header) *model.Error {
	serverMsg = p.scrub(shorten(serverMsg))
	withServer := func(s string) string {
		if serverMsg == "" {
			return s
		}
		return s + ": " + serverMsg
	}
	e := &model.Error{Status: status}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = model.ErrAuth
		if p.key == "" {
			e.Msg = withServer(fmt.Sprintf("the endpoint at %s wants an API key, and $%s is not set", p.shownURL, p.keyEnv))
		} else {
			e.Msg = withServer(fmt.Sprintf("the endpoint at %s refused the API key from $%s", p.shownURL, p.keyEnv))
		}
	case status == http.StatusNotFound:
		e.Kind = model.ErrNotFound
		if strings.Contains(strings.ToLower(serverMsg), "model") {
			e.Msg = withServer(fmt.Sprintf("model %q not found at %s", p.model, p.shownURL))
		} else {
			e.Msg = withServer(fmt.Sprintf("nothing serves chat completions at %s/chat/completions; check the base URL (OpenAI-compatible servers usually serve under /v1) and the model name %q", p.shownURL, p.model))
		}
	case status == http.StatusRequestTimeout:
		e.Kind = model.ErrTimeout
		e.Msg = withServer("the server at " + p.shownURL + " timed the request out")
	case status == http.StatusTooManyRequests:
		e.Kind = model.ErrRateLimited
		e.Msg = withServer("the endpoint at " + p.shownURL + " is limiting the rate of requests")
		e.RetryAfter = p.retryAfter(header)
	case status >= 500:
		e.Kind = model.ErrServer
		e.Msg = withServer("the server at " + p.shownURL + " failed")
		if status == http.StatusServiceUnavailable {
			e.RetryAfter = p.retryAfter(header)
		}
	default:
		e.Kind = model.ErrBadRequest
		e.Msg = withServer(fmt.Sprintf("the endpoint at %s refused the request for model %q", p.shownURL, p.model))
	}
	return e
}

// retryAfter reads a Retry-After header given in seconds or as an HTTP
// date; 0 when absent or unreadable.
func (p *Provider) retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 1e6 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(p.now()), 0)
	}
	return 0
}

// shorten makes a server's message fit on a line.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxServerMessage {
		s, _ = truncate(s, maxServerMessage)
		s += "…"
	}
	return s
}

// rootCause drops the url.Error layer, whose text repeats the URL.
func rootCause(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) && urlErr.Err != nil {
		return urlErr.Err
	}
	return err
}

// scrub removes the API key from s, in case a server or a library quotes it.
func (p *Provider) scrub(s string) string {
	if p.key == "" {
		return s
	}
	return strings.ReplaceAll(s, p.key, "[redacted]")
}

// scrubErr wraps err so that its text never shows the API key.
func (p *Provider) scrubErr(err error) error {
	if err == nil || p.key == "" || !strings.Contains(err.Error(), p.key) {
		return err
	}
	return &scrubbedError{msg: p.scrub(err.Error()), err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
