package filecache

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCacheLoadsAgainWhenAFileChanges(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f")
	write := func(text string, mod time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	var c Cache[string]
	loads := 0
	load := func() (string, Files, error) {
		loads++
		files := Files{path: Stat(path)}
		b, err := os.ReadFile(path)
		return string(b), files, err
	}
	then := time.Now().Add(-time.Hour)
	write("one", then)
	for range 3 {
		if v, err := c.Get("k", nil, load); v != "one" || err != nil {
			t.Fatalf("Get = %q, %v", v, err)
		}
	}
	write("two", then.Add(time.Second))
	if v, _ := c.Get("k", nil, load); v != "two" || loads != 2 {
		t.Errorf("after a change: %q after %d loads, want two after 2", v, loads)
	}
	if v, _ := c.Get("k", func(string) bool { return false }, load); v != "two" || loads != 3 {
		t.Errorf("not fresh: %d loads, want 3", loads)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get("k", nil, load); err == nil || loads != 4 {
		t.Errorf("removed: err %v after %d loads, want an error after 4", err, loads)
	}
}

func TestCacheLoadsOnceForConcurrentCallers(t *testing.T) {
	t.Parallel()
	var c Cache[int]
	var loads atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			v, _ := c.Get("k", nil, func() (int, Files, error) {
				loads.Add(1)
				<-release
				return 7, nil, nil
			})
			if v != 7 {
				t.Errorf("Get = %d", v)
			}
		})
	}
	// Another key is not held up by the slow load.
	if v, _ := c.Get("other", nil, func() (int, Files, error) { return 1, nil, nil }); v != 1 {
		t.Errorf("other key = %d", v)
	}
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Errorf("%d loads, want 1", n)
	}
}
