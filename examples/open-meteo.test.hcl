# Tests of open-meteo.hcl, with Open-Meteo mocked so that they need no
# network.
#
#   mcpdecl test examples/open-meteo.test.hcl

config = "open-meteo.hcl"

mock "http_api" "open_meteo" {
  request {
    method = "GET"
    path   = "/v1/forecast"
    query  = { latitude = "48.85", longitude = "2.35", current = "temperature_2m,wind_speed_10m" }
  }
  response {
    body = {
      current = { time = "2026-11-24T12:00", temperature_2m = 9.4, wind_speed_10m = 14.2 }
    }
  }
}

test "paris" {
  tool = "current_weather"
  args = { latitude = 48.85, longitude = 2.35 }

  assert {
    condition = expr("structured.temperature_c == 9.4 && structured.wind_speed_kmh == 14.2")
  }
  assert {
    condition = expr("structured.time == '2026-11-24T12:00'")
  }
}

test "latitude_out_of_range" {
  tool         = "current_weather"
  args         = { latitude = 91, longitude = 0 }
  expect_error = true

  assert {
    condition     = expr("text contains 'latitude' && len(requests) == 0")
    error_message = "the argument is refused before any request is sent"
  }
}
