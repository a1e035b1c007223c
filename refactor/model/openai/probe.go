package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// ProbeTimeout bounds Probe's request.
const ProbeTimeout = 10 * time.Second

// Probe asks the endpoint for its model list (GET <base>/models) once,
// with the API key as a completion request sends it, so that an endpoint
// that cannot answer is found before a session relies on it. It fails
// when the endpoint cannot be reached (connection refused, DNS, no answer
// within ProbeTimeout) or refuses the key (401 or 403); any other HTTP
// answer counts as reachable, a 404 included: some compatible servers
// have no /models. The error names the endpoint and what to check; when
// ctx ends, Probe returns ctx.Err().
func (p *Provider) Probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(pctx, http.MethodGet, p.base+"/models", nil)
	if err != nil {
		return fmt.Errorf("the model endpoint %s: %w", p.shownURL, err)
	}
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var why string
		var uerr *url.Error
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			why = fmt.Sprintf("no answer within %s", ProbeTimeout)
		case errors.As(err, &uerr):
			why = uerr.Err.Error() // without the URL, which may hold a password
		default:
			why = err.Error()
		}
		p.log.Debug("model endpoint probe failed", "base_url", p.shownURL, "error", why)
		return fmt.Errorf("the model endpoint %s cannot be reached (%s): check --base-url (or model.baseUrl in .fixloop.yaml, or $%s) and that the model server is running",
			p.shownURL, why, BaseURLEnv)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	p.log.Debug("model endpoint probed", "base_url", p.shownURL, "status", resp.StatusCode)
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return nil
	}
	if p.key == "" {
		return fmt.Errorf("the model endpoint %s refused a request without an API key (HTTP %d on GET /models): $%s is not set; set it to the endpoint's key (or name another variable with --api-key-env)",
			p.shownURL, resp.StatusCode, p.keyEnv)
	}
	return fmt.Errorf("the model endpoint %s refused the API key in $%s (HTTP %d on GET /models): check that the key is valid for this endpoint (or name another variable with --api-key-env)",
		p.shownURL, p.keyEnv, resp.StatusCode)
}
