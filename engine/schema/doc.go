// Package schema turns the types that tool declarations give their
// arguments and outputs into JSON Schema 2020-12 documents, and checks
// JSON values against them.
//
// A declared type is written in HCL as a type expression — string, number,
// integer, bool, any, list(T), map(T), set(T) or object({name = T, other =
// optional(T)}) — and read with [ParseType] into a [Type]. From a tool's
// [Arg] and [Output] declarations, [InputSchema] and [OutputSchema] build the
// documents that the tool advertises, and [Compile] turns any such document
// (or a user's own, given through the escape hatch) into a [Validator].
//
// Each call then goes through the same steps, all of them cheap: the
// arguments are checked with [Validator.Validate], which reports every
// violation at once with its JSON pointer (arguments that fail may be
// looked at again by [Validator.CoerceStrings], which takes the numbers
// and booleans that a model quoted for what they write); missing arguments
// get their defaults from [ApplyDefaults]; and [Coerce] turns the JSON numbers into
// the Go types that the tool's expr programs were type-checked against
// ([Type.ExprType]): int for integer, float64 for number.
package schema
