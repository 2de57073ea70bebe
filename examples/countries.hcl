# The public Countries GraphQL API (https://countries.trevorblades.com/),
# which needs no account, as two tools. The queries are checked against
# countries/schema.graphql when the file loads, and the outputs are typed
# from what they select:
#
#   mcpdecl call examples/countries.hcl country code=KE
#   mcpdecl test examples/countries.test.hcl

server {
  name    = "countries"
  version = "1.0.0"
}

variable "countries_url" {
  description = "The endpoint of the Countries API."
  default     = env("COUNTRIES_URL", "https://countries.trevorblades.com/")
}

http_api "countries" {
  base_url = var.countries_url
  timeout  = "10s"
}

tool "country" {
  title       = "Country"
  description = "A country by its ISO 3166 code: its name, capital, currency, continent and languages."

  arg "code" {
    type        = string
    description = "Two-letter ISO 3166 code, such as KE or FR"
    pattern     = "^[A-Za-z]{2}$"
  }

  graphql {
    api       = http_api.countries
    schema    = "countries/schema.graphql"
    query     = <<-GQL
      query Country($code: ID!) {
        country(code: $code) {
          name
          capital
          currency
          continent { name }
          languages { name }
        }
      }
    GQL
    variables = { code = expr("upper(args.code)") }
  }

  error_if      = expr("data?.country == nil")
  error_message = expr("len(errors ?? []) > 0 ? errors[0].message : 'No country has the code ' + upper(args.code) + '.'")

  output "name" {
    type  = string
    value = expr("data.country.name")
  }
  output "capital" {
    type     = string
    optional = true
    value    = expr("data.country.capital")
  }
  output "currency" {
    type     = string
    optional = true
    value    = expr("data.country.currency")
  }
  output "continent" {
    type  = string
    value = expr("data.country.continent.name")
  }
  output "languages" {
    type  = list(string)
    value = expr("map(data.country.languages, .name)")
  }
}

tool "countries_by_currency" {
  title       = "Countries by currency"
  description = "The countries that use a currency, by its ISO 4217 code."

  arg "currency" {
    type        = string
    description = "Three-letter ISO 4217 code, such as EUR"
    pattern     = "^[A-Za-z]{3}$"
  }

  graphql {
    api       = http_api.countries
    schema    = "countries/schema.graphql"
    query     = <<-GQL
      query ByCurrency($currency: String!) {
        countries(filter: { currency: { regex: $currency } }) { code name }
      }
    GQL
    variables = { currency = expr("upper(args.currency)") }
  }

  output "countries" {
    type  = list(object({ code = string, name = string }))
    value = expr("data.countries")
  }
}
