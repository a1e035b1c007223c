package server_test

import (
	"bytes"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/server"
)

// The stream reuses one buffer for every frame it reads, so nothing decoded
// may alias the bytes the codec was given.
func TestCodecDecodesIntoValuesItOwns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		data  string
		v     func() any
		title func(any) string
	}{
		{"code actions result", `[{"title":"Replace BAD","kind":"quickfix"}]`,
			func() any { return new([]protocol.CommandOrCodeAction) },
			func(v any) string {
				ca := (*v.(*[]protocol.CommandOrCodeAction))[0].(*protocol.CodeAction)
				return ca.Title + " " + string(*ca.Kind)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := []byte(tt.data)
			v := tt.v()
			if err := server.Codec().Unmarshal(buf, v); err != nil {
				t.Fatal(err)
			}
			want := tt.title(v)
			copy(buf, bytes.Repeat([]byte("x"), len(buf))) // the next frame
			if got := tt.title(v); got != want {
				t.Errorf("after the buffer was reused: %q, want %q", got, want)
			}
		})
	}
}
