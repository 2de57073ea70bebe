# Tests of shop.hcl. Each test gets a fresh copy of the shop: the database
# mock makes "shop" a new SQLite database filled by its own init
# (shop/seed.sql), so that restock_product changes nothing on disk.
#
#   mcpdecl test examples/shop.test.hcl

config = "shop.hcl"

mock "database" "shop" {}

test "top_products" {
  tool = "top_products"
  args = { limit = 3 }

  assert {
    condition = expr("len(structured.products) == 3")
  }
  assert {
    condition     = expr("all(structured.products, .units_sold > 0)")
    error_message = "every product listed has sold"
  }
  snapshot = "testdata/top_products.json"
}

test "top_tea" {
  tool = "top_products"
  args = { limit = 20, category = "tea" }

  assert {
    condition = expr("len(structured.products) > 0 && all(structured.products, .category == 'tea')")
  }
}

test "restock" {
  tool = "restock_product"
  args = { sku = "KET-010", quantity = 10 }

  assert {
    condition = expr("structured.sku == 'KET-010' && structured.stock == 17")
  }
}

test "restock_unknown_sku" {
  tool         = "restock_product"
  args         = { sku = "XXX-999", quantity = 1 }
  expect_error = true

  assert {
    condition = expr("text == 'There is no product with SKU XXX-999.'")
  }
}

test "cancel_order" {
  tool   = "cancel_order"
  args   = { order_id = 15 }
  answer = { reason = "out of stock" }

  assert {
    condition = expr("structured.status == 'cancelled' && structured.reason == 'out of stock'")
  }
}

test "cancel_order_declined" {
  tool         = "cancel_order"
  args         = { order_id = 15 }
  answer       = "decline"
  expect_error = true

  assert {
    condition     = expr("text contains 'declined' && text contains 'nothing was done'")
    error_message = "a declined confirmation cancels nothing, and says so"
  }
}

test "cancel_order_unasked" {
  tool         = "cancel_order"
  args         = { order_id = 15 }
  expect_error = true

  assert {
    condition     = expr("text contains 'asks the person for confirmation'")
    error_message = "a client that cannot be asked is refused"
  }
}

test "classify_feedback" {
  tool         = "classify_feedback"
  args         = { feedback = "The flat white was cold and took twenty minutes." }
  model_answer = "{\"sentiment\": \"negative\", \"topic\": \"service\"}"

  assert {
    condition = expr("structured.sentiment == 'negative' && structured.topic == 'service'")
  }
}

test "classify_feedback_prose" {
  tool         = "classify_feedback"
  args         = { feedback = "Lovely croissants." }
  model_answer = "The customer liked the croissants."
  expect_error = true

  assert {
    condition     = expr("text contains 'did not answer JSON'")
    error_message = "a model that answers prose is a tool error that says so"
  }
}

test "classify_feedback_unasked" {
  tool         = "classify_feedback"
  args         = { feedback = "Lovely croissants." }
  expect_error = true

  assert {
    condition     = expr("text contains 'sampling'")
    error_message = "a client without sampling is refused"
  }
}

test "customer_orders_asked_for" {
  tool   = "find_customer_orders"
  answer = { email = "Ada.Lovelace@example.com" }

  assert {
    condition     = expr("len(structured.orders) > 0")
    error_message = "the e-mail address the person gave is used"
  }
}

test "bad_email" {
  tool         = "find_customer_orders"
  args         = { email = "not an email" }
  expect_error = true

  assert {
    condition     = expr("text contains 'email'")
    error_message = "the argument is refused, naming the format"
  }
}

test "catalog_resource" {
  resource = "shop://catalog"

  assert {
    condition     = expr("len(structured) > 10 && all(structured, .price_eur > 0)")
    error_message = "the catalog lists every product with its price"
  }
}

test "product_resource" {
  resource = "shop://products/KET-010"

  assert {
    condition = expr("structured.name == 'Gooseneck kettle' && structured.stock == 7")
  }
  assert {
    condition = expr("content[0].mimeType == 'application/json'")
  }
}

test "product_resource_unknown_sku" {
  resource     = "shop://products/XXX-999"
  expect_error = true

  assert {
    condition = expr("text contains 'There is no product with SKU XXX-999.'")
  }
}

test "customer_report_prompt" {
  prompt = "customer_report"
  args   = { email = "ada@example.com", length = "detailed" }

  assert {
    condition = expr("len(messages) == 1 && messages[0].role == 'user'")
  }
  assert {
    condition = expr("text startsWith 'Write a detailed report on the customer ada@example.com'")
  }
}

test "customer_report_needs_email" {
  prompt       = "customer_report"
  expect_error = true

  assert {
    condition = expr("text contains 'the argument \"email\" is required'")
  }
}

test "apology_prompt" {
  prompt = "apology"
  args   = { order_id = "15" }
  answer = { tone = "formal" }

  assert {
    condition = expr("text == 'Look up order 15 with the shop tools, then draft a formal apology to its customer.'")
  }
}

test "apology_prompt_declined" {
  prompt       = "apology"
  args         = { order_id = "15" }
  answer       = "decline"
  expect_error = true

  assert {
    condition     = expr("text contains 'declined' && text contains 'gave no messages'")
    error_message = "a declined prompt gives no messages, and says so"
  }
}

test "apology_prompt_unasked" {
  prompt       = "apology"
  args         = { order_id = "15" }
  expect_error = true

  assert {
    condition = expr("text contains 'asks the person before it gives its messages'")
  }
}
