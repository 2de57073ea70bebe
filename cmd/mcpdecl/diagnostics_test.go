package main

import (
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

func TestMaskSource(t *testing.T) {
	secrets := &text.Redactor{}
	secrets.Add("var-secret-1")
	tests := map[string]string{
		`  dsn = "root:MyS3cret@tcp(db:3306)/app"`:              `  dsn = "root:(sensitive)@tcp(db:3306)/app"`,
		`  dsn = "root:p@ss@unix(/run/mysqld.sock)/app"`:        `  dsn = "root:(sensitive)@unix(/run/mysqld.sock)/app"`,
		`  dsn = "app:pw@/app"`:                                 `  dsn = "app:(sensitive)@/app"`,
		`  dsn = "postgres://app:pa55w0rd@db:5432/app"`:         `  dsn = "postgres://app:(sensitive)@db:5432/app"`,
		`  url = "redis://:hunter22@cache:6379/0"`:              `  url = "redis://:(sensitive)@cache:6379/0"`,
		`  dsn = "host=db user=app password=s3cret dbname=x"`:   `  dsn = "host=db user=app password=(sensitive) dbname=x"`,
		`  dsn = "host=db password='s3 cret' dbname=x"`:         `  dsn = "host=db password=(sensitive) dbname=x"`,
		`  title = "uses var-secret-1 here"`:                    `  title = "uses (sensitive) here"`,
		`  base_url = "https://api.example.com:8443/v1"`:        `  base_url = "https://api.example.com:8443/v1"`,
		`  password = var.password`:                             `  password = var.password`,
		`  description = "Time: 10:30, contact: a@example.com"`: `  description = "Time: 10:30, contact: a@example.com"`,
	}
	for in, want := range tests {
		if got := maskSource(in, secrets); got != want {
			t.Errorf("maskSource(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}
