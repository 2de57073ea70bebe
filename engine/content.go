package engine

import (
	"encoding/base64"
	"fmt"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// ContentSpec is one declared content block of a tool: its fields are
// mappings evaluated per call, after the action and the outputs.
type ContentSpec struct {
	Type ContentType
	// When, if not nil, must yield a bool: false leaves the block out.
	When mapping.Value
	// The fields the type uses; nil when not set.
	Text, Data, Blob, MIMEType, URI, Name, Title, Description mapping.Value
	Annotations                                               *ContentAnnotations
}

// build evaluates the block for one call; ok is false when When leaves it
// out. With clean, a text written as the JSON of a value is written from
// the value cleaned (see [text.SanitizeValue]): once in JSON, a control
// character is an escape that cleaning the text cannot see.
func (c *ContentSpec) build(env map[string]any, clean bool) (content Content, ok bool, err error) {
	if c.When != nil {
		v, err := c.When.Eval(env)
		if err != nil {
			return Content{}, false, err
		}
		b, isBool := v.(bool)
		if !isBool {
			return Content{}, false, fmt.Errorf("the when of %s content block must yield true or false, but it yielded %s", text.WithArticle(string(c.Type)), mapping.Describe(v))
		}
		if !b {
			return Content{}, false, nil
		}
	}
	content = Content{Type: c.Type, Annotations: c.Annotations}
	fields := []struct {
		name string
		v    mapping.Value
		dst  *string
	}{
		{"text", c.Text, &content.Text},
		{"mime_type", c.MIMEType, &content.MIMEType},
		{"uri", c.URI, &content.URI},
		{"name", c.Name, &content.Name},
		{"title", c.Title, &content.Title},
		{"description", c.Description, &content.Description},
	}
	for _, f := range fields {
		if f.v == nil {
			continue
		}
		v, err := f.v.Eval(env)
		if err != nil {
			return Content{}, false, err
		}
		switch s := v.(type) {
		case string:
			*f.dst = s
		case nil:
		default:
			if f.name != "text" {
				return Content{}, false, fmt.Errorf("the %s of %s content block must be a string, but it is %s", f.name, text.WithArticle(string(c.Type)), mapping.Describe(v))
			}
			if clean {
				v = text.SanitizeValue(v)
			}
			*f.dst = jsonText(v)
		}
	}
	for _, f := range []struct {
		name string
		v    mapping.Value
	}{{"data", c.Data}, {"blob", c.Blob}} {
		if f.v == nil {
			continue
		}
		v, err := f.v.Eval(env)
		if err != nil {
			return Content{}, false, err
		}
		s, isString := v.(string)
		if !isString {
			return Content{}, false, fmt.Errorf("the %s of %s content block must be a base64 string, but it is %s", f.name, text.WithArticle(string(c.Type)), mapping.Describe(v))
		}
		if content.Data, err = base64.StdEncoding.DecodeString(s); err != nil {
			return Content{}, false, fmt.Errorf("the %s of %s content block is not valid base64: %v", f.name, text.WithArticle(string(c.Type)), err)
		}
	}
	return content, true, nil
}
