package cli

import (
	"strings"
	"testing"
	"time"
)

// TestRescueAfter: --rescue-after given is kept; not given, it is the
// session timeout plus a quarter and two minutes, so that the job's own
// limit (nine tenths of it) comes after the session's; without a session
// timeout it is the flag's default.
func TestRescueAfter(t *testing.T) {
	tests := []struct {
		name           string
		flag           time.Duration
		given          bool
		sessionTimeout time.Duration
		want           time.Duration
	}{
		{"no timeout: the default", defaultRescueAfter, false, 0, defaultRescueAfter},
		{"given, no timeout", time.Hour, true, 0, time.Hour},
		{"given wins over the timeout", 5 * time.Minute, true, time.Hour, 5 * time.Minute},
		{"10 min", defaultRescueAfter, false, 10 * time.Minute, 14*time.Minute + 30*time.Second},
		{"30 min", defaultRescueAfter, false, 30 * time.Minute, 39*time.Minute + 30*time.Second},
		{"4 hours", defaultRescueAfter, false, 4 * time.Hour, 5*time.Hour + 2*time.Minute},
		{"1 s", defaultRescueAfter, false, time.Second, 2*time.Minute + 1250*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rescueAfter(tt.flag, tt.given, tt.sessionTimeout)
			if got != tt.want {
				t.Errorf("rescueAfter(%v, %v, %v) = %v, want %v", tt.flag, tt.given, tt.sessionTimeout, got, tt.want)
			}
			if !tt.given && tt.sessionTimeout > 0 {
				if limit := got * 9 / 10; limit < tt.sessionTimeout+time.Minute {
					t.Errorf("the job's limit %v leaves a session of %v less than a minute to be stored", limit, tt.sessionTimeout)
				}
				if w := rescueWarning(got, tt.sessionTimeout); w != "" {
					t.Errorf("the derived value draws a warning: %s", w)
				}
			}
		})
	}
	if w := rescueWarning(30*time.Minute, time.Hour); !strings.Contains(w, "before its session's timeout of 1h0m0s") || !strings.Contains(w, "--rescue-after 1h17m0s or more") {
		t.Errorf("rescueWarning(30m, 1h) = %q", w)
	}
	if w := rescueWarning(30*time.Minute, 0); w != "" {
		t.Errorf("a warning without a session timeout: %q", w)
	}
}
