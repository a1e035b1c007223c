package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/fixloop/fixloop/refactor/model"
)

// errEmptyStream reports a stream answer that ended before any data event.
var errEmptyStream = errors.New("the stream ended before any data")

// streamRefused reports that the server would not stream; the caller may ask
// again without streaming.
type streamRefused struct{ Err *model.Error }

func (e *streamRefused) Error() string { return "streaming refused: " + e.Err.Error() }

// once sends one request, bounded by the attempt timeout. Its error is
// ctx.Err(), a *model.Error, or (when streaming may be given up) a
// *streamRefused.
func (p *Provider) once(ctx context.Context, creq goopenai.ChatCompletionRequest, stream bool, progress model.Progress) (model.Reply, error) {
	actx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	ex := &exchange{}
	actx = withExchange(actx, ex)

	var reply model.Reply
	var err error
	if stream {
		reply, err = p.doStream(actx, ex, creq, progress)
	} else {
		reply, err = p.doPlain(actx, creq)
	}
	if err == nil {
		return reply, nil
	}
	cerr := p.classify(ctx, actx, ex, err)
	var merr *model.Error
	if stream && p.stream == nil && errors.As(cerr, &merr) && refusesStream(merr, err) {
		return model.Reply{}, &streamRefused{Err: merr}
	}
	return model.Reply{}, cerr
}

// refusesStream reports whether the failure of a stream request suggests
// the server does not stream: a stream without data, or a 4xx other than
// auth, not-found, timeout and rate limits.
func refusesStream(merr *model.Error, raw error) bool {
	if errors.Is(raw, errEmptyStream) {
		return true
	}
	switch merr.Status {
	case 401, 403, 404, 408, 429:
		return false
	}
	return merr.Status >= 400 && merr.Status < 500 || merr.Status == 501
}

// doPlain asks for a complete answer in one JSON body.
func (p *Provider) doPlain(ctx context.Context, creq goopenai.ChatCompletionRequest) (model.Reply, error) {
	creq.Stream = false
	resp, err := p.client.CreateChatCompletion(ctx, creq)
	if err != nil {
		return model.Reply{}, err
	}
	return p.fromCompletion(resp)
}

// fromCompletion reads a complete answer.
func (p *Provider) fromCompletion(resp goopenai.ChatCompletionResponse) (model.Reply, error) {
	for _, ch := range resp.Choices {
		if ch.Index != 0 {
			continue
		}
		content, cut := truncate(ch.Message.Content, p.maxReply)
		if cut {
			p.log.Warn("model reply truncated", "limit_bytes", p.maxReply, "bytes", len(ch.Message.Content))
		}
		return model.Reply{
			Content:          content,
			Model:            cmp.Or(resp.Model, p.model),
			PromptTokens:     resp.Usage.PromptTokens,
			CompletionTokens: resp.Usage.CompletionTokens,
		}, nil
	}
	return model.Reply{}, &model.Error{Kind: model.ErrMalformed, Msg: "the answer from " + p.shownURL + " has no choices"}
}

// doStream asks for a streamed answer and gathers its deltas, calling
// progress as they arrive. A plain JSON answer (a server that ignores
// "stream") is used as it is.
func (p *Provider) doStream(ctx context.Context, ex *exchange, creq goopenai.ChatCompletionRequest, progress model.Progress) (model.Reply, error) {
	creq.Stream = true
	creq.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}
	stream, err := p.client.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		return model.Reply{}, err
	}
	defer stream.Close()
	if ex.plain != nil {
		return p.fromPlainStreamAnswer(ex.plain)
	}

	reply := model.Reply{Model: p.model, Streamed: true}
	var b strings.Builder
	chars := 0
	sawData, sawChoice := false, false
read:
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return model.Reply{}, err
		}
		sawData = true
		if chunk.Model != "" {
			reply.Model = chunk.Model
		}
		if chunk.Usage != nil {
			reply.PromptTokens = chunk.Usage.PromptTokens
			reply.CompletionTokens = chunk.Usage.CompletionTokens
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			sawChoice = true
			delta := ch.Delta.Content
			if delta == "" {
				continue
			}
			delta, cut := truncate(delta, p.maxReply-b.Len())
			b.WriteString(delta)
			chars += utf8.RuneCountInString(delta)
			if progress != nil {
				progress(chars)
			}
			if cut {
				p.log.Warn("model reply truncated", "limit_bytes", p.maxReply)
				break read
			}
		}
	}
	switch {
	case !sawData:
		return model.Reply{}, errEmptyStream
	case !sawChoice:
		return model.Reply{}, &model.Error{Kind: model.ErrMalformed, Msg: "the stream from " + p.shownURL + " carried no choices"}
	}
	reply.Content = b.String()
	return reply, nil
}

// fromPlainStreamAnswer reads the JSON body a server sent in answer to a
// stream request. If it is no chat completion, streaming counts as refused.
func (p *Provider) fromPlainStreamAnswer(body []byte) (model.Reply, error) {
	var resp goopenai.ChatCompletionResponse
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Choices) == 0 {
		return model.Reply{}, errEmptyStream
	}
	if p.stream == nil && !p.noStream.Swap(true) {
		p.log.Info("the endpoint answers stream requests with plain JSON; not streaming from now on")
	}
	return p.fromCompletion(resp)
}

// truncate cuts s to at most limit bytes at a UTF-8 boundary and reports
// whether it cut.
func truncate(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	limit = max(limit, 0)
	for limit > 0 && !utf8.RuneStart(s[limit]) {
		limit--
	}
	return s[:limit], true
}
