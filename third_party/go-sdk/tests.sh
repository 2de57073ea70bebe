# Sourced by ../sync.sh --test, which runs the release's own tests against
# src/: what it skips or adapts of those tests, for a patch that
# deliberately changes what a test checks, or a test that fails on the
# release too (README.md says more). Keep it short: a test that fails for
# any other reason is a bug in a patch.

# 0004: a line that is not JSON, a batch under 2025-06-18 or later, or a
# line over the length limit (read to its newline and dropped) is answered
# with a null-id error (-32700, -32600) and skipped; the release's
# ioConn.Read returned an error, which ended the session. (These cases
# give the connection no writer to answer on.)
skip '^TestIOConnRead$/^(bad_data_at_the_end_of_first_valid_json_input|batching_new_protocol|batching_at_a_counter-offered_version)$'
skip '^TestIOConnFrameCap$/^(infinite_string|cap_does_not_reset_per_new_line)$'

# 0005: a request before initialize is answered with -32600 "invalid
# request: ... is invalid before the session is initialized", not code 0.
adapt 's/"code": 0,/"code": -32600,/; s/"message": "method \(.*\) is invalid during session initialization"/"message": "invalid request: method \1 is invalid before the session is initialized"/' \
  mcp/testdata/conformance/server/lifecycle.txtar
adapt 's/"invalid during session initialization"/"invalid before the session is initialized"/; s/Message: `method "tools\/call" is invalid during session initialization`/Code: -32600, Message: `invalid request: method "tools\/call" is invalid before the session is initialized`/' \
  mcp/streamable_test.go

# 0006: ttlMs and cacheScope only in results for 2026-07-28; these
# scenarios initialize with an earlier revision.
adapt '/^\t\t"ttlMs": 0,$/d; /^\t\t"cacheScope": "public",$/d' \
  mcp/testdata/conformance/server/{lifecycle,prompts,resources,spec-sep-973-additional-metadata,tools}.txtar

# 0019: a refused batch from a 2025-06-18 client is answered with an
# application/json JSON-RPC error whose id is null, not plain text; the
# test's client decodes every application/json body as a message, and its
# decoder refuses a response with a null id.
skip '^TestStreamableServerTransport$/^batch_rejected_on_2025-06-18$'

# Flaky in the release itself, unpatched, on a loaded two-core machine:
# - DiscoverDoesNotLeakSession counts the server's sessions right after a
#   client connects (failed 8 of 40 runs of v1.8.0, 7 of 40 patched);
# - SessionTimeout lets a session expire after 50 ms idle between a
#   client's calls (failed 1 of 6 runs of the full suite of v1.8.0);
# - TransportCleanup closes a session whose client fails a keep-alive ping
#   sent every 10 ms, which can come before the client is done connecting
#   (failed 3 of 40 runs of v1.8.0; under -race 2 and 9 of 20);
# - MultipleURIs waits with no timeout for a resource update sent as soon
#   as Subscribe returns, before the listen stream may be open: under -race
#   it hung until the test binary's timeout, v1.8.0 and patched alike.
skip '^TestStreamableStateful_DiscoverDoesNotLeakSession$'
skip '^TestStreamableSessionTimeout$'
skip '^TestServerTransportCleanup$'
skip '^TestResourceSubscriptions_MultipleURIs$'
# - InMemory has the same shape as MultipleURIs (an update sent as soon
#   as Subscribe returns, awaited 5 s): it timed out once in CI's run on a
#   busy machine.
skip '^TestResourceSubscriptions_InMemory$'
