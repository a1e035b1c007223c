package config

import (
	"math"
	"strconv"
)

// kind is the type of a settings value, whether it came from YAML or JSON.
type kind int

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindList
	kindMap
)

// String describes the kind for messages ("not a list").
func (k kind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "true/false"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindList:
		return "a list"
	case kindMap:
		return "a map"
	}
	return "unknown"
}

// value is a settings document converted from YAML or JSON, so that one
// walker validates both. Positions are 1-based, 0 when unknown (JSON).
type value struct {
	kind      kind
	line, col int

	text   string  // scalars: the text as written (strings unquoted)
	num    float64 // kindNumber
	intNum int64   // kindNumber, when isInt
	isInt  bool    // kindNumber written as a whole number that fits int64

	items  []*value // kindList
	fields []field  // kindMap, in document order
}

// field is one key of a map.
type field struct {
	key       string
	line, col int // position of the key
	val       *value
}

// show formats the value for messages: strings quoted, other scalars as
// written, collections by kind.
func (v *value) show() string {
	switch v.kind {
	case kindString:
		return strconv.Quote(v.text)
	case kindList, kindMap:
		return v.kind.String()
	}
	return v.text
}

// setNumber fills a kindNumber value from its literal text and float value.
func (v *value) setNumber(text string, f float64) {
	v.kind = kindNumber
	v.text = text
	v.num = f
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		v.intNum, v.isInt = i, true
	} else if f == math.Trunc(f) && math.Abs(f) < 1<<62 {
		v.intNum, v.isInt = int64(f), true
	}
}
