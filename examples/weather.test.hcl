# Tests of weather.hcl. The weather API is mocked, so they run anywhere:
#
#   mcpdecl test examples/weather.test.hcl

config = "weather.hcl"

variables {
  api_key = "test-key"
}

mock "http_api" "weather" {
  request {
    method = "GET"
    path   = "/weather/Paris"
    query  = { units = "metric" }
  }
  response {
    body = {
      main    = { temp = 21.5 }
      weather = [{ description = "clear sky" }]
    }
  }
}

test "paris" {
  tool = "get_weather"
  args = { city = "Paris" }

  assert {
    condition     = expr("structured.temperature == 21.5")
    error_message = "the temperature is read from main.temp"
  }
  assert {
    condition = expr("text == 'Paris: 21.5 °C, clear sky'")
  }
  assert {
    condition     = expr("requests[0].headers.authorization == 'Bearer test-key'")
    error_message = "the request carries the API key as a bearer token"
  }
}

test "unknown_city" {
  tool         = "get_weather"
  args         = { city = "Atlantis" }
  expect_error = true

  mock "http_api" "weather" {
    request {
      path = "/weather/Atlantis"
    }
    response {
      status = 404
      body   = { message = "city not found" }
    }
  }

  assert {
    condition = expr("text contains '404'")
  }
}
