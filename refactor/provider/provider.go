// Package provider picks and builds the provider a session uses, the same
// way for the language server and the command line: an explicit kind wins;
// otherwise a configured model name (in settings or FIXLOOP_MODEL) selects
// the OpenAI-compatible endpoint, and no model selects the offline rules.
package provider

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/openai"
	"github.com/fixloop/fixloop/refactor/model/original"
	"github.com/fixloop/fixloop/refactor/model/replay"
	"github.com/fixloop/fixloop/refactor/model/rules"
)

// Kinds of provider.
const (
	KindOpenAI = "openai"
	KindRules  = "rules"
	KindReplay = "replay"
	// KindCopyOriginal answers with the file unchanged: LintEval's
	// do-nothing baseline.
	KindCopyOriginal = original.Name
)

// Settings say which provider to build and how.
type Settings struct {
	// Kind is "openai", "rules", "replay", "copy-original", or "" to
	// choose by Model.
	Kind        string
	BaseURL     string
	Model       string
	APIKeyEnv   string
	Temperature *float32
	TopP        *float32
	MaxTokens   int
	Timeout     time.Duration
	// Replay is the session record whose replies the replay provider gives.
	Replay string
	Logger *slog.Logger
}

// NoModelNote is said when no model is configured and the rules provider
// stands in.
const NoModelNote = "no model is configured (set FIXLOOP_MODEL and OPENAI_BASE_URL, or the model settings): using the offline rules provider, which applies the analyzers' suggested fixes"

// New builds the provider s asks for. note, when not empty, is something
// the user should be told (the offline fallback).
func New(s Settings) (p model.Provider, note string, err error) {
	kind := s.Kind
	if kind == "" {
		kind = KindRules
		if s.Model != "" || os.Getenv(openai.ModelEnv) != "" {
			kind = KindOpenAI
		} else {
			note = NoModelNote
		}
	}
	switch kind {
	case KindRules:
		return rules.New(), note, nil
	case KindCopyOriginal:
		return original.New(), "", nil
	case KindOpenAI:
		p, err := openai.New(openai.Options{
			BaseURL: s.BaseURL, APIKeyEnv: s.APIKeyEnv, Model: s.Model,
			Temperature: s.Temperature, TopP: s.TopP, MaxTokens: s.MaxTokens, Timeout: s.Timeout,
			Logger: s.Logger,
		})
		if err != nil {
			return nil, "", fmt.Errorf("configuring the openai provider: %w", err)
		}
		return p, "", nil
	case KindReplay:
		if s.Replay == "" {
			return nil, "", fmt.Errorf("the replay provider needs a session record to replay")
		}
		rec, err := refactor.ReadRecord(s.Replay)
		if err != nil {
			return nil, "", err
		}
		replies := make([]model.Reply, 0, len(rec.Rounds))
		for _, r := range rec.Rounds {
			replies = append(replies, r.Reply)
		}
		return replay.New(replies, rec.Model), "", nil
	}
	return nil, "", fmt.Errorf("unknown provider %q: use openai, rules, replay or copy-original", kind)
}
