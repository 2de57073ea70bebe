# Tests of checksum.hcl: mcpdecl test calls the tool as a client without
# the tasks extension would, and gets its result at once.
#
#   mcpdecl test examples/checksum.test.hcl

config = "checksum.hcl"

test "checksums_of_a_directory" {
  tool = "checksum"
  args = { dir = "testdata/checksum" }

  assert {
    condition     = expr("len(structured.files) == 2 && structured.files[0] == 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  ./a.txt'")
    error_message = "one line per file, sorted by path"
  }
}

test "missing_directory" {
  tool         = "checksum"
  args         = { dir = "testdata/none" }
  expect_error = true
}
