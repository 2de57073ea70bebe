// Package cache keeps tools' results for the time their cache blocks say:
// the stores (in memory, bounded, or in Redis, shared by every replica)
// and the top-level and per-tool cache blocks, with their rules. A tool's
// block is a [Policy], the layer of its per-call path (an
// engine.CallLayer) that answers a call from the store or keeps its
// result, under a key of its own that starts from the configuration's
// [Namespace]: a hash of what the loader read (its files, variables and
// secrets); engine/doc.go says how to add another layer.
package cache
