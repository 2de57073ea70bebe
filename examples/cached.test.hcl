# Tests of cached.hcl, with httpbin mocked:
#
#   mcpdecl test examples/cached.test.hcl

config = "cached.hcl"

test "uuid" {
  tool = "new_uuid"
  args = { label = "a" }

  mock "http_api" "httpbin" {
    request {
      method = "GET"
      path   = "/uuid"
      query  = { label = "a" }
    }
    response {
      body = { uuid = "0b9a5f8e-6b8e-4a39-9d3c-1f0f4c3c2a11" }
    }
  }

  assert {
    condition = expr("structured.uuid == '0b9a5f8e-6b8e-4a39-9d3c-1f0f4c3c2a11'")
  }
}
