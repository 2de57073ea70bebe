# Tests of countries.hcl, with the Countries API mocked:
#
#   mcpdecl test examples/countries.test.hcl

config = "countries.hcl"

test "country" {
  tool = "country"
  args = { code = "ke" }

  mock "http_api" "countries" {
    request {
      method = "POST"
      path   = "/"
    }
    response {
      body = {
        data = {
          country = {
            name      = "Kenya"
            capital   = "Nairobi"
            currency  = "KES"
            continent = { name = "Africa" }
            languages = [{ name = "English" }, { name = "Swahili" }]
          }
        }
      }
    }
  }

  assert {
    condition     = expr("structured.name == 'Kenya' && structured.capital == 'Nairobi' && structured.languages == ['English', 'Swahili']")
    error_message = "the country's fields come back typed from the selection"
  }
  assert {
    condition     = expr("requests[0].body.operationName == 'Country' && requests[0].body.variables.code == 'KE'")
    error_message = "the operation is sent by name, with the code upper-cased as its variable"
  }
}

test "unknown_country" {
  tool         = "country"
  args         = { code = "xx" }
  expect_error = true

  mock "http_api" "countries" {
    response {
      body = { data = { country = null } }
    }
  }

  assert {
    condition     = expr("is_error && text == 'No country has the code XX.'")
    error_message = "a code that names no country is a tool error that says so"
  }
}

test "server_errors" {
  tool         = "country"
  args         = { code = "fr" }
  expect_error = true

  mock "http_api" "countries" {
    response {
      body = {
        data   = null
        errors = [{ message = "Too many requests, slow down", path = ["country"] }]
      }
    }
  }

  assert {
    condition     = expr("is_error && text == 'Too many requests, slow down'")
    error_message = "the server's own error message reaches the model"
  }
}

test "by_currency" {
  tool = "countries_by_currency"
  args = { currency = "eur" }

  mock "http_api" "countries" {
    response {
      body = {
        data = {
          countries = [{ code = "FR", name = "France" }, { code = "DE", name = "Germany" }]
        }
      }
    }
  }

  assert {
    condition     = expr("len(structured.countries) == 2 && structured.countries[1].name == 'Germany'")
    error_message = "the list of countries comes back whole"
  }
}
