// Package server serves an [engine.Config] over the Model Context Protocol,
// on stdio or on streamable HTTP. It is the one place in mcpdecl that
// imports the MCP SDK (github.com/modelcontextprotocol/go-sdk).
package server
