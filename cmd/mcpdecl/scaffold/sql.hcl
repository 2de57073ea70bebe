# A starting configuration for mcpdecl: tools over an SQLite database of
# notes, created next to this file and filled with a few rows on first use.
#
# Check it (every mistake, with file:line:col), list its tools as a client
# sees them, call one, and serve them over MCP on stdio:
#
#   mcpdecl validate FILE
#   mcpdecl list FILE
#   mcpdecl call FILE find_notes '{"text": "mcp"}'
#   mcpdecl call FILE add_note '{"title": "Try mcpdecl", "body": "It works."}'
#   mcpdecl serve FILE
#
# mcpdecl schema --markdown prints every block and attribute (the
# reference, docs/language.md); docs/guide.md says how they work.

# What the server says of itself to clients.
server {
  name    = "my-notes"
  version = "0.1.0"
}

# Where the database is, relative to this file. Replace it with
# --var notes_db=/path/to/notes.db.
variable "notes_db" {
  type    = string
  default = "notes.db"
}

# A database that tools share. init runs once, in a transaction, when the
# database is empty: it creates the table and the first rows.
database "notes" {
  driver = "sqlite"
  dsn    = var.notes_db
  init   = <<-SQL
    CREATE TABLE notes (
      id         INTEGER PRIMARY KEY,
      title      TEXT NOT NULL,
      body       TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    INSERT INTO notes (title, body) VALUES
      ('Welcome', 'This note comes from the init SQL of the configuration.'),
      ('MCP', 'Tools declared in HCL, served over the Model Context Protocol.');
  SQL
}

# A tool: its name, what it does (for the model that calls it), its
# arguments, its query, and what it returns.
tool "find_notes" {
  title       = "Find notes"
  description = "The notes whose title or body contains a text (any case), newest first."

  # Each arg becomes a property of the tool's JSON Schema; calls with values
  # that do not fit are refused before the query runs.
  arg "text" {
    type       = string
    min_length = 1
    max_length = 100
  }
  arg "limit" {
    type    = integer
    default = 10
    minimum = 1
    maximum = 100
  }

  # The query. Values are always bound parameters (?), never pasted into the
  # SQL; expr("…") is a program run at each call, reading the arguments as
  # args. Plain SQL reads nothing but the database: tools are read-only
  # unless their SQL writes.
  sql {
    database = database.notes
    query    = <<-SQL
      SELECT id, title, body, created_at
      FROM notes
      WHERE instr(lower(title), lower(?1)) > 0 OR instr(lower(body), lower(?1)) > 0
      ORDER BY id DESC
      LIMIT ?2
    SQL
    params   = [expr("args.text"), expr("args.limit")]
  }

  # The structured result: each output is a program over the rows, checked
  # against its type.
  output "notes" {
    type = list(object({
      id         = integer
      title      = string
      body       = string
      created_at = string
    }))
    value = expr("rows")
  }
}

# A tool that writes: its annotations say so (inferred from the INSERT).
tool "add_note" {
  title       = "Add a note"
  description = "Adds a note and returns its id. This writes to the database."

  arg "title" {
    type       = string
    min_length = 1
    max_length = 200
  }
  arg "body" {
    type        = string
    description = "The text of the note, if any"
    max_length  = 10000
    optional    = true
  }

  sql {
    database = database.notes
    query    = "INSERT INTO notes (title, body) VALUES (?, ?) RETURNING id"
    params   = [expr("args.title"), expr("args.body ?? ''")]
  }

  output "id" {
    type  = integer
    value = expr("rows[0].id")
  }
}
