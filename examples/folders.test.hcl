# Tests of folders.hcl: the client's roots are given by roots (paths
# relative to this file, or file:// URIs); path.dir is this file's folder.
#
#   mcpdecl test examples/folders.test.hcl

config = "folders.hcl"

test "list_folders" {
  tool  = "list_folders"
  roots = ["testdata/folders"]

  assert {
    condition = expr("text endsWith 'testdata/folders'")
  }
}

test "head_within_roots" {
  tool  = "head"
  args  = { path = "${path.dir}/testdata/folders/notes.txt", lines = 2 }
  roots = ["testdata/folders"]

  assert {
    condition = expr("text == 'Buy milk.\\nCall Ada.\\n'")
  }
}

test "head_outside_roots" {
  tool         = "head"
  args         = { path = "${path.dir}/folders.hcl" }
  roots        = ["testdata/folders"]
  expect_error = true

  assert {
    condition = expr("text contains 'is not within the client' && text contains 'nothing was done'")
  }
}

test "head_with_dot_dot" {
  tool         = "head"
  args         = { path = "${path.dir}/testdata/folders/../../folders.hcl" }
  roots        = ["testdata/folders"]
  expect_error = true

  assert {
    condition = expr("text contains 'has a .. in it'")
  }
}

test "head_relative" {
  tool         = "head"
  args         = { path = "notes.txt" }
  roots        = ["testdata/folders"]
  expect_error = true

  assert {
    condition = expr("text contains 'is not an absolute path'")
  }
}

test "head_without_roots" {
  tool         = "head"
  args         = { path = "${path.dir}/testdata/folders/notes.txt" }
  expect_error = true

  assert {
    condition = expr("text contains 'the test gives no roots'")
  }
}

# The roots and the confirmation are asked in one round; declined, nothing
# is removed.
test "remove_declined" {
  tool         = "remove_file"
  args         = { path = "${path.dir}/testdata/folders/notes.txt" }
  roots        = ["testdata/folders"]
  answer       = "decline"
  expect_error = true

  assert {
    condition = expr("text contains 'declined'")
  }
}

test "remove_outside_roots_not_asked" {
  tool         = "remove_file"
  args         = { path = "${path.dir}/folders.hcl" }
  roots        = ["testdata/folders"]
  answer       = "accept"
  expect_error = true

  assert {
    condition = expr("text contains 'is not within the client'")
  }
}
