// Package testrun runs the tests of mcpdecl test: test files
// (*.test.hcl) whose test blocks each call one tool of a configuration and
// check its result.
//
// A test file names the configuration it tests (config, else the .hcl
// files of its own directory), and may set variables and declare mocks for
// all its tests; a test block adds its own. For each test the
// configuration is loaded afresh with the test's variables and mocks
// ([load.Options] Values and Overrides), so that tests are isolated and run
// in parallel:
//
//   - a mock "http_api" points the http_api's base_url at a real local
//     HTTP server that answers with the declared responses and records
//     every request, so that the HTTP adapter's whole path runs;
//   - a mock "database" makes the database a fresh SQLite file, filled by
//     the mock's seed or else by the database's own init.
//
// Assertions are expr() programs over the result (is_error, structured,
// text, content), the arguments (args) and what the mocks were sent
// (requests). A snapshot compares the structured content with a file,
// written with Runner.Update.
package testrun
