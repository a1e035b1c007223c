package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// wrapperKey is the key under which VS Code-style clients nest the settings.
const wrapperKey = "fixloop"

// ApplySettings applies editor settings, given as JSON, over base. source
// names where they came from ("initializationOptions" or "settings") and is
// used in problems.
//
// raw may hold the fixloop settings themselves or wrap them as
// {"fixloop": {...}}; in the latter case other top-level keys are ignored.
// Empty input and null change nothing. Only keys present override, and a key
// whose value is null counts as absent. Validation and partial application
// are as in [LoadFile]; problems have no line numbers.
func ApplySettings(base Config, raw []byte, source string) (Config, Problems) {
	return Loader{}.ApplySettings(base, raw, source)
}

// ApplySettings is [ApplySettings] with l's check validator.
func (l Loader) ApplySettings(base Config, raw []byte, source string) (Config, Problems) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return base, nil
	}
	root, err := parseJSON(raw)
	if err != nil {
		return base, Problems{{Source: source, Message: fmt.Sprintf("invalid JSON: %v", err)}}
	}
	field := ""
	if root.kind == kindMap {
		for _, f := range root.fields {
			if f.key == wrapperKey {
				root, field = f.val, wrapperKey
				break
			}
		}
	}
	if field != "" && root.kind != kindMap && root.kind != kindNull {
		return base, Problems{{Source: source, Field: field, Message: fmt.Sprintf("must be a map with keys %s, not %s", keyList(rootKeys()), root.kind)}}
	}
	return l.apply(base, root, source)
}

// parseJSON converts one JSON value into a value tree, keeping key order and
// duplicate keys. Positions are left 0.
func parseJSON(raw []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := jsonValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the top-level value at byte offset %d", dec.InputOffset())
	}
	return v, nil
}

// jsonValue reads the next value from dec.
func jsonValue(dec *json.Decoder) (*value, error) {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &value{kind: kindNull, text: "null"}, nil
	case bool:
		return &value{kind: kindBool, text: strconv.FormatBool(t)}, nil
	case json.Number:
		f, _ := t.Float64() // the decoder checked the syntax; out of range gives ±Inf
		v := &value{}
		v.setNumber(t.String(), f)
		return v, nil
	case string:
		return &value{kind: kindString, text: t}, nil
	case json.Delim:
		if t == '[' {
			v := &value{kind: kindList}
			for dec.More() {
				item, err := jsonValue(dec)
				if err != nil {
					return nil, err
				}
				v.items = append(v.items, item)
			}
			_, err := dec.Token() // ']'
			return v, err
		}
		v := &value{kind: kindMap}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := k.(string)
			val, err := jsonValue(dec)
			if err != nil {
				return nil, err
			}
			v.fields = append(v.fields, field{key: key, val: val})
		}
		_, err := dec.Token() // '}'
		return v, err
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// TrustSetting reports whether editor settings (JSON, as for
// [ApplySettings]) say whether the workspace is trusted: the boolean key
// "trusted" at the top level or inside the {"fixloop": {...}} wrapper
// (the wrapper's wins). ok is false when neither holds a boolean, so that
// a settings change that does not mention trust leaves it as it was.
func TrustSetting(raw []byte) (trusted, ok bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return false, false
	}
	root, err := parseJSON(raw)
	if err != nil || root.kind != kindMap {
		return false, false
	}
	for _, f := range root.fields {
		switch {
		case f.key == "trusted" && f.val.kind == kindBool:
			if !ok { // the first one
				trusted, ok = f.val.text == "true", true
			}
		case f.key == wrapperKey && f.val.kind == kindMap:
			for _, g := range f.val.fields {
				if g.key == "trusted" && g.val.kind == kindBool {
					return g.val.text == "true", true
				}
			}
		}
	}
	return trusted, ok
}
