# The fixture tools of the official MCP conformance suite
# (@modelcontextprotocol/conformance) that a declaration can express, each
# written as a user would. .ci/run serves this file with
# `mcpdecl serve --http` and runs the suite's server scenarios against it.

server {
  name    = "mcpdecl-conformance"
  version = "1.0.0"
  # Log messages for clients before 2026-07-28 that set no level: over
  # stateless HTTP their logging/setLevel does not outlast its request.
  log_level = "info"
  # Sessions for clients before 2026-07-28 that initialize one, so that
  # they can be asked (elicitation, sampling) and told of resource updates.
  http_sessions = true
}

locals {
  # A 1×1 red pixel, and a few samples of silence.
  red_pixel_png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
  silence_wav   = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"
}

tool "test_simple_text" {
  description = "Returns a simple text response."
  text        = "This is a simple text response for testing."
}

tool "test_image_content" {
  description = "Returns a PNG image."
  content "image" {
    data      = local.red_pixel_png
    mime_type = "image/png"
  }
}

tool "test_audio_content" {
  description = "Returns a WAV sound."
  content "audio" {
    data      = local.silence_wav
    mime_type = "audio/wav"
  }
}

tool "test_embedded_resource" {
  description = "Returns an embedded text resource."
  content "resource" {
    uri       = "test://embedded-resource"
    mime_type = "text/plain"
    text      = "This is an embedded resource content."
  }
}

tool "test_multiple_content_types" {
  description = "Returns text, an image and an embedded resource."
  content "text" {
    text = "Multiple content types test:"
  }
  content "image" {
    data      = local.red_pixel_png
    mime_type = "image/png"
  }
  content "resource" {
    uri       = "test://mixed-content-resource"
    mime_type = "application/json"
    text      = jsonencode({ test = "data", value = 123 })
  }
}

tool "test_error_handling" {
  description   = "Always fails, as a tool error."
  error_if      = expr("true")
  error_message = "This tool intentionally returns an error for testing"
}

# A program's stderr lines are sent to the client as log messages as they
# are written (log_stderr), at or above the level the client asked for;
# its stdout is the result.
tool "test_tool_with_logging" {
  description = "Sends three log messages while it runs."
  exec {
    command    = ["sh", "-c", "echo 'Tool execution started' >&2; sleep 0.05; echo 'Tool processing data' >&2; sleep 0.05; echo 'Tool execution completed' >&2; echo 'Tool with logging executed successfully'"]
    log_stderr = "info"
  }
}

tool "test_logging_tool" {
  description = "Sends a log message while it runs."
  exec {
    command    = ["sh", "-c", "echo 'Logging tool ran' >&2; echo 'Logged'"]
    log_stderr = "info"
  }
}

# The program's lines that match progress report its progress to a client
# that sent a progress token (notifications/progress), at most a few a
# second; its stdout is the result.
tool "test_tool_with_progress" {
  description = "Reports its progress three times while it runs."
  exec {
    command  = ["sh", "-c", "echo '0 of 100' >&2; sleep 0.3; echo '50 of 100' >&2; sleep 0.3; echo '100 of 100' >&2; echo 'Progress test completed'"]
    progress = "(\\d+) of (\\d+)"
  }
}

tool "json_schema_2020_12_tool" {
  description = "Tool with JSON Schema 2020-12 features"
  input_schema = jsonencode({
    "$schema" = "https://json-schema.org/draft/2020-12/schema"
    type      = "object"
    "$defs" = {
      address = {
        "$anchor" = "addressDef"
        type      = "object"
        properties = {
          street = { type = "string" }
          city   = { type = "string" }
        }
      }
    }
    properties = {
      name          = { type = "string" }
      address       = { "$ref" = "#/$defs/address" }
      contactMethod = { type = "string", enum = ["phone", "email"] }
      phone         = { type = "string" }
      email         = { type = "string" }
    }
    allOf                = [{ anyOf = [{ required = ["phone"] }, { required = ["email"] }] }]
    if                   = { properties = { contactMethod = { const = "phone" } }, required = ["contactMethod"] }
    then                 = { required = ["phone"] }
    else                 = { required = ["email"] }
    additionalProperties = false
  })
  text = "ok"
}

