package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
)

// MaxMessageBytes caps one message from the client: a document of the
// largest size a configuration file may have (10 MiB) fits many times.
const MaxMessageBytes = 64 << 20

// codec frames messages as the Language Server Protocol does
// (Content-Length headers). Unlike jsonrpc2's own, it skips a message
// whose body is not JSON-RPC, saying so in the log, instead of closing the
// connection; a header it cannot read, or a message larger than
// MaxMessageBytes, ends the connection with an error that says why.
type codec struct{ log *slog.Logger }

func (codec) WriteObject(w io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func (c codec) ReadObject(r *bufio.Reader, v any) error {
	for {
		body, err := readMessage(r)
		if err != nil {
			if err != io.EOF {
				c.log.Error("lsp: cannot read the client's messages; closing the connection", "error", err)
			}
			return err
		}
		if err := json.Unmarshal(body, v); err != nil {
			c.log.Warn("lsp: a message from the client is not JSON-RPC; it is skipped", "error", err, "bytes", len(body))
			continue
		}
		return nil
	}
}

// readMessage reads one message's headers and body.
func readMessage(r *bufio.Reader) ([]byte, error) {
	length := -1
	headers := 0
	for blank := 0; ; {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF && strings.TrimSpace(line) == "" && headers == 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("read a message header: %w", err)
		}
		if headers > 32 || blank > 32 || len(line) > 1024 {
			return nil, fmt.Errorf("a message header is too long: expected Content-Length: N followed by an empty line")
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if headers == 0 {
				blank++ // a stray line ending between messages
				continue
			}
			break
		}
		headers++
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("the message header %q is not Name: value", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			l, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || l < 0 {
				return nil, fmt.Errorf("the Content-Length %q is not a length", value)
			}
			length = l
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("a message has no Content-Length header")
	}
	if length > MaxMessageBytes {
		return nil, fmt.Errorf("a message has %d bytes, more than the %d a message may have", length, MaxMessageBytes)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("read a message body: %w", err)
	}
	return body, nil
}
