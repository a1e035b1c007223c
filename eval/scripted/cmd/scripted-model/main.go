// Command scripted-model serves the scripted OpenAI-compatible model of
// package scripted: it answers each problem of a fixloop eval dataset from
// a folder of answers, so that the bundled dataset runs offline through
// fixloop eval's openai provider, queue, workers and report:
//
//	go run ./eval/scripted/cmd/scripted-model -addr 127.0.0.1:8089 &
//	go run . eval --model scripted --base-url http://127.0.0.1:8089/v1 --run scripted testdata/eval
//
// It serves until interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/eval/scripted"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "scripted-model:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:8089", "the address to listen on")
	dataset := flag.String("dataset", "testdata/eval", "the dataset whose problems it answers")
	answers := flag.String("answers", "testdata/eval-answers", "the folder of answers: ID/FILE for problem ID ('' or none: the file unchanged)")
	flag.Parse()
	problems, err := eval.Load(*dataset)
	if err != nil {
		return err
	}
	m, err := scripted.New(problems, *answers)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	srv := &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	slog.Info("scripted model serving", "url", "http://"+ln.Addr().String()+"/v1", "model", scripted.ModelName, "problems", len(problems))
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	slog.Info("scripted model stopped", "requests", m.Requests())
	return nil
}
