package load_test

import (
	"strings"
	"testing"
)

// TestConfirmBlockErrors: a form holds primitive fields; a tool that asks
// cannot answer from a cache; a program reads only the fields declared; a
// request state key is long enough. Each error says where and what to do.
func TestConfirmBlockErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`tool "t" {
  description = "A tool."
  confirm {
    message = "Sure?"
    field "tags" {
      type = list(string)
    }
  }
}`, "Field type not allowed in a form"},
		{`tool "t" {
  description = "A tool."
  confirm {
    message = "Sure?"
    field "tags" {
      type = list(number)
      enum = [1, 2]
    }
  }
}`, "Field type not allowed in a form"},
		{`tool "t" {
  description = "A tool."
  confirm {
    message = "Sure?"
    field "color" {
      enum        = ["r", "g"]
      enum_titles = ["Red"]
    }
  }
}`, "enum_titles has 1 titles and the enum 2 values"},
		{`tool "t" {
  description = "A tool."
  confirm {
    message = "Sure?"
    field "color" {
      enum_titles = ["Red"]
    }
  }
}`, "Titles without an enum"},
		{`tool "t" {
  description = "A tool."
  confirm {
    message = "Sure?"
    field "n" {
      type        = integer
      enum        = [1, 2]
      enum_titles = ["One", "Two"]
    }
  }
}`, "Titles of a choice that is not of strings"},
		{`tool "t" {
  description = "A tool."
  confirm {
    message = "Sure?"
    field "colors" {
      type           = list(string)
      enum           = ["r", "g"]
      enum_titles    = ["Red", "Green"]
      enum_titles_as = "enum_names"
    }
  }
}`, "enumNames in a multiple choice"},
		{`tool "t" {
  description = "A tool."
  confirm {
    message = "Sure?"
    field "colors" {
      type    = list(string)
      enum    = ["r", "g"]
      default = ["b"]
    }
  }
}`, "Default not among the choices"},
		{`tool "t" {
  description = "A tool."
  annotations {
    read_only_hint = true
  }
  cache {
    ttl = "1m"
  }
  confirm {
    message = "Sure?"
  }
}`, "Cache of a tool that asks for confirmation"},
		{`tool "t" {
  description = "A tool."
  confirm {
    message = "Sure?"
    field "reason" {}
  }
  text = expr("confirm.reasons")
}`, "reasons"},
		{`tool "t" {
  description = "A tool."
  confirm {
    message = expr("confirm.reason")
    field "reason" {}
  }
}`, "confirm"},
		{`tool "t" {
  description = "A tool."
  confirm {
    message = "Sure?"
    field "reason" {
      pattern = "x"
    }
  }
}`, "pattern"},
		{`server {
  request_state_keys = ["short"]
}`, "Short request state key"},
		{`tool "t" {
  description = "A tool."
  arg "password" {
    sensitive = true
    ask       = "Your password?"
  }
}`, "Ask for a sensitive argument"},
		{`tool "t" {
  description = "A tool."
  arg "city" {
    default = "Paris"
    ask     = "Which city?"
  }
}`, "never missing"},
		{`tool "t" {
  description = "A tool."
  arg "tags" {
    type = list(string)
    ask  = "Which tags?"
  }
}`, "Ask for an argument of this type"},
		{`tool "t" {
  description = "A tool."
  arg "tags" {
    schema = jsonencode({ type = "array", items = { type = "integer" } })
    ask    = "Which tags?"
  }
}`, "Ask for an argument of this schema"},
		{`tool "t" {
  description = "A tool."
  arg "size" {
    enum        = ["s", "l"]
    enum_titles = ["Small"]
  }
}`, "enum_titles has 1 titles and the enum 2 values"},
		{`tool "t" {
  description = "A tool."
  arg "n" {
    type        = integer
    enum        = [1, 2]
    enum_titles = ["One", "Two"]
  }
}`, "Titles of a choice that is not of strings"},
	} {
		_, diags := loadString(t, c.src, nil, nil)
		if !diags.HasErrors() || !strings.Contains(describe(diags), c.want) {
			t.Errorf("want an error about %q, got:\n%s\nfor:\n%s", c.want, describe(diags), c.src)
		}
	}
	src := `server {
  request_state_keys = ["` + strings.Repeat("k", 32) + `"]
}
tool "t" {
  description = "A tool."
  arg "id" {}
  confirm {
    message = expr("'Delete ' + args.id + '?'")
    field "reason" {
      title   = "Reason"
      enum    = ["a", "b"]
      default = "a"
    }
  }
  text = expr("confirm.reason")
}`
	if _, diags := loadString(t, src, nil, nil); diags.HasErrors() {
		t.Errorf("a valid confirm block does not load:\n%s", describe(diags))
	}
}
