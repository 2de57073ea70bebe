# Tests of system.hcl. Its tools run real commands (date, uname, df), so
# these tests check the shape of what they return on this machine.
#
#   mcpdecl test examples/system.test.hcl

config = "system.hcl"

test "time_in_utc" {
  tool = "current_time"

  assert {
    condition = expr("structured.zone == 'UTC' && structured.time endsWith '+00:00'")
  }
}

test "time_in_a_posix_zone" {
  tool = "current_time"
  args = { timezone = "JST-9" }

  assert {
    condition     = expr("structured.zone == 'JST' && structured.time endsWith '+09:00'")
    error_message = "the time zone reaches date through TZ"
  }
}

test "timezone_refused" {
  tool         = "current_time"
  args         = { timezone = "$(reboot)" }
  expect_error = true

  assert {
    condition     = expr("text contains 'timezone'")
    error_message = "an argument outside its pattern is refused, naming it"
  }
}

test "time_in_a_posix_rule" {
  tool = "current_time"
  args = { timezone = "EST5EDT,M3.2.0/2:00,M11.1.0/2:00" }

  assert {
    condition = expr("structured.zone in ['EST', 'EDT']")
  }
}

test "timezone_file_refused" {
  tool         = "current_time"
  args         = { timezone = "../../../../etc/passwd" }
  expect_error = true

  assert {
    condition     = expr("text contains 'timezone'")
    error_message = "a TZ that names a file, which date would open, is refused"
  }
}

test "system_info" {
  tool = "system_info"

  assert {
    condition = expr("structured.kernel != '' && structured.machine != ''")
  }
}

test "disk_usage" {
  tool = "disk_usage"

  assert {
    condition = expr("len(structured.filesystems) == 1 && structured.filesystems[0].size_kib > 0")
  }
}
