package openai

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestProbe: an endpoint that answers anything but 401 or 403 to GET
// /models is reachable (a 404 too); a closed port or a refused key is an
// error naming the endpoint; the key goes in the Authorization header, as
// completions send it.
func TestProbe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()

	tests := []struct {
		name    string
		status  int // 0: the closed port
		key     string
		wantErr []string
	}{
		{"models listed", http.StatusOK, "k", nil},
		{"no /models", http.StatusNotFound, "k", nil},
		{"server error", http.StatusInternalServerError, "", nil},
		{"bad key", http.StatusUnauthorized, "sekret", []string{"refused the API key in $FIXLOOP_PROBE_KEY", "HTTP 401"}},
		{"no key", http.StatusForbidden, "", []string{"without an API key", "HTTP 403", "$FIXLOOP_PROBE_KEY is not set"}},
		{"closed port", 0, "k", []string{closed, "cannot be reached", "--base-url"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("FIXLOOP_PROBE_KEY", tt.key)
			base := closed
			var auth atomic.Value
			if tt.status != 0 {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
						t.Errorf("probe asked %s %s", r.Method, r.URL.Path)
					}
					auth.Store(r.Header.Get("Authorization"))
					w.WriteHeader(tt.status)
				}))
				defer srv.Close()
				base = srv.URL + "/v1/"
			}
			p, err := New(Options{BaseURL: base, Model: "m", APIKeyEnv: "FIXLOOP_PROBE_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			err = p.Probe(context.Background())
			if len(tt.wantErr) == 0 && err != nil {
				t.Fatalf("Probe: %v", err)
			}
			for _, want := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Probe: %v, want it to say %q", err, want)
				}
			}
			if tt.status != 0 {
				want := ""
				if tt.key != "" {
					want = "Bearer " + tt.key
				}
				if got, _ := auth.Load().(string); got != want {
					t.Errorf("Authorization %q, want %q", got, want)
				}
			}
			if err != nil && strings.Contains(err.Error(), "sekret") {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, _ := New(Options{BaseURL: closed, Model: "m"})
	if err := p.Probe(ctx); err != context.Canceled {
		t.Errorf("Probe with an ended context: %v, want context.Canceled", err)
	}
}
