# Tests of steps.hcl. The shop is a fresh copy of its database for each
# test; the supplier and the Countries API are mocked.
#
#   mcpdecl test examples/steps.test.hcl

config = "steps.hcl"

mock "database" "shop" {}

test "restock_requests" {
  tool = "restock_requests"
  args = { below = 8 }

  mock "http_api" "supplier" {
    request {
      method = "POST"
    }
    response {
      body = { json = { sku = "ANY", quantity = 1 } }
    }
  }

  assert {
    condition     = expr("len(requests) == 3 && all(requests, .api == 'supplier' && .method == 'POST')")
    error_message = "one request per product below the threshold: the kettle, the grinder and the tea (stock 7, 5, 0)"
  }
  assert {
    condition     = expr("sort(map(requests, .path)) == ['/anything/restock/GRD-020', '/anything/restock/KET-010', '/anything/restock/TEA-202']")
    error_message = "each request names its product in the path"
  }
  assert {
    condition     = expr("sort(map(requests, .body.quantity)) == [13, 15, 20]")
    error_message = "each request asks for enough to reach 20"
  }
}

test "empty_shelf_only" {
  tool = "restock_requests"
  args = { below = 1 }

  mock "http_api" "supplier" {
    response {
      body = { json = { sku = "TEA-202", quantity = 20 } }
    }
  }

  assert {
    condition     = expr("len(requests) == 1 && requests[0].path == '/anything/restock/TEA-202'")
    error_message = "only the product out of stock is requested"
  }
  assert {
    condition     = expr("structured.requested == [{sku: 'TEA-202', quantity: 20}]")
    error_message = "the result lists what the supplier accepted"
  }
}

test "country_postcard" {
  tool = "country_postcard"
  args = { code = "ke" }

  mock "http_api" "countries" {
    response {
      body = { data = { country = { name = "Kenya", capital = "Nairobi", languages = [{ name = "English" }, { name = "Swahili" }] } } }
    }
  }
  mock "http_api" "supplier" {
    request {
      path = "/anything/postcards"
    }
    response {
      body = { json = { text = "Greetings from Nairobi, Kenya! People speak English and Swahili." } }
    }
  }

  assert {
    condition     = expr("requests[1].body.text == 'Greetings from Nairobi, Kenya! People speak English and Swahili.'")
    error_message = "the second step writes the postcard from what the first step read"
  }
  assert {
    condition     = expr("requests[0].api == 'countries' && requests[0].body.variables.code == 'KE'")
    error_message = "the first step asks the Countries API"
  }
}

test "no_such_country" {
  tool         = "country_postcard"
  args         = { code = "zz" }
  expect_error = true

  mock "http_api" "countries" {
    response {
      body = { data = { country = null } }
    }
  }
  assert {
    condition     = expr("is_error && text contains 'step \"country\" failed' && len(requests) == 1")
    error_message = "the first step's failure stops the call before the postcard is sent, and says which step failed"
  }
}
