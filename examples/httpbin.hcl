# Tools over go-httpbin, an HTTP test service that runs on this machine:
# `bash examples/demo.sh` starts it on a free port of 127.0.0.1 and calls
# these tools with --var base_url=<its URL>.
# They show JSON bodies, headers, path escaping, status mapping with
# error_if/error_message, and binary (image) responses.

server {
  name    = "httpbin"
  version = "1.0.0"
}

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8099"
}

locals {
  agent = "mcpdecl-example"
}

http_api "httpbin" {
  base_url = var.base_url
  headers  = { "User-Agent" = local.agent }
  timeout  = "5s"
}

tool "echo" {
  description = "Sends a message to httpbin as a JSON body and returns what httpbin received."

  arg "message" {
    type        = string
    description = "Any text"
    max_length  = 1000
  }
  arg "tags" {
    type    = list(string)
    default = []
  }

  http {
    api         = http_api.httpbin
    method      = "POST"
    path        = "/anything/{message}"
    path_params = { message = expr("args.message") }
    body = {
      message = expr("args.message")
      tags    = expr("args.tags")
      source  = "mcpdecl"
    }
  }

  output "message" {
    type  = string
    value = expr("body.json.message")
  }
  output "tags" {
    type  = list(string)
    value = expr("body.json.tags")
  }
  output "path" {
    type        = string
    description = "The path httpbin saw: the message stays one escaped segment"
    value       = expr("split(body.url, '/anything/')[1]")
  }
  output "user_agent" {
    type  = string
    value = expr("body.headers['User-Agent'][0]")
  }
}

tool "status" {
  description = "Asks httpbin for a given HTTP status and reports whether it counts as a failure."

  arg "code" {
    type    = integer
    minimum = 200
    maximum = 599
  }

  http {
    api         = http_api.httpbin
    path        = "/status/{code}"
    path_params = { code = expr("string(args.code)") }
  }

  error_if      = expr("status >= 500")
  error_message = expr("'httpbin answered ' + string(status) + ': the upstream is failing'")

  output "status" {
    type  = integer
    value = expr("status")
  }
}

tool "png" {
  description = "Fetches a PNG image from httpbin; it comes back as image content."

  http {
    api  = http_api.httpbin
    path = "/image/png"
  }
}
