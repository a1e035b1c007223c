package rpcctx

import (
	"context"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// TestStableSurvivesDerivedContexts sends many requests whose handlers
// derive cancelable contexts, as protocol.CancelHandler does, and some that
// release the read loop with jsonrpc2.Async. Without Stable this panics in
// jsonrpc2 v1.0.1 once recycled requests are reused.
func TestStableSurvivesDerivedContexts(t *testing.T) {
	a, b := net.Pipe()
	srv := jsonrpc2.NewConn(jsonrpc2.NewStream(a))
	srv.Go(context.Background(), Stable(func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		child, cancel := context.WithCancel(ctx)
		defer cancel()
		if req.Method() == "async" {
			jsonrpc2.Async(ctx)
		}
		select {
		case <-child.Done():
			return nil, child.Err()
		default:
			return "ok", nil
		}
	}))
	cli := jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	cli.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	t.Cleanup(func() { _ = cli.Close(); _ = srv.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // room for a loaded machine (-race)
	defer cancel()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				method := "sync"
				if (i+w)%3 == 0 {
					method = "async"
				}
				var res string
				if _, err := cli.Call(ctx, method, nil, &res); err != nil || res != "ok" {
					t.Errorf("call %d: %q, %v", i, res, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	// Give any stray propagateCancel goroutines the chance to run.
	for i := 0; i < 10; i++ {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}
