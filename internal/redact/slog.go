package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler returns a slog.Handler that redacts every record's message and
// its attributes' values (strings; errors and other values by the text
// they print as, which replaces a value only when it held a secret), in
// groups too, and hands the record on to h. Attributes given to WithAttrs
// are redacted once, there. Wrapping a handler this Redactor already wraps
// returns it unchanged.
func (r *Redactor) Handler(h slog.Handler) slog.Handler {
	if rh, ok := h.(*handler); ok && rh.r == r {
		return h
	}
	return &handler{r: r, h: h}
}

type handler struct {
	r *Redactor
	h slog.Handler
}

func (h *handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.h.Enabled(ctx, level)
}

func (h *handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.r.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.r.attr(a)
	}
	return &handler{r: h.r, h: h.h.WithAttrs(red)}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{r: h.r, h: h.h.WithGroup(name)}
}

// attr redacts an attribute's value.
func (r *Redactor) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.String(v.String()))
	case slog.KindGroup:
		group := v.Group()
		red := make([]slog.Attr, len(group))
		for i, g := range group {
			red[i] = r.attr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	case slog.KindAny:
		// As the handlers print it (fmt recovers from a nil receiver's
		// panic).
		text := fmt.Sprintf("%+v", v.Any())
		if err, ok := v.Any().(error); ok {
			text = fmt.Sprint(err)
		}
		if red := r.String(text); red != text {
			return slog.String(a.Key, red)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
