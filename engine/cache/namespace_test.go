package cache

import (
	"crypto/sha256"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestNamespace: the same configuration, its files in any order, has one
// namespace; a change to a file, a file read with file(), a variable, a
// sensitive variable or what env() read gives another.
func TestNamespace(t *testing.T) {
	key := "sk-1"
	vars := func(plain, secret string) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"plain": cty.StringVal(plain), "key": cty.StringVal(secret).Mark("sensitive")})
	}
	base := func() Inputs {
		return Inputs{
			Files:     [][]byte{[]byte("a"), []byte("b")},
			Read:      [][sha256.Size]byte{sha256.Sum256([]byte("schema"))},
			Variables: vars("p", "s"),
			Env:       map[string]*string{"KEY": &key, "UNSET": nil},
		}
	}
	ns := Namespace(base())
	same := base()
	same.Files = [][]byte{[]byte("b"), []byte("a")}
	if got := Namespace(same); got != ns {
		t.Errorf("the same files in another order: %s, want %s", got, ns)
	}
	other := "sk-2"
	changes := map[string]func(*Inputs){
		"a file":               func(in *Inputs) { in.Files[0] = []byte("a2") },
		"a file read":          func(in *Inputs) { in.Read[0] = sha256.Sum256([]byte("schema2")) },
		"a variable":           func(in *Inputs) { in.Variables = vars("p2", "s") },
		"a sensitive variable": func(in *Inputs) { in.Variables = vars("p", "s2") },
		"an env() value":       func(in *Inputs) { in.Env["KEY"] = &other },
		"an env() set to \"\"": func(in *Inputs) { in.Env["UNSET"] = new(string) },
		"no variables":         func(in *Inputs) { in.Variables = cty.NilVal },
	}
	for what, change := range changes {
		in := base()
		change(&in)
		if got := Namespace(in); got == ns {
			t.Errorf("%s changed, and the namespace did not", what)
		}
	}
}
