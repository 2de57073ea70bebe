// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package mcp

import (
	"encoding/json"

	internaljson "github.com/modelcontextprotocol/go-sdk/internal/json"
)

func assert(cond bool, msg string) {
	if !cond {
		panic(msg)
	}
}

// remarshal marshals from to JSON, and then unmarshals into to, which must be
// a pointer type. JSON already (a json.RawMessage) is unmarshaled as it is.
func remarshal(from, to any) error {
	data, ok := from.(json.RawMessage)
	if !ok {
		var err error
		if data, err = json.Marshal(from); err != nil {
			return err
		}
	}
	if err := internaljson.Unmarshal(data, to); err != nil {
		return err
	}
	return nil
}
