package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxNodes bounds the size of a converted document, so that nested YAML
// aliases cannot expand without limit.
const maxNodes = 100_000

// LoadFile reads the YAML file at path and applies it over base.
//
// A missing file is not a problem: LoadFile returns base unchanged and nil.
// Every mistake (a syntax error, an unknown key, a wrong type, a bad duration,
// an out-of-range value, a value that is not one of the allowed ones) is a
// [Problem]. Valid keys are applied even when others are wrong; a wrong key
// keeps base's value.
func LoadFile(path string, base Config) (Config, Problems) {
	return Loader{}.LoadFile(path, base)
}

// LoadFile is [LoadFile] with l's check validator.
func (l Loader) LoadFile(path string, base Config) (Config, Problems) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return base, nil
	}
	if err != nil {
		return base, Problems{{Source: path, Message: fmt.Sprintf("cannot read the file: %v", err)}}
	}
	return l.applyYAML(base, data, path)
}

// applyYAML parses data as a YAML settings document and applies it.
func (l Loader) applyYAML(base Config, data []byte, source string) (Config, Problems) {
	root, ps := parseYAML(data, source)
	if ps != nil || root == nil {
		return base, ps
	}
	return l.applyAs(base, root, source, true)
}

// parseYAML converts data into a value tree; nil means an empty document.
func parseYAML(data []byte, source string) (*value, Problems) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // empty, or only comments
		}
		line, msg := yamlErrorPosition(err, data)
		return nil, Problems{{Source: source, Line: line, Message: "invalid YAML: " + msg}}
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		p := Problem{Source: source, Message: "the file must hold one YAML document; remove the second one (after \"---\") or merge them"}
		if err == nil {
			p.Line, p.Column = next.Line, next.Column
		}
		return nil, Problems{p}
	}
	c := converter{source: source}
	root := c.convert(&doc, 0)
	if c.tooBig {
		return nil, Problems{{Source: source, Message: fmt.Sprintf("the document is too large: it expands to more than %d values (check for aliases)", maxNodes)}}
	}
	return root, nil
}

// converter turns yaml.Nodes into values.
type converter struct {
	source string
	nodes  int
	tooBig bool
}

// convert converts n; depth guards against alias cycles.
func (c *converter) convert(n *yaml.Node, depth int) *value {
	c.nodes++
	if c.nodes > maxNodes || depth > 64 {
		c.tooBig = true
		return &value{kind: kindNull}
	}
	for n.Kind == yaml.DocumentNode || n.Kind == yaml.AliasNode {
		switch {
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			// Report positions where the alias is used, values where defined.
			v := c.convert(n.Alias, depth+1)
			cp := *v
			cp.line, cp.col = n.Line, n.Column
			return &cp
		default:
			return &value{kind: kindNull, line: n.Line, col: n.Column}
		}
	}
	v := &value{line: n.Line, col: n.Column, text: n.Value}
	switch n.Kind {
	case yaml.MappingNode:
		v.kind = kindMap
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			v.fields = append(v.fields, field{
				key:  k.Value,
				line: k.Line,
				col:  k.Column,
				val:  c.convert(val, depth+1),
			})
		}
	case yaml.SequenceNode:
		v.kind = kindList
		for _, item := range n.Content {
			v.items = append(v.items, c.convert(item, depth+1))
		}
	case yaml.ScalarNode:
		c.scalar(n, v)
	default:
		v.kind = kindNull
	}
	return v
}

// scalar sets v's kind from n's resolved tag.
func (c *converter) scalar(n *yaml.Node, v *value) {
	v.kind = kindString // also for timestamps, binary and custom tags
	switch n.ShortTag() {
	case "!!null":
		v.kind = kindNull
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			v.kind = kindBool
		}
	case "!!int", "!!float":
		var f float64
		if n.Decode(&f) == nil {
			v.setNumber(n.Value, f)
		}
	}
}

// yamlErrLine matches the position yaml.v3 puts in its syntax errors.
var yamlErrLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// yamlErrorPosition extracts a 1-based line and a message from a yaml.v3
// parse error. yaml.v3 reports scanner errors with 1-based lines but parser
// errors with 0-based lines, and leaves out line 1 entirely; this undoes both.
func yamlErrorPosition(err error, data []byte) (line int, msg string) {
	m := yamlErrLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, err.Error()
	}
	msg = m[2]
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name = strings.TrimSuffix(name, "' referenced")
		return lineOf(data, "*"+name), msg
	}
	if m[1] != "" {
		line, _ = strconv.Atoi(m[1])
	}
	if isParserError(msg) {
		line++ // 0-based, or absent for the first line
	} else if line == 0 {
		line = 1
	}
	return line, msg
}

// isParserError reports whether msg is one of yaml.v3's parser (as opposed to
// scanner) errors, whose lines are 0-based.
func isParserError(msg string) bool {
	return strings.HasPrefix(msg, "did not find expected") ||
		strings.HasPrefix(msg, "found undefined tag handle") ||
		strings.HasPrefix(msg, "found duplicate %") ||
		strings.HasPrefix(msg, "found incompatible YAML document")
}

// lineOf returns the 1-based line of the first occurrence of s in data, or 0.
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}