# Resources, a resource template and prompts, as the suite's resources-*,
# prompts-* and completion-complete scenarios expect them.

resource "static_text" {
  uri         = "test://static-text"
  description = "A static text resource."
  mime_type   = "text/plain"
  text        = "This is the content of the static text resource."
}

resource "static_binary" {
  uri         = "test://static-binary"
  description = "A static PNG image."
  mime_type   = "image/png"
  content "image" {
    data      = local.red_pixel_png
    mime_type = "image/png"
  }
}

# The resource the suite subscribes to: its text changes every second, and
# subscribers are told (a 2026-07-28 client on its subscriptions/listen
# stream).
resource "watched" {
  uri           = "test://watched-resource"
  description   = "A resource that changes every second."
  poll_interval = "1s"
  text          = expr("'The time is ' + string(now().Unix())")
}

resource_template "template_data" {
  uri_template = "test://template/{id}/data"
  description  = "Data for an id."
  mime_type    = "application/json"
  arg "id" {
    type    = string
    pattern = "^[A-Za-z0-9_-]{1,64}$"
  }
  text = expr("toJSON({id: args.id, templateTest: true, data: 'Data for ID: ' + args.id})")
}

prompt "test_simple_prompt" {
  description = "A simple prompt without arguments."
  message "user" {
    text = "This is a simple prompt for testing."
  }
}

prompt "test_prompt_with_arguments" {
  description = "A prompt with two arguments."
  arg "arg1" {
    description = "First test argument"
  }
  arg "arg2" {
    description = "Second test argument"
  }
  message "user" {
    text = expr("\"Prompt with arguments: arg1='\" + args.arg1 + \"', arg2='\" + args.arg2 + \"'\"")
  }
}

prompt "test_prompt_with_embedded_resource" {
  description = "A prompt that embeds a resource."
  arg "resourceUri" {
    description = "URI of the resource to embed"
  }
  message "user" {
    content "resource" {
      uri       = expr("args.resourceUri")
      mime_type = "text/plain"
      text      = "Embedded resource content for testing."
    }
  }
  message "user" {
    text = "Please process the embedded resource above."
  }
}

prompt "test_prompt_with_image" {
  description = "A prompt with an image."
  message "user" {
    content "image" {
      data      = local.red_pixel_png
      mime_type = "image/png"
    }
  }
  message "user" {
    text = "Please analyze the image above."
  }
}

# An argument mirrored in an HTTP header (SEP-2243), as the suite's
# http-custom-header-server-validation scenario expects: the server checks
# that Mcp-Param-Region says what the body says.
tool "test_header_param" {
  description = "Echoes a region sent both in the arguments and in a header."
  arg "region" {
    type   = string
    header = "Region"
  }
  text = expr("'region ' + args.region")
}

# Confirmations: over stateless HTTP a client of 2026-07-28 is asked with an
# input_required result and calls again with the answer and the signed
# request state (a client of 2025-11-25 would need a session).
tool "test_input_required_result_elicitation" {
  description = "Asks for a name, and greets."
  confirm {
    key     = "user_name"
    message = "What is your name?"
    field "name" {
      type = string
    }
  }
  text = expr("'Hello, ' + confirm.name + '!'")
}

tool "test_input_required_result_request_state" {
  description = "Asks for a confirmation, and says the state was checked."
  confirm {
    message = "Please confirm"
    field "ok" {
      type = bool
    }
  }
  text = "state-ok"
}

tool "test_input_required_result_tampered_state" {
  description = "Asks for a confirmation; a tampered request state is refused."
  confirm {
    message = "Please confirm"
    field "ok" {
      type = bool
    }
  }
  text = "state-ok"
}

tool "test_elicitation" {
  description = "Asks the person for a user name and an e-mail address."
  arg "message" {
    type = string
  }
  confirm {
    message = expr("args.message")
    field "username" {
      type        = string
      description = "User's response"
    }
    field "email" {
      type        = string
      description = "User's email address"
    }
  }
  text = expr("'User response: ' + confirm.username + ' <' + confirm.email + '>'")
}

