# A starting configuration for mcpdecl: tools that run programs of this
# machine (date and uname). A program runs with an argument vector, never
# through a shell: what a client sends reaches it as one argument.
#
# Check it (every mistake, with file:line:col), list its tools as a client
# sees them, call one, and serve them over MCP on stdio:
#
#   mcpdecl validate FILE
#   mcpdecl list FILE
#   mcpdecl call FILE current_time '{"timezone": "UTC"}'
#   mcpdecl call FILE system_info
#   mcpdecl serve FILE
#
# mcpdecl schema --markdown prints every block and attribute (the
# reference, docs/language.md); docs/guide.md says how they work.

# What the server says of itself to clients.
server {
  name    = "my-tools"
  version = "0.1.0"
}

# A tool: its name, what it does (for the model that calls it), its
# arguments, the program it runs, and what it returns.
tool "current_time" {
  title       = "Current time"
  description = "The current date and time in a time zone."

  # Hints for clients: this tool changes nothing.
  annotations {
    read_only_hint = true
  }

  # Each arg becomes a property of the tool's JSON Schema; calls with values
  # that do not fit are refused before the program runs.
  arg "timezone" {
    type        = string
    description = "A TZ value: UTC, a zone such as Europe/Paris, or a POSIX rule such as JST-9"
    default     = "UTC"
    # No file name: not "/…", "../…" nor ":…", which date would open.
    pattern    = "^[A-Za-z0-9_+,-][A-Za-z0-9_+:,-]*([/.][A-Za-z0-9_+:,-]+)*$"
    max_length = 64
  }

  # The program. expr("…") is a program run at each call; it reads the
  # arguments as args. The program sees PATH and the variables env names,
  # not the server's environment.
  exec {
    command = ["date", "+%Y-%m-%dT%H:%M:%S%:z"]
    env     = { TZ = expr("args.timezone") }
    timeout = "5s"
  }

  # The structured result: each output is a program over what the program
  # printed (stdout, stderr, exit_code), checked against its type.
  output "time" {
    type        = string
    description = "ISO 8601, with the offset from UTC"
    value       = expr("trim(stdout)")
  }
}

tool "system_info" {
  title       = "System information"
  description = "The kernel and hardware of the machine."

  annotations {
    read_only_hint  = true
    idempotent_hint = true
  }

  exec {
    command = ["uname", "-s", "-r", "-m"] # printed in this order, one line
    timeout = "5s"
  }

  output "kernel" {
    type  = string
    value = expr("split(trim(stdout), ' ')[0]")
  }
  output "release" {
    type  = string
    value = expr("split(trim(stdout), ' ')[1]")
  }
  output "machine" {
    type        = string
    description = "The hardware, such as x86_64 or aarch64"
    value       = expr("split(trim(stdout), ' ')[2]")
  }
  # The text clients show: here the line uname printed.
  text = expr("trim(stdout)")
}
