package engine

// ContentType is the kind of one block of a tool result.
type ContentType string

// The content types a result can carry.
const (
	TextContent  ContentType = "text"
	ImageContent ContentType = "image"
	AudioContent ContentType = "audio"
)

// Content is one block of a tool result.
type Content struct {
	Type     ContentType
	Text     string // for TextContent
	Data     []byte // raw bytes of ImageContent and AudioContent
	MIMEType string // for ImageContent and AudioContent
}

// Result is the outcome of one tool call, as the client will see it.
type Result struct {
	// Content is what the result shows: one text block, and any image or
	// audio that the action returned.
	Content []Content
	// Structured is the structuredContent: the values of the tool's outputs.
	// It is nil for tools without outputs and for errors.
	Structured map[string]any
	// IsError marks a tool error: bad arguments, a failed action, a result
	// that breaks the output schema.
	IsError bool
}

// Text returns the text of the result's text blocks, joined by newlines.
func (r *Result) Text() string {
	s := ""
	for _, c := range r.Content {
		if c.Type == TextContent {
			if s != "" {
				s += "\n"
			}
			s += c.Text
		}
	}
	return s
}

// errorResult is a tool error with msg as its text.
func errorResult(msg string) *Result {
	return &Result{IsError: true, Content: []Content{{Type: TextContent, Text: msg}}}
}
