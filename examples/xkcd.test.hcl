# Tests of xkcd.hcl, which `mcpdecl import openapi testdata/xkcd.com.json -o
# xkcd.hcl` wrote from XKCD's OpenAPI document (from the APIs.guru
# directory), with XKCD mocked:
#
#   mcpdecl test examples/xkcd.test.hcl

config = "xkcd.hcl"

test "comic_by_number" {
  tool = "get_comic_id_info_0_json"
  args = { comic_id = 353 }

  mock "http_api" "xkcd" {
    request {
      method = "GET"
      path   = "/353/info.0.json"
    }
    response {
      body = {
        num        = 353
        title      = "Python"
        safe_title = "Python"
        alt        = "I wrote 20 short programs in Python yesterday."
        img        = "https://imgs.xkcd.com/comics/python.png"
        year       = "2007"
        month      = "12"
        day        = "5"
        extra      = "not in the document's schema"
      }
    }
  }

  assert {
    condition     = expr("structured.num == 353 && structured.title == 'Python' && structured.year == '2007'")
    error_message = "the comic's fields come back typed, as the document's schema says"
  }
  assert {
    condition     = expr("!('extra' in structured) && !('news' in structured)")
    error_message = "only the document's fields are returned, and those missing are left out"
  }
}

test "latest_comic" {
  tool = "get_info_0_json"

  mock "http_api" "xkcd" {
    request {
      path = "/info.0.json"
    }
    response {
      body = { num = 3000, title = "Latest", img = "https://imgs.xkcd.com/comics/latest.png" }
    }
  }

  assert {
    condition = expr("structured.num == 3000")
  }
}

test "comic_number_checked" {
  tool         = "get_comic_id_info_0_json"
  args         = { comic_id = "latest" }
  expect_error = true

  assert {
    condition     = expr("text contains 'comic_id'")
    error_message = "a comic number that is not a number is refused, naming the argument, before any request"
  }
}