tool "test_elicitation_sep1034_defaults" {
  description = "Asks with a form whose fields have defaults."
  confirm {
    message = "Please review and update the form fields with defaults"
    field "name" {
      type    = string
      default = "John Doe"
    }
    field "age" {
      type    = integer
      default = 30
    }
    field "score" {
      type    = number
      default = 95.5
    }
    field "status" {
      type    = string
      enum    = ["active", "inactive", "pending"]
      default = "active"
    }
    field "verified" {
      type    = bool
      default = true
    }
  }
  text = expr("'Elicitation completed: ' + toJSON(confirm)")
}

tool "test_streaming_elicitation" {
  description = "Asks to go on: its answer is an input_required result, never a request of its own on the stream."
  confirm {
    message = "Go on?"
  }
  text = "done"
}

# Sampling: a tool asks the client's model. Over stateless HTTP a client of
# 2026-07-28 is asked with an input_required result and calls again with the
# model's answer and the signed request state (a client of 2025-11-25 would
# need a session: test_sampling is refused there).
tool "test_sampling" {
  description = "Asks the client's model, and says what it answered."
  arg "prompt" {
    type = string
  }
  sample {
    messages   = [expr("args.prompt")]
    max_tokens = 100
  }
  text = expr("'LLM response: ' + text")
}

tool "test_input_required_result_sampling" {
  description = "Asks the client's model the capital of France."
  sample {
    key        = "capital_question"
    messages   = ["What is the capital of France?"]
    max_tokens = 100
  }
  text = expr("text")
}

tool "test_input_required_result_capabilities" {
  description = "Asks the client's model, which a client that declares sampling alone can answer."
  sample {
    messages   = ["Say hello."]
    max_tokens = 50
  }
  text = expr("text")
}

# A client capability the call needs and the client did not declare
# (sampling): over 2026-07-28 the call is refused with -32021 and HTTP 400.
tool "test_missing_capability" {
  description = "Asks the client's model, so it needs the sampling capability."
  sample {
    messages   = ["Say hello."]
    max_tokens = 10
  }
  text = expr("text")
}

# Roots: the call asks the client for its roots (roots/list), and says
# what they are.
tool "test_input_required_result_list_roots" {
  description = "Asks for the client's roots, and lists them."
  roots {
    key = "client_roots"
  }
  text = expr("'Roots: ' + join(map(roots, .uri), ', ')")
}

# Three questions in one round: the argument the call lacks, the client's
# model (whose messages read no answer, in a tool that asks no consent) and
# the roots.
tool "test_input_required_result_multiple_inputs" {
  description = "Asks for a name, a greeting from the client's model and the roots, in one round."
  # A question, not a consent: a confirm block would have the model wait
  # for the person's yes, in a round of its own.
  arg "name" {
    type = string
    ask  = "What is your name?"
  }
  roots {
    key = "client_roots"
  }
  sample {
    key        = "greeting"
    messages   = ["Generate a greeting"]
    max_tokens = 50
  }
  text = expr("text + ', ' + args.name + ' (' + string(len(roots)) + ' roots)'")
}

# Two rounds: an argument the call lacks, then the confirmation, whose
# message reads it (one that reads no argument would be asked with it) and
# whose request state carries the first answer.
tool "test_input_required_result_multi_round" {
  description = "Asks for a name, then for a favourite colour."
  arg "name" {
    type = string
    ask  = "Step 1: What is your name?"
  }
  confirm {
    key     = "step2"
    message = expr("'Step 2: What is your favorite color, ' + args.name + '?'")
    field "color" {
      type = string
    }
  }
  text = expr("args.name + ' likes ' + confirm.color")
}

