# Tools that work within the folders the client shares with the server (its
# roots): a path outside them, with .., or through a symbolic link that
# leads out is refused before anything runs.
#
#   mcpdecl serve examples/folders.hcl
#
# Over stdio the server asks the client with roots/list; a client of
# 2026-07-28 is asked with an input request, with the other questions of the
# call (the confirmation of remove_file) in the same round.

server {
  name    = "folders"
  version = "1.0.0"
}

tool "list_folders" {
  description = "Lists the folders you share with this server."
  annotations {
    read_only_hint = true
  }
  roots {}
  text = expr("len(roots) == 0 ? 'You share no folders.' : join(map(roots, .path != '' ? .path : .uri), '\\n')")
}

tool "head" {
  description = "Shows the first lines of a text file in one of the folders you share."
  annotations {
    read_only_hint = true
  }
  arg "path" {
    type         = string
    description  = "The file: an absolute path, or a file:// URI, within one of your folders"
    within_roots = true
  }
  arg "lines" {
    type    = integer
    minimum = 1
    maximum = 200
    default = 10
  }
  exec {
    command = ["head", "-n", expr("string(args.lines)"), "--", expr("args.path")]
  }
}

tool "remove_file" {
  description = "Removes a file in one of the folders you share, once you confirm."
  annotations {
    destructive_hint = true
  }
  arg "path" {
    type         = string
    description  = "The file: an absolute path, or a file:// URI, within one of your folders"
    within_roots = true
  }
  confirm {
    message = expr("'Remove ' + args.path + '?'")
  }
  exec {
    command = ["rm", "--", expr("args.path")]
  }
  text = expr("'Removed ' + args.path")
}
