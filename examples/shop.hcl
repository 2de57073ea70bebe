# A small coffee shop in SQLite: customers, products, orders. Needs nothing
# but mcpdecl:
#
#   mcpdecl call examples/shop.hcl top_products '{"limit": 3}'
#
# The first call creates examples/shop/shop.db and fills it from
# examples/shop/seed.sql (init runs once, when the database is empty). Point
# it elsewhere with --var shop_db=/path/to/shop.db.

server {
  name         = "shop"
  version      = "1.0.0"
  instructions = "Look up a coffee shop's customers, orders and sales. Amounts are in euros. Only restock_product changes data."
}

variable "shop_db" {
  description = "The SQLite file of the shop, relative to this file; created on first use."
  default     = "shop/shop.db"
}

database "shop" {
  driver         = "sqlite"
  dsn            = "${var.shop_db}?_pragma=foreign_keys(1)"
  init           = file("shop/seed.sql")
  max_open_conns = 4
  query_timeout  = "5s"
}

tool "find_customer_orders" {
  title       = "Orders of a customer"
  description = "The orders of the customer with this email address, newest first: status, number of items and total in euros."

  arg "email" {
    type        = string
    format      = "email"
    description = "The customer's email address"
    # A call without it asks the person (a client that can be asked).
    ask = "Which customer? Their e-mail address, please."
  }

  sql {
    database = database.shop
    query    = <<-SQL
      SELECT o.id AS order_id, o.ordered_at, o.status,
             SUM(i.quantity) AS items,
             ROUND(SUM(i.quantity * i.unit_price_cents) / 100.0, 2) AS total_eur
      FROM customers c
      JOIN orders o ON o.customer_id = c.id
      JOIN order_items i ON i.order_id = o.id
      WHERE c.email = lower(?)
      GROUP BY o.id, o.ordered_at, o.status
      ORDER BY o.ordered_at DESC
    SQL
    params   = [expr("args.email")]
    max_rows = 100
  }

  output "orders" {
    type = list(object({
      order_id   = integer
      ordered_at = string
      status     = string
      items      = integer
      total_eur  = number
    }))
    value = expr("rows")
  }
  output "spent_eur" {
    type        = number
    description = "Total of the orders that were not cancelled"
    value       = expr("round(sum(map(filter(rows, .status != 'cancelled'), .total_eur)) * 100) / 100")
  }
}

tool "top_products" {
  title       = "Best-selling products"
  description = "The products sold in the largest quantities (cancelled orders left out), optionally within one category."

  arg "limit" {
    type    = integer
    default = 5
    minimum = 1
    maximum = 20
  }
  arg "category" {
    type     = string
    enum     = ["coffee", "tea", "kitchen", "accessories", "books"]
    optional = true
  }

  sql {
    database = database.shop
    query    = <<-SQL
      SELECT p.sku, p.name, p.category,
             SUM(i.quantity) AS units_sold,
             ROUND(SUM(i.quantity * i.unit_price_cents) / 100.0, 2) AS revenue_eur
      FROM products p
      JOIN order_items i ON i.product_id = p.id
      JOIN orders o ON o.id = i.order_id
      WHERE o.status <> 'cancelled' AND (?1 IS NULL OR p.category = ?1)
      GROUP BY p.id
      ORDER BY units_sold DESC, revenue_eur DESC
      LIMIT ?2
    SQL
    params   = [expr("args.category"), expr("args.limit")]
  }

  output "products" {
    type = list(object({
      sku         = string
      name        = string
      category    = string
      units_sold  = integer
      revenue_eur = number
    }))
    value = expr("rows")
  }
}

tool "sales_report" {
  title       = "Monthly sales"
  description = "Orders, units and revenue in euros per month between two dates (inclusive), cancelled orders left out."

  arg "from" {
    type    = string
    format  = "date"
    default = "2025-01-01"
  }
  arg "to" {
    type    = string
    format  = "date"
    default = "2025-12-31"
  }

  sql {
    database = database.shop
    query    = <<-SQL
      SELECT strftime('%Y-%m', o.ordered_at) AS month,
             COUNT(DISTINCT o.id) AS orders,
             SUM(i.quantity) AS units,
             ROUND(SUM(i.quantity * i.unit_price_cents) / 100.0, 2) AS revenue_eur
      FROM orders o
      JOIN order_items i ON i.order_id = o.id
      WHERE o.status <> 'cancelled'
        AND o.ordered_at >= ? AND o.ordered_at < date(?, '+1 day')
      GROUP BY month
      ORDER BY month
    SQL
    params   = [expr("args.from"), expr("args.to")]
  }

  output "months" {
    type = list(object({
      month       = string
      orders      = integer
      units       = integer
      revenue_eur = number
    }))
    value = expr("rows")
  }
  output "revenue_eur" {
    type  = number
    value = expr("round(sum(map(rows, .revenue_eur)) * 100) / 100")
  }
  text = expr("'Revenue ' + args.from + ' to ' + args.to + ': ' + string(round(sum(map(rows, .revenue_eur)) * 100) / 100) + ' EUR over ' + string(len(rows)) + ' months'")
}

# A tool that changes data: its annotations say so (destructive, not
# read-only), inferred from the UPDATE.
tool "restock_product" {
  title       = "Restock a product (changes data)"
  description = "Adds units to a product's stock after a delivery, and returns the new stock. This writes to the database."

  arg "sku" {
    type    = string
    pattern = "^[A-Z]+-[0-9]{3}$"
  }
  arg "quantity" {
    type    = integer
    minimum = 1
    maximum = 1000
  }

  sql {
    database = database.shop
    query    = "UPDATE products SET stock = stock + ? WHERE sku = ? RETURNING sku, name, stock"
    params   = [expr("args.quantity"), expr("args.sku")]
  }

  error_if      = expr("len(rows) == 0")
  error_message = expr("'There is no product with SKU ' + args.sku + '.'")

  output "sku" {
    type  = string
    value = expr("rows[0].sku")
  }
  output "stock" {
    type  = integer
    value = expr("rows[0].stock")
  }
}

