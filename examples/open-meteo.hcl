# Open-Meteo's public forecast API, which needs no account and no key.
#
#   mcpdecl call examples/open-meteo.hcl current_weather '{"latitude":48.85,"longitude":2.35}'

server {
  name    = "open-meteo"
  version = "1.0.0"
}

variable "base_url" {
  type    = string
  default = "https://api.open-meteo.com"
}

http_api "open_meteo" {
  base_url = var.base_url
  timeout  = "10s"
  retry {
    attempts  = 2
    on_status = [429, 502, 503, 504]
  }
}

tool "current_weather" {
  title       = "Current weather at a place"
  description = "Current temperature (°C) and wind speed (km/h) at a latitude and longitude, from Open-Meteo."

  annotations {
    read_only_hint  = true
    open_world_hint = true
  }

  arg "latitude" {
    type    = number
    minimum = -90
    maximum = 90
  }
  arg "longitude" {
    type    = number
    minimum = -180
    maximum = 180
  }

  http {
    api  = http_api.open_meteo
    path = "/v1/forecast"
    query = {
      latitude  = expr("args.latitude")
      longitude = expr("args.longitude")
      current   = "temperature_2m,wind_speed_10m"
    }
  }

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
