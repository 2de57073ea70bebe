# A starting configuration for mcpdecl: one tool that calls a public HTTP API
# (Open-Meteo's forecast, which needs no account and no key).
#
# Check it (every mistake, with file:line:col), list its tools as a client
# sees them, call one, and serve them over MCP on stdio:
#
#   mcpdecl validate FILE
#   mcpdecl list FILE
#   mcpdecl call FILE current_weather '{"latitude": 48.85, "longitude": 2.35}'
#   mcpdecl serve FILE
#
# mcpdecl schema --markdown prints every block and attribute (the
# reference, docs/language.md); docs/guide.md says how they work.

# What the server says of itself to clients.
server {
  name    = "my-tools"
  version = "0.1.0"
}

# A variable: its default can be replaced with --var base_url=…, the
# environment variable MCPDECL_VAR_base_url, or a line of an --env-file.
variable "base_url" {
  type    = string
  default = "https://api.open-meteo.com"
}

# An HTTP API that tools share: its base URL, timeout and retries (and its
# auth and headers, when it needs a key: see http_api in the reference).
http_api "open_meteo" {
  base_url = var.base_url
  timeout  = "10s"
  retry {
    attempts  = 2
    on_status = [429, 502, 503, 504]
  }
}

# A tool: its name, what it does (for the model that calls it), its
# arguments, how it calls the API, and what it returns.
tool "current_weather" {
  title       = "Current weather at a place"
  description = "Current temperature (°C) and wind speed (km/h) at a latitude and longitude, from Open-Meteo."

  # Hints for clients: this tool reads and changes nothing, and reaches the
  # outside world.
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }

  # Each arg becomes a property of the tool's JSON Schema; calls with values
  # out of range are refused before anything is sent.
  arg "latitude" {
    type        = number
    description = "Latitude in degrees, north positive"
    minimum     = -90
    maximum     = 90
  }
  arg "longitude" {
    type        = number
    description = "Longitude in degrees, east positive"
    minimum     = -180
    maximum     = 180
  }

  # The request. expr("…") is a program run at each call; it reads the
  # arguments as args. Plain values are fixed when the file loads.
  http {
    api  = http_api.open_meteo
    path = "/v1/forecast"
    query = {
      latitude  = expr("args.latitude")
      longitude = expr("args.longitude")
      current   = "temperature_2m,wind_speed_10m"
    }
  }

  # The structured result: each output is a program over the response
  # (body is its decoded JSON), checked against its type.
  output "time" {
    type        = string
    description = "Time of the observation (ISO 8601, GMT)"
    value       = expr("body.current.time")
  }
  output "temperature_c" {
    type  = number
    value = expr("body.current.temperature_2m")
  }
  output "wind_speed_kmh" {
    type  = number
    value = expr("body.current.wind_speed_10m")
  }
}