# An input request from prompts/get: a prompt asks, as a tool does, before
# it gives its messages, which read the answer.
prompt "test_input_required_result_prompt" {
  description = "Asks what context to use, then gives a message with it."
  confirm {
    key     = "user_context"
    message = "What context should the prompt use?"
    field "context" {
      type = string
    }
  }
  message "user" {
    text = expr("'Use this context: ' + confirm.context")
  }
}

# The tasks extension (io.modelcontextprotocol/tasks): a client that declares
# it gets a task from tools/call at once and polls tasks/get.
tool "greet" {
  description = "Greets, at once: never a task."
  arg "name" {
    type = string
  }
  text = expr("'Hello, ' + args.name + '!'")
}

tool "slow_compute" {
  description = "Sleeps for the seconds asked, then says it is done; runs as a task."
  arg "seconds" {
    type    = integer
    minimum = 0
    maximum = 3600
  }
  arg "label" {
    type    = string
    default = ""
  }
  exec {
    command = ["sleep", expr("string(args.seconds)")]
  }
  text = expr("'computed ' + args.label + ' in ' + string(args.seconds) + ' s'")
  task {
    poll_interval = "200ms"
  }
}

tool "failing_job" {
  description = "Fails as a tool (isError) after a second; only runs as a task."
  exec {
    command = ["sh", "-c", "sleep 1; echo 'the job failed' >&2; exit 3"]
  }
  task {
    support = "required"
  }
}

# A protocol-level failure of a task: its result is larger than the task
# keeps (max_result), so the task fails with an error, not a result.
tool "protocol_error_job" {
  description = "Fails as a task: its result is larger than the task keeps."
  text        = "a result longer than the sixteen bytes this task keeps"
  task {
    max_result = 16
  }
}

tool "confirm_delete" {
  description = "Deletes a file once the person confirms; the task waits for the answer."
  arg "filename" {
    type = string
  }
  confirm {
    message = expr("'Delete ' + args.filename + '?'")
  }
  text = expr("'deleted ' + args.filename")
  task {
    confirm = "in_task"
  }
}

# Two questions in one round, in a task: the name the call lacks and the
# consent, whose message reads no argument. The client may answer them one
# at a time with tasks/update; the task waits for both. The suite answers
# each with { name, confirm }, so the consent's form has both fields.
tool "multi_input" {
  description = "Asks for a name and for consent at once, in a task, then greets."
  arg "name" {
    type = string
    ask  = "What is your name?"
  }
  confirm {
    key     = "consent"
    message = "Greet you by name?"
    field "confirm" {
      type  = bool
      title = "Greet me"
    }
    field "name" {
      type     = string
      optional = true
      title    = "The name, again (not read)"
    }
  }
  text = expr("'Hello, ' + args.name + '!'")
  task {
    support = "required"
    confirm = "in_task"
  }
}

tool "test_tool_with_task" {
  description = "Asks for a name in the call, then greets in a task."
  confirm {
    key     = "user_name"
    message = "What is your name?"
    field "name" {
      type = string
    }
  }
  text = expr("'Hello, ' + confirm.name + '!'")
  task {
    support = "required"
  }
}
tool "test_elicitation_sep1330_enums" {
  description = "Asks with a form of every kind of choice: untitled, titled, titled the deprecated way, and multiple choices untitled and titled."
  confirm {
    message = "Please choose your options"
    field "untitledSingle" {
      type = string
      enum = ["option1", "option2", "option3"]
    }
    field "titledSingle" {
      type        = string
      enum        = ["value1", "value2", "value3"]
      enum_titles = ["First Option", "Second Option", "Third Option"]
    }
    field "legacyEnum" {
      type           = string
      enum           = ["opt1", "opt2", "opt3"]
      enum_titles    = ["Option One", "Option Two", "Option Three"]
      enum_titles_as = "enum_names"
    }
    field "untitledMulti" {
      type = list(string)
      enum = ["option1", "option2", "option3"]
    }
    field "titledMulti" {
      type        = list(string)
      enum        = ["value1", "value2", "value3"]
      enum_titles = ["First Choice", "Second Choice", "Third Choice"]
    }
  }
  text = expr("'Elicitation completed: action=accept, content=' + toJSON(confirm)")
}
