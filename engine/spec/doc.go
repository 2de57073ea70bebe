// Package spec declares the blocks of the language, each once: its labels,
// a summary, a paragraph of documentation, an example that validates, its
// attributes (type, bounds, default, documentation, whether it may hold a
// secret, former names) and the blocks it nests. Everything else derives
// from a [Block]: decoding ([Block.Decode]), the reference
// (docs/language.md, written by [Markdown]), `mcpdecl schema` ([JSON]) and
// the names the importers write ([Writer], which refuses a name the spec
// of its block lacks; [Block.CheckNames] checks written HCL the same way).
//
// A block's code follows three steps, as Caddy modules do:
//
//  1. decode: [Block.Decode] reads the body through the spec. It reports,
//     in one run, every unknown attribute or block (with "did you mean"),
//     every missing one, every value of the wrong type and every value out
//     of bounds, each at the narrowest range, worded
//     "ttl is how long a result is kept: at most 720h0m0s (30 days), not
//     800h0m0s." from the attribute's Doc and bounds.
//  2. read: typed accessors, as Benthos's ParsedConfig has:
//     v.Duration("ttl"), v.Int("requests"), v.String("store"). An absent
//     attribute reads as its default. Asking for a name the spec does not
//     declare panics: it is a mistake in the code, found by any test.
//  3. validate: rules across attributes (max_entries not with
//     store = "redis") are small functions next to the spec, run after
//     decoding, using v.Attr(name) for where to point.
//
// Values are evaluated through [engine.DecodeContext], so variables,
// sensitive marks and errors that only follow from another one behave as
// everywhere else in the load.
package spec
