package runner

import (
	"fmt"
	"os"
)

// ReadText returns the overlay's text for path (what the editor holds),
// else the file on disk.
func ReadText(path string, overlay map[string][]byte) ([]byte, error) {
	if text, ok := overlay[path]; ok {
		return text, nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return text, nil
}