# Cancelling an order cannot be undone: the person behind the client is
# asked first (elicitation), with the reason as a choice, and a decline
# cancels nothing. A client that cannot be asked is refused.
tool "cancel_order" {
  title       = "Cancel an order (asks first)"
  description = "Cancels an order that is pending or paid, once the person confirms, and records why."

  annotations {
    destructive_hint = true
  }

  arg "order_id" {
    type    = integer
    minimum = 1
  }

  confirm {
    message = expr("'Cancel order ' + string(args.order_id) + '? This cannot be undone.'")
    field "reason" {
      type        = string
      title       = "Reason"
      description = "Why the order is cancelled"
      enum        = ["customer request", "out of stock", "fraud"]
      default     = "customer request"
    }
  }

  sql {
    database = database.shop
    query    = "UPDATE orders SET status = 'cancelled' WHERE id = ? AND status IN ('pending', 'paid') RETURNING id, status"
    params   = [expr("args.order_id")]
  }

  error_if      = expr("len(rows) == 0")
  error_message = expr("'Order ' + string(args.order_id) + ' is not pending or paid, so it cannot be cancelled.'")

  output "order_id" {
    type  = integer
    value = expr("rows[0].id")
  }
  output "status" {
    type  = string
    value = expr("rows[0].status")
  }
  output "reason" {
    type  = string
    value = expr("confirm.reason")
  }
}

# A customer's feedback, sorted by the client's own model (sampling): the
# server runs no model and holds no API key. The answer is JSON, checked
# against the outputs; a client without sampling is refused.
tool "classify_feedback" {
  title       = "Classify feedback (asks the client's model)"
  description = "Sorts a customer's feedback: its sentiment and what it is about."

  annotations {
    read_only_hint = true
  }

  arg "feedback" {
    type       = string
    min_length = 1
    max_length = 2000
  }

  sample {
    system_prompt  = "You sort a coffee shop's customer feedback. Answer with JSON alone: {\"sentiment\": \"positive\" | \"neutral\" | \"negative\", \"topic\": \"coffee\" | \"food\" | \"service\" | \"price\" | \"other\"}."
    messages       = [expr("args.feedback")]
    max_tokens     = 100
    model_hints    = ["haiku", "flash"]
    speed_priority = 0.8
    parse          = "json"
  }

  output "sentiment" {
    type  = string
    value = expr("text.sentiment")
  }
  output "topic" {
    type  = string
    value = expr("text.topic")
  }
}

# The shop's catalog and each product as resources, read with the same sql
# action as the tools; and a prompt that puts the tools to work.

resource "catalog" {
  uri         = "shop://catalog"
  title       = "Catalog"
  description = "Every product: SKU, name, category and price in euros, as JSON."
  mime_type   = "application/json"

  sql {
    database = database.shop
    query    = "SELECT sku, name, category, price_cents / 100.0 AS price_eur FROM products ORDER BY sku"
  }
  text = expr("toJSON(rows)")
}

resource_template "product" {
  uri_template = "shop://products/{sku}"
  title        = "Product"
  description  = "One product by SKU: name, category, price in cents and stock, as JSON."
  mime_type    = "application/json"
  # A client subscribed to a product (resources/subscribe) is told when a
  # read, every 2 seconds, finds it changed: restock_product, say.
  poll_interval = "2s"

  arg "sku" {
    type    = string
    pattern = "^[A-Z]+-[0-9]{3}$"

    # completion/complete offers the SKUs that start with what was typed.
    complete {
      sql {
        database = database.shop
        query    = "SELECT sku FROM products WHERE substr(sku, 1, length(?1)) = upper(?1) ORDER BY sku LIMIT 101"
        params   = [expr("args.value")]
      }
      values = expr("map(rows, .sku)")
    }
  }

  sql {
    database = database.shop
    query    = "SELECT sku, name, category, price_cents, stock FROM products WHERE sku = ?"
    params   = [expr("args.sku")]
  }
  error_if      = expr("len(rows) == 0")
  error_message = expr("'There is no product with SKU ' + args.sku + '.'")
  text          = expr("toJSON(rows[0])")
}

prompt "customer_report" {
  title       = "Report on a customer"
  description = "Asks for a report on one customer's orders, using the shop's tools."

  arg "email" {
    description = "The customer's email address"
  }
  arg "length" {
    description = "How long the report should be"
    enum        = ["brief", "detailed"]
    optional    = true
  }

  message "user" {
    text = expr("'Write a ' + (args.length == '' ? 'brief' : args.length) + ' report on the customer ' + args.email + ': call find_customer_orders for their orders, then say what they buy and how much they spent.'")
  }
}

# A prompt that asks the person first, as a tool's confirm block does: which
# customer and which tone, then the message reads the answers.
prompt "apology" {
  title       = "Apologise to a customer (asks first)"
  description = "Drafts an apology to a customer for an order, in the tone the person picks."

  arg "order_id" {
    description = "The order that went wrong"
  }

  confirm {
    message = expr("'Draft an apology for order ' + args.order_id + '? Pick the tone.'")
    field "tone" {
      type    = string
      title   = "Tone"
      enum    = ["warm", "formal"]
      default = "warm"
    }
  }

  message "user" {
    text = expr("'Look up order ' + args.order_id + ' with the shop tools, then draft a ' + confirm.tone + ' apology to its customer.'")
  }
}
