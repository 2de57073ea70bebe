package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// message words one violation for people. got is the value at fault, or
// nil when it is not known. With hide, as for the value of a sensitive
// argument, the message shows nothing of the value, whatever its type:
// neither the value nor a number derived from it, only its type.
func (v *Validator) message(k jsonschema.ErrorKind, got any, hide bool) string {
	if hide {
		return hiddenMessage(k, v.message(k, nil, false))
	}
	switch k := k.(type) {
	case *kind.Type:
		return "must be " + typeList(k.Want) + ", but got " + describe(got, k.Got)
	case *kind.Enum:
		if len(k.Want) == 1 {
			return "must be " + jsonenc.Text(k.Want[0])
		}
		return "must be one of " + jsonList(k.Want)
	case *kind.Const:
		return "must be " + jsonenc.Text(k.Want)
	case *kind.Format:
		msg := "must be a valid " + formatName(k.Want)
		if le, ok := k.Err.(interface {
			LocalizedError(*message.Printer) string
		}); ok {
			msg += " (" + le.LocalizedError(v.printer) + ")"
		} else if se := (*syntax.Error)(nil); errors.As(k.Err, &se) {
			msg += " (" + se.Code.String() + ")" // without the value
		}
		return msg
	case *kind.MinLength:
		return fmt.Sprintf("must have at least %s, but has %d", count(k.Want, "character", "characters"), k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must have at most %s, but has %d", count(k.Want, "character", "characters"), k.Got)
	case *kind.Pattern:
		return "must match the pattern " + k.Want
	case *kind.Minimum:
		return "must be at least " + rat(k.Want) + ", but got " + rat(k.Got)
	case *kind.Maximum:
		return "must be at most " + rat(k.Want) + ", but got " + rat(k.Got)
	case *kind.ExclusiveMinimum:
		return "must be greater than " + rat(k.Want) + ", but got " + rat(k.Got)
	case *kind.ExclusiveMaximum:
		return "must be less than " + rat(k.Want) + ", but got " + rat(k.Got)
	case *kind.MultipleOf:
		return "must be a multiple of " + rat(k.Want) + ", but got " + rat(k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %s, but has %d", count(k.Want, "item", "items"), k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %s, but has %d", count(k.Want, "item", "items"), k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("must not contain duplicates, but items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.AdditionalItems:
		return fmt.Sprintf("has %s more than allowed", count(k.Count, "item", "items"))
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %s, but has %d", count(k.Want, "property", "properties"), k.Got)
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %s, but has %d", count(k.Want, "property", "properties"), k.Got)
	case *kind.Contains:
		return `must contain at least one item that matches the schema under "contains"`
	case *kind.MinContains:
		return fmt.Sprintf(`must contain at least %s that match the schema under "contains", but has %d`, count(k.Want, "item", "items"), len(k.Got))
	case *kind.MaxContains:
		return fmt.Sprintf(`must contain at most %s that match the schema under "contains", but has %d`, count(k.Want, "item", "items"), len(k.Got))
	case *kind.Not:
		return `must not match the schema under "not"`
	case *kind.OneOf:
		if len(k.Subschemas) == 2 {
			return fmt.Sprintf(`must match exactly one of the schemas under "oneOf", but matches both %d and %d`, k.Subschemas[0], k.Subschemas[1])
		}
		return `must match exactly one of the schemas under "oneOf"`
	case *kind.AnyOf:
		return `must match at least one of the schemas under "anyOf"`
	case *kind.FalseSchema:
		return "is not allowed"
	case *kind.InvalidJsonValue:
		if f, ok := k.Value.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return fmt.Sprintf("is %v, which JSON cannot represent", f)
		}
		return fmt.Sprintf("is not a JSON value but a Go %T", k.Value)
	}
	return k.LocalizedString(v.printer)
}

// hiddenMessage words a violation without anything of the value at fault:
// plain is the message as worded for a value that is not known, used when
// it holds nothing of the value.
func hiddenMessage(k jsonschema.ErrorKind, plain string) string {
	switch k := k.(type) {
	case *kind.Type:
		return "must be " + typeList(k.Want) + ", but got " + typeWord(k.Got)
	case *kind.Format:
		return "must be a valid " + formatName(k.Want)
	case *kind.Minimum:
		return "must be at least " + rat(k.Want)
	case *kind.Maximum:
		return "must be at most " + rat(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be greater than " + rat(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be less than " + rat(k.Want)
	case *kind.MultipleOf:
		return "must be a multiple of " + rat(k.Want)
	case *kind.InvalidJsonValue:
		return "is not a JSON value"
	case *kind.Enum, *kind.Const, *kind.MinLength, *kind.MaxLength, *kind.Pattern,
		*kind.MinItems, *kind.MaxItems, *kind.UniqueItems, *kind.AdditionalItems,
		*kind.MinProperties, *kind.MaxProperties, *kind.Contains, *kind.MinContains,
		*kind.MaxContains, *kind.Not, *kind.OneOf, *kind.AnyOf, *kind.FalseSchema:
		return plain // words the schema, and counts, not the value
	}
	return "does not match the schema"
}

// unknownProperty words the violation of a property that the schema does
// not allow, given the properties it does allow.
func unknownProperty(name string, known []string) string {
	switch {
	case known == nil:
		return "unknown property"
	case len(known) == 0:
		return "unknown property; no properties are allowed here"
	}
	if s := suggest(name, known, nil); s != "" {
		return "unknown property; did you mean " + quote(s) + "?"
	}
	const most = 20
	quoted := make([]string, 0, min(len(known), most))
	for _, k := range known[:min(len(known), most)] {
		quoted = append(quoted, quote(k))
	}
	list := strings.Join(quoted, ", ")
	if len(known) > most {
		list += " and " + strconv.Itoa(len(known)-most) + " more"
	}
	if len(known) == 1 {
		return "unknown property; the only known property is " + list
	}
	return "unknown property; the known properties are " + list
}

// typeList words JSON Schema type names: "an integer", "a string or null".
func typeList(names []string) string {
	words := make([]string, len(names))
	for i, n := range names {
		words[i] = typeWord(n)
	}
	return strings.Join(words, " or ")
}

// typeWord words one JSON Schema type name with its article.
func typeWord(name string) string {
	switch name {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + name
	}
	return "a " + name
}

// describe words the value at fault: numbers and booleans as they are,
// other values by their type only. typ is the JSON type of got, as the
// validator named it.
func describe(got any, typ string) string {
	switch g := got.(type) {
	case bool:
		return strconv.FormatBool(g)
	case json.Number:
		return g.String()
	case float64:
		return formatFloat(g)
	case float32:
		return formatFloat(float64(g))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(g)
	}
	return typeWord(typ)
}

// formatFloat writes a number as JSON would.
func formatFloat(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// rat writes an exact number from the validator.
func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return formatFloat(f)
}

// count words n things: "1 item", "3 items".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// jsonList writes values from the schema as a list of JSON texts.
func jsonList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = jsonenc.Text(v)
	}
	return strings.Join(parts, ", ")
}

// formatName words a format for people.
func formatName(name string) string {
	switch name {
	case "email", "idn-email":
		return "email address"
	case "date-time":
		return "date-time in RFC 3339 form, such as 2024-05-01T12:00:00Z"
	case "date":
		return "date in the form YYYY-MM-DD"
	case "time":
		return "time in RFC 3339 form, such as 12:00:00Z"
	case "uri", "iri":
		return "absolute URI, such as https://example.com/"
	case "uri-reference", "iri-reference":
		return "URI reference"
	case "uuid":
		return "UUID"
	case "ipv4":
		return "IPv4 address"
	case "ipv6":
		return "IPv6 address"
	case "hostname", "idn-hostname":
		return "hostname"
	case "duration":
		return "ISO 8601 duration, such as P1DT12H"
	case "regex":
		return "regular expression"
	}
	return name
}

// quote writes a name in single quotes.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}
