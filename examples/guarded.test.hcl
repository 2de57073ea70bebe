# Tests of guarded.hcl. Its tools run no action, so nothing is mocked; a
# test calls the tool directly, past the auth and rate limits that guard
# it over HTTP.
#
#   mcpdecl test examples/guarded.test.hcl

config = "guarded.hcl"

# What env() reads in guarded.hcl, for these tests only.
env {
  TEAM_TOKEN  = "team-token-for-tests"
  ADMIN_TOKEN = "admin-token-for-tests"
}

test "shout" {
  tool = "shout"
  args = { text = "quiet please" }

  assert {
    condition = expr("text == 'QUIET PLEASE'")
  }
}

test "sensitive_argument_redacted" {
  tool = "rotate_key"
  args = { key = "billing", password = "hunter2-secret" }

  assert {
    condition     = expr("!(text contains 'hunter2-secret')")
    error_message = "a sensitive argument never comes back in the result"
  }
}
