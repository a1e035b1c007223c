package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/toolset"
)

// toolEntry is one tool in `check --tools --json`.
type toolEntry struct {
	Name     string `json:"name"`
	Language string `json:"language,omitempty"`
	Found    bool   `json:"found"`
	Path     string `json:"path,omitempty"`
	Version  string `json:"version,omitempty"`
	Package  string `json:"package,omitempty"`
	Install  string `json:"install,omitempty"`
	Message  string `json:"message,omitempty"`
	// Optional says what asks for a tool nothing else needs ("java.pmd").
	Optional string `json:"optional,omitempty"`
}

// toolsOutput is `check --tools --json`.
type toolsOutput struct {
	Tools []toolEntry `json:"tools"`
	Notes []string    `json:"notes"`
}

// runTools lists the tools fixloop can use (with the command linters of the
// .fixloop.yaml above the working directory), what was found and the
// versions, and what provides the missing ones.
func runTools(ctx context.Context, w io.Writer, asJSON bool) error {
	wd, err := os.Getwd()
	if err != nil {
		return &exitError{code: ExitUsage, err: fmt.Errorf("finding the working directory: %w", err)}
	}
	// configRoot starts at a file's directory: name one in wd.
	cfg, problems := toolset.ResolveConfig(toolset.ConfigRoot(filepath.Join(wd, config.FileName)))
	if len(problems) > 0 {
		return &exitError{code: ExitUsage, err: fmt.Errorf("configuration: %w", problems)}
	}
	out := toolsOutput{Notes: toolset.Diagnose(ctx)}
	for _, st := range toolset.Discover(ctx, cfg) {
		e := toolEntry{
			Name: st.Tool.Name, Language: st.Tool.Language, Found: st.Err == nil, Path: st.Path,
			Version: st.Version, Package: st.Tool.Package, Install: st.Tool.Install, Optional: st.Tool.Optional,
		}
		if st.Err != nil {
			e.Message = st.Err.Error()
		}
		out.Tools = append(out.Tools, e)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return &exitError{code: ExitUsage, err: fmt.Errorf("writing JSON: %w", err)}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tLANGUAGE\tSTATUS\tVERSION / HOW TO INSTALL")
	for _, e := range out.Tools {
		lang := e.Language
		if lang == "" {
			lang = "-"
		}
		if e.Found {
			fmt.Fprintf(tw, "%s\t%s\tfound %s\t%s\n", e.Name, lang, e.Path, e.Version)
			continue
		}
		how := e.Package
		if e.Install != "" {
			how += ": " + e.Install
		}
		status := "MISSING"
		if e.Optional != "" {
			status = "not installed (optional: " + e.Optional + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, lang, status, how)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range out.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
	return nil
}
