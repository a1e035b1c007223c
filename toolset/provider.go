package toolset

import (
	"log/slog"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/provider"
)

// ConfiguredProvider builds a session's provider from the configuration.
func ConfiguredProvider(logger *slog.Logger) func(config.Config) (model.Provider, string, error) {
	return func(cfg config.Config) (model.Provider, string, error) {
		s := ProviderSettings(cfg)
		s.Logger = logger
		return provider.New(s)
	}
}

// ProviderSettings are the provider settings of cfg's model section; the
// CLI lays its flags over them.
func ProviderSettings(cfg config.Config) provider.Settings {
	m := cfg.Model
	return provider.Settings{
		BaseURL: m.BaseURL, Model: m.Name, APIKeyEnv: m.APIKeyEnv, Temperature: m.Temperature,
		TopP: m.TopP, MaxTokens: m.MaxTokens, Timeout: m.Timeout,
	}
}
