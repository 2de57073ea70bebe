// Package cache keeps tools' results for the time their cache blocks say:
// the stores (in memory, bounded, or in Redis, shared by every replica)
// and the top-level and per-tool cache blocks. The engine decides what is
// cached and under which key (see engine.CachePolicy).
package cache
