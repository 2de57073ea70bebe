# XKCD 1.0.0, imported by mcpdecl import openapi from xkcd.com.json.
# 2 operations read, 2 imported, 0 skipped, 0 not selected, 0 past the cap.

variable "xkcd_base_url" {
  type        = string
  description = "The base URL of XKCD."
  default     = "http://xkcd.com"
}

http_api "xkcd" {
  base_url = var.xkcd_base_url
}

tool "get_info_0_json" {
  description    = "Fetch current comic and metadata."
  output_schemas = "compact"
  annotations {
    read_only_hint  = true
    idempotent_hint = true
  }
  http {
    api    = http_api.xkcd
    method = "GET"
    path   = "/info.0.json"
  }
  output "alt" {
    type     = string
    optional = true
    value    = expr("body.alt")
  }
  output "day" {
    type     = string
    optional = true
    value    = expr("body.day")
  }
  output "img" {
    type     = string
    optional = true
    value    = expr("body.img")
  }
  output "link" {
    type     = string
    optional = true
    value    = expr("body.link")
  }
  output "month" {
    type     = string
    optional = true
    value    = expr("body.month")
  }
  output "news" {
    type     = string
    optional = true
    value    = expr("body.news")
  }
  output "num" {
    type     = number
    optional = true
    value    = expr("body.num")
  }
  output "safe_title" {
    type     = string
    optional = true
    value    = expr("body.safe_title")
  }
  output "title" {
    type     = string
    optional = true
    value    = expr("body.title")
  }
  output "transcript" {
    type     = string
    optional = true
    value    = expr("body.transcript")
  }
  output "year" {
    type     = string
    optional = true
    value    = expr("body.year")
  }
}

tool "get_comic_id_info_0_json" {
  description    = "Fetch comics and metadata by comic id."
  output_schemas = "compact"
  annotations {
    read_only_hint  = true
    idempotent_hint = true
  }
  arg "comic_id" {
    type = number
  }
  http {
    api    = http_api.xkcd
    method = "GET"
    path   = "/{comicId}/info.0.json"
    path_params = {
      comicId = expr("args.comic_id")
    }
  }
  output "alt" {
    type     = string
    optional = true
    value    = expr("body.alt")
  }
  output "day" {
    type     = string
    optional = true
    value    = expr("body.day")
  }
  output "img" {
    type     = string
    optional = true
    value    = expr("body.img")
  }
  output "link" {
    type     = string
    optional = true
    value    = expr("body.link")
  }
  output "month" {
    type     = string
    optional = true
    value    = expr("body.month")
  }
  output "news" {
    type     = string
    optional = true
    value    = expr("body.news")
  }
  output "num" {
    type     = number
    optional = true
    value    = expr("body.num")
  }
  output "safe_title" {
    type     = string
    optional = true
    value    = expr("body.safe_title")
  }
  output "title" {
    type     = string
    optional = true
    value    = expr("body.title")
  }
  output "transcript" {
    type     = string
    optional = true
    value    = expr("body.transcript")
  }
  output "year" {
    type     = string
    optional = true
    value    = expr("body.year")
  }
}
