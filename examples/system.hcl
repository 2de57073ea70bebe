# Programs found on every Debian machine (coreutils, git), served as tools.
#
# The exec action runs a program with an argument vector, never through a
# shell: whatever a client sends reaches the program as one argument. The
# program sees PATH and the variables its env names, not the server's
# environment.
#
#   mcpdecl call examples/system.hcl system_info
#   mcpdecl call examples/system.hcl current_time '{"timezone": "JST-9"}'
#   mcpdecl call examples/system.hcl disk_usage '{"path": "/tmp"}'
#   mcpdecl call examples/system.hcl git_log '{"repo": "/path/to/repo", "limit": 3}'

server {
  name         = "system"
  version      = "1.0.0"
  instructions = "Facts about the machine this server runs on: the time, the kernel, disk space, and the history of git repositories."
}

tool "current_time" {
  title       = "Current time"
  description = "The current date and time in a time zone."

  annotations {
    read_only_hint = true
  }

  arg "timezone" {
    type        = string
    description = "A TZ value: UTC, a zone such as Europe/Paris (with the tzdata package), or a POSIX rule such as JST-9"
    default     = "UTC"
    # No file name: not "/…", "../…" nor ":…", which date would open.
    pattern    = "^[A-Za-z0-9_+,-][A-Za-z0-9_+:,-]*([/.][A-Za-z0-9_+:,-]+)*$"
    max_length = 64
  }

  exec {
    command = ["date", "+%Y-%m-%dT%H:%M:%S%:z %Z"]
    env     = { TZ = expr("args.timezone") } # the only variable date sees, with PATH
    timeout = "5s"
  }

  output "time" {
    type        = string
    description = "ISO 8601, with the offset from UTC"
    value       = expr("split(trim(stdout), ' ')[0]")
  }
  output "zone" {
    type        = string
    description = "The zone's abbreviation, such as CET"
    value       = expr("split(trim(stdout), ' ')[1]")
  }
}

tool "system_info" {
  title       = "System information"
  description = "The kernel, host name and hardware of the machine."

  annotations {
    read_only_hint  = true
    idempotent_hint = true
  }

  exec {
    command = ["uname", "-s", "-n", "-r", "-m"] # printed in this order, one line
    timeout = "5s"
  }

  output "kernel" {
    type  = string
    value = expr("split(trim(stdout), ' ')[0]")
  }
  output "hostname" {
    type  = string
    value = expr("split(trim(stdout), ' ')[1]")
  }
  output "release" {
    type  = string
    value = expr("split(trim(stdout), ' ')[2]")
  }
  output "machine" {
    type        = string
    description = "The hardware, such as x86_64 or aarch64"
    value       = expr("split(trim(stdout), ' ')[3]")
  }
  text = expr("trim(stdout)")
}

tool "disk_usage" {
  title       = "Disk usage"
  description = "Size, use and free space of the file system holding a path."

  annotations {
    read_only_hint  = true
    idempotent_hint = true
  }

  arg "path" {
    type        = string
    description = "A file or directory; absolute, or relative to the directory of this file"
    default     = "/"
    min_length  = 1
  }

  exec {
    # -P: one line per file system, in the POSIX format; -k: sizes in KiB.
    # "--" ends the options: a path starting with "-" is still a path.
    command = ["df", "-P", "-k", "--", expr("args.path")]
    parse   = "lines" # stdout is a list of lines; the first is the header
    timeout = "10s"
  }

  output "filesystems" {
    type = list(object({
      filesystem    = string
      size_kib      = integer
      used_kib      = integer
      available_kib = integer
      used_percent  = integer
      mounted_on    = string
    }))
    value = expr("map(stdout[1:], let f = filter(split(#, ' '), # != ''); {filesystem: f[0], size_kib: int(f[1]), used_kib: int(f[2]), available_kib: int(f[3]), used_percent: int(trimSuffix(f[4], '%')), mounted_on: join(f[5:], ' ')})")
  }
}

tool "git_log" {
  title       = "Git log"
  description = "The latest commits of a git repository, newest first."

  annotations {
    read_only_hint = true
  }

  arg "repo" {
    type        = string
    description = "The repository's work tree; absolute, or relative to the directory of this file"
    min_length  = 1
  }
  arg "limit" {
    type        = integer
    description = "How many commits"
    default     = 10
    minimum     = 1
    maximum     = 100
  }

  exec {
    # An integer argument becomes its plain text: -n 10.
    command = ["git", "-C", expr("args.repo"), "log", "-n", expr("args.limit"), "--format=%H%x09%an%x09%aI%x09%s", "--"]
    env     = { GIT_PAGER = "cat", GIT_TERMINAL_PROMPT = "0" }
    parse   = "lines"
    timeout = "10s"
  }

  output "commits" {
    type = list(object({
      hash    = string
      author  = string
      date    = string
      subject = string
    }))
    value = expr("map(stdout, let f = split(#, '\\t'); {hash: f[0], author: f[1], date: f[2], subject: join(f[3:], '\\t')})")
  }
}

tool "git_grep" {
  title       = "Search a git repository"
  description = "The lines of the tracked files of a git repository holding a text. No match is an empty list, not an error."

  annotations {
    read_only_hint = true
  }

  arg "repo" {
    type        = string
    description = "The repository's work tree; absolute, or relative to the directory of this file"
    min_length  = 1
  }
  arg "text" {
    type        = string
    description = "The text to find, taken literally"
    min_length  = 1
  }

  exec {
    # -e: the text is a pattern even when it starts with "-".
    command = ["git", "-C", expr("args.repo"), "grep", "--line-number", "--fixed-strings", "-I", "-e", expr("args.text"), "--"]
    env     = { GIT_PAGER = "cat" }
    parse   = "lines"
    timeout = "10s"
  }

  # git grep exits with 1 when nothing matches: that is an answer, not a
  # failure. Other codes still fail, with git's message.
  error_if = expr("exit_code > 1")

  output "matches" {
    type = list(object({
      file = string
      line = integer
      text = string
    }))
    value = expr("map(stdout, let f = split(#, ':'); {file: f[0], line: int(f[1]), text: join(f[2:], ':')})")
  }
}
