// Package mapping holds the call-time half of the mcpdecl language: the
// expr("…") HCL function, the compilation of its programs against a typed
// environment at load time, and the evaluation of mixed trees of literals and
// programs on every call.
//
// A configuration attribute such as
//
//	query = { units = expr("args.units"), lang = "en" }
//
// is evaluated once by HCL when the files load. The expr("…") calls in it
// yield opaque source values; [Compile] turns the whole value into a [Value]
// whose literal parts are ready-made Go values and whose program parts are
// type-checked expr-lang programs. Per call, [Value.Eval] only runs them.
package mapping
