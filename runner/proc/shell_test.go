package proc

import (
	"os/exec"
	"testing"
)

func TestIsShellScript(t *testing.T) {
	tests := []struct {
		argv []string
		i    int
		want bool
	}{
		{[]string{"sh", "-c", "cat ${file}"}, 2, true},
		{[]string{"/bin/bash", "-ec", "x"}, 2, true},
		{[]string{"sh", "script.sh", "${file}"}, 2, false},
		{[]string{"flake8", "-c", "${file}"}, 2, false},
		{[]string{"sh", "-c"}, 2, false},
	}
	for _, tt := range tests {
		if got := IsShellScript(tt.argv, tt.i); got != tt.want {
			t.Errorf("IsShellScript(%q, %d) = %v, want %v", tt.argv, tt.i, got, tt.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain", "x$(touch /tmp/pwned).sh", "it's", "a b\tc", ""} {
		out, err := exec.Command("sh", "-c", "printf %s "+ShellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh read %q back as %q (%v)", s, out, err)
		}
	}
}
