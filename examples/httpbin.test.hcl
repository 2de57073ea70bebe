# Tests of httpbin.hcl, with httpbin mocked: each mock answers as httpbin
# would, and the assertions check what the tools sent as well as what they
# return.
#
#   mcpdecl test examples/httpbin.test.hcl

config = "httpbin.hcl"

test "echo" {
  tool = "echo"
  args = { message = "hello world", tags = ["a", "b"] }

  mock "http_api" "httpbin" {
    request {
      method = "POST"
      path   = "/anything/hello world"
      body   = { message = "hello world", tags = ["a", "b"], source = "mcpdecl" }
    }
    response {
      body = {
        json    = { message = "hello world", tags = ["a", "b"], source = "mcpdecl" }
        url     = "http://127.0.0.1:8099/anything/hello%20world"
        headers = { "User-Agent" = ["mcpdecl-example"] }
      }
    }
  }

  assert {
    condition = expr("structured.message == 'hello world' && structured.tags == ['a', 'b']")
  }
  assert {
    condition     = expr("structured.path == 'hello%20world'")
    error_message = "the message stays one escaped path segment"
  }
  assert {
    condition     = expr("requests[0].headers['user-agent'] == 'mcpdecl-example' && requests[0].headers['content-type'] == 'application/json'")
    error_message = "the request carries the http_api's User-Agent and a JSON body"
  }
}

test "status_failing" {
  tool         = "status"
  args         = { code = 503 }
  expect_error = true

  mock "http_api" "httpbin" {
    request {
      path = "/status/503"
    }
    response {
      status = 503
    }
  }

  assert {
    condition = expr("text == 'httpbin answered 503: the upstream is failing'")
  }
}

test "png" {
  tool = "png"

  mock "http_api" "httpbin" {
    request {
      path = "/image/png"
    }
    response {
      body_file = "testdata/pixel.png"
    }
  }

  assert {
    condition     = expr("len(content) == 1 && content[0].type == 'image' && content[0].mimeType == 'image/png'")
    error_message = "a PNG body comes back as one image block"
  }
}
