package openai

import (
	"log/slog"
	"net/http"
	"time"
)

// Environment variables read when Options leave a setting empty.
const (
	BaseURLEnv       = "OPENAI_BASE_URL"
	DefaultAPIKeyEnv = "OPENAI_API_KEY"
	ModelEnv         = "FIXLOOP_MODEL"
)

// Defaults of Options.
const (
	DefaultBaseURL       = "https://api.openai.com/v1"
	DefaultTimeout       = 120 * time.Second
	DefaultRetries       = 4
	DefaultBackoffBase   = time.Second
	DefaultRetryAfterCap = 60 * time.Second
	DefaultMaxReplyBytes = 4 << 20
	// MaxBackoff bounds the exponential backoff between attempts (not the
	// wait a server asks for with Retry-After; see RetryAfterCap).
	MaxBackoff = 30 * time.Second
)

// Options configure a Provider. Zero values mean the documented defaults.
type Options struct {
	// BaseURL is the API's base URL, such as http://127.0.0.1:8080/v1.
	// "" means $OPENAI_BASE_URL, else DefaultBaseURL.
	BaseURL string
	// APIKeyEnv names the environment variable that holds the API key; ""
	// means OPENAI_API_KEY. The key is read once, by New. It is never
	// logged and never appears in errors. An unset variable sends no key,
	// which local servers usually accept.
	APIKeyEnv string
	// Model is the model to ask; "" means $FIXLOOP_MODEL. Required.
	Model string
	// Temperature and TopP are sent when not nil. A zero is sent as the
	// smallest positive float32, because the client library leaves zero
	// values out of the request.
	Temperature *float32
	TopP        *float32
	// MaxTokens bounds the reply's length in tokens; 0 leaves it to the
	// server. It is sent as max_completion_tokens to models that refuse
	// max_tokens (o1, o3, o4, gpt-5 and later).
	MaxTokens int
	// Timeout bounds each request attempt, a streamed answer included;
	// default DefaultTimeout. Timeouts are not retried.
	Timeout time.Duration
	// Retries is the number of extra attempts after a 429, a 5xx or a
	// connection failure: 0 means DefaultRetries, a negative number none.
	Retries int
	// BackoffBase is the first wait between attempts; each later wait
	// doubles, up to MaxBackoff, with jitter. Default DefaultBackoffBase.
	BackoffBase time.Duration
	// RetryAfterCap bounds the wait a server asks for with Retry-After on a
	// 429 or 503 (seconds or an HTTP date); default DefaultRetryAfterCap.
	RetryAfterCap time.Duration
	// MaxReplyBytes caps the content kept from one reply; default
	// DefaultMaxReplyBytes. A longer reply is cut (at a UTF-8 boundary) and
	// returned without an error: the caller then finds a truncated code
	// block. A streamed reply stops being read at the cap.
	MaxReplyBytes int
	// Stream selects streaming: nil tries it, and when the server refuses
	// (a 4xx other than 401, 403, 404 or 429 on a stream request, or an
	// answer that is not server-sent events) asks again without streaming
	// and, once that works, stops trying for later calls. A plain JSON
	// answer to a stream request is used as it is. true always streams (a
	// refusal is an error); false never does.
	Stream *bool
	// HTTPClient sends the requests; nil means a client with
	// http.DefaultTransport. Its Timeout, if any, applies as well.
	HTTPClient *http.Client
	// Logger receives debug and retry logs; nil discards them.
	Logger *slog.Logger
}
