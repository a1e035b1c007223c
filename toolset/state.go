package toolset

import (
	"os"
	"path/filepath"
)

// DefaultRecordDir is $XDG_STATE_HOME/fixloop/sessions, or
// ~/.local/state/fixloop/sessions.
func DefaultRecordDir() string { return stateDir("sessions") }

// DefaultQueueDir holds sessions on their way to the store:
// $XDG_STATE_HOME/fixloop/queue, or ~/.local/state/fixloop/queue.
func DefaultQueueDir() string { return stateDir("queue") }

func stateDir(name string) string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "fixloop", name)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "state", "fixloop", name)
}
