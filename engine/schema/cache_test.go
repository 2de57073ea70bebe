package schema

import (
	"encoding/json"
	"sync"
	"testing"
)

// TestCache checks that a Cache compiles each distinct document once, for
// concurrent callers too, keeps the error of an invalid one, and that a
// nil Cache compiles every time.
func TestCache(t *testing.T) {
	doc := func(s string) (map[string]any, []byte) {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m, []byte(s)
	}
	const a = `{"type":"object","properties":{"n":{"oneOf":[{"type":"integer"},{"type":"string"}]}}}`
	const b = `{"type":"object","properties":{"n":{"type":"integer"}}}`
	var c Cache
	got := make([]*Validator, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			m, text := doc(a)
			v, err := c.Compile(m, text)
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	for _, v := range got[1:] {
		if v != got[0] {
			t.Fatal("the same document was compiled twice")
		}
	}
	if vs := got[0].Validate(map[string]any{"n": true}); len(vs) == 0 {
		t.Error("the shared validator accepts what its schema refuses")
	}
	m, text := doc(b)
	if v, _ := c.Compile(m, text); v == got[0] {
		t.Error("another document gave the first one's validator")
	}

	bad, text := doc(`{"type":"objekt"}`)
	_, err1 := c.Compile(bad, text)
	_, err2 := c.Compile(bad, text)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("an invalid document: %v, then %v", err1, err2)
	}

	var none *Cache
	m, text = doc(a)
	v1, _ := none.Compile(m, text)
	v2, _ := none.Compile(m, text)
	if v1 == nil || v1 == v2 {
		t.Error("a nil Cache does not compile each time")
	}
}
