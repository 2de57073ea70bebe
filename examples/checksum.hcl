# A long call as a task (the tasks extension of MCP 2026-07-28): a client
# that declares io.modelcontextprotocol/tasks gets the task at once, polls
# tasks/get for the checksums, and may stop the work with tasks/cancel,
# which kills the process. Other clients get the result as from any tool.
# A client that sends a progress token hears "n of m" files as they are
# hashed.
#
#   mcpdecl serve --http 127.0.0.1:8080 examples/checksum.hcl

server {
  name    = "checksum"
  version = "1.0.0"
}

# Tasks live in this process's memory unless TASKS_REDIS_URL is set: then
# replicas behind a balancer share them, and any of them answers for any
# task.
variable "tasks_redis_url" {
  type      = string
  default   = env("TASKS_REDIS_URL")
  sensitive = true
}

tasks {
  store          = var.tasks_redis_url == "" ? "memory" : "redis"
  redis_url      = var.tasks_redis_url
  max_per_caller = 20
}

tool "checksum" {
  description = "The SHA-256 of every file under a directory, sorted by path."
  arg "dir" {
    type        = string
    description = "The directory"
    min_length  = 1
  }
  exec {
    # The directory reaches the script as $1, never as part of its text.
    command = ["sh", "-c", <<-EOT
      cd "$1" || exit 1
      n=$(find . -type f | wc -l)
      find . -type f | LC_ALL=C sort | {
        i=0
        while IFS= read -r f; do
          sha256sum -- "$f" || exit 1
          i=$((i + 1))
          echo "$i of $n" >&2
        done
      }
      EOT
    , "checksum", expr("args.dir")]
    timeout  = "10m"
    parse    = "lines"
    progress = "(\\d+) of (\\d+)"
  }
  output "files" {
    type        = list(string)
    description = "One line per file: its checksum and its path under dir"
    value       = expr("stdout")
  }
  task {
    support       = "optional"
    ttl           = "1h"
    poll_interval = "2s"
  }
}
