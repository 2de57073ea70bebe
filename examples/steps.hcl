# Multi-step tools: one call does what a person would do in several.
#
#   restock_requests  reads the shop's products that are low on stock
#                     (SQLite), then posts one restock request per product
#                     to a supplier (go-httpbin stands in for it)
#   country_postcard  asks the Countries GraphQL API for a country, then
#                     posts a postcard about it (go-httpbin again)
#
# `bash examples/demo.sh` starts go-httpbin; run these with
# --var base_url=<its URL>. Tests: mcpdecl test examples/steps.test.hcl

server {
  name    = "steps"
  version = "1.0.0"
}

variable "base_url" {
  description = "go-httpbin, standing in for the supplier and the post office."
  type        = string
  default     = "http://127.0.0.1:8099"
}

variable "countries_url" {
  description = "The endpoint of the Countries API."
  default     = env("COUNTRIES_URL", "https://countries.trevorblades.com/")
}

variable "shop_db" {
  description = "The SQLite file of the shop, relative to this file; created on first use."
  default     = "shop/shop.db"
}

database "shop" {
  driver        = "sqlite"
  dsn           = "${var.shop_db}?_pragma=foreign_keys(1)"
  init          = file("shop/seed.sql")
  query_timeout = "5s"
}

http_api "supplier" {
  base_url = var.base_url
  timeout  = "5s"
}

http_api "countries" {
  base_url = var.countries_url
  timeout  = "10s"
}

tool "restock_requests" {
  title       = "Request restocks"
  description = "Finds the products whose stock is below a threshold and sends the supplier one restock request for each. Returns what was requested."

  annotations {
    destructive_hint = false
    idempotent_hint  = false
  }

  arg "below" {
    type        = integer
    description = "Request products whose stock is below this"
    minimum     = 1
    default     = 10
  }

  step "low" {
    sql {
      database = database.shop
      query    = "SELECT sku, name, stock FROM products WHERE stock < ? ORDER BY sku"
      params   = [expr("args.below")]
      max_rows = 50
    }
  }

  step "requests" {
    for_each        = expr("steps.low.rows")
    max_items       = 50
    max_concurrency = 4
    http {
      api    = http_api.supplier
      method = "POST"
      path   = "/anything/restock/{sku}"
      path_params = {
        sku = expr("each.value.sku")
      }
      body = {
        sku      = expr("each.value.sku")
        quantity = expr("20 - each.value.stock")
      }
    }
  }

  output "requested" {
    type        = list(object({ sku = string, quantity = integer }))
    description = "The restock requests the supplier accepted"
    value       = expr("map(steps.requests, .body.json)")
  }
}

tool "country_postcard" {
  title       = "Postcard from a country"
  description = "Looks a country up by its ISO code and posts a postcard about it: its capital and languages."

  arg "code" {
    type        = string
    description = "Two-letter ISO 3166 code, such as KE or FR"
    pattern     = "^[A-Za-z]{2}$"
  }

  step "country" {
    graphql {
      api       = http_api.countries
      schema    = "countries/schema.graphql"
      query     = <<-GQL
        query Country($code: ID!) {
          country(code: $code) { name capital languages { name } }
        }
      GQL
      variables = { code = expr("upper(args.code)") }
    }
    error_if = expr("data?.country == nil")
  }

  step "post" {
    http {
      api    = http_api.supplier
      method = "POST"
      path   = "/anything/postcards"
      body = {
        text = expr("'Greetings from ' + (steps.country.data.country.capital ?? 'somewhere') + ', ' + steps.country.data.country.name + '! People speak ' + join(map(steps.country.data.country.languages, .name), ' and ') + '.'")
      }
    }
  }

  output "postcard" {
    type  = string
    value = expr("steps.post.body.json.text")
  }
}
