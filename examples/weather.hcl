# A weather-style REST API wrapped as one MCP tool: bearer auth from a
# sensitive variable, a path placeholder, a query parameter with a default,
# retries, and two typed outputs mapped from the JSON response.
#
#   WEATHER_API_KEY=… mcpdecl call examples/weather.hcl get_weather '{"city":"Paris"}'

server {
  name         = "weather"
  version      = "1.0.0"
  instructions = "Current weather for a city."
}

variable "base_url" {
  type        = string
  default     = "https://api.example.com/v1"
  description = "Where the weather API lives."
}

variable "api_key" {
  type      = string
  default   = env("WEATHER_API_KEY")
  sensitive = true # never printed in logs, errors or listings
}

http_api "weather" {
  base_url = var.base_url
  headers  = { "User-Agent" = "mcpdecl" }
  timeout  = "10s"

  auth {
    bearer = var.api_key
  }

  retry {
    attempts  = 3
    on_status = [429, 502, 503]
  }
}

tool "get_weather" {
  title       = "Current weather"
  description = "Current weather for a city: temperature and a short description of the conditions."

  annotations {
    read_only_hint  = true
    open_world_hint = true
  }

  arg "city" {
    type        = string
    description = "City name, such as Paris or New York"
    min_length  = 1
  }
  arg "units" {
    type        = string
    description = "Units of the temperature"
    enum        = ["metric", "imperial"]
    default     = "metric"
  }

  http {
    api         = http_api.weather
    method      = "GET"
    path        = "/weather/{city}"
    path_params = { city = expr("args.city") }
    query       = { units = expr("args.units") }
  }

  output "temperature" {
    type        = number
    description = "Temperature in the requested units"
    value       = expr("body.main.temp")
  }
  output "conditions" {
    type        = string
    description = "Short description, such as light rain"
    value       = expr("body.weather[0].description")
  }

  text = expr("args.city + ': ' + string(body.main.temp) + (args.units == 'metric' ? ' °C, ' : ' °F, ') + body.weather[0].description")
}
