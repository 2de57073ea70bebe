// Package text holds what mcpdecl does to text that leaves the server:
// redaction of secrets ([Redactor], and the [Redaction] a call's context
// carries), sanitizing of terminal control sequences ([Sanitize],
// [SanitizeValue]), excerpts of bodies and outputs for error messages
// ([Excerpt]), and the small helpers messages are written with
// ([WithArticle], [UpperFirst]).
//
// It depends on nothing else in mcpdecl, so that every package may use it.
package text
