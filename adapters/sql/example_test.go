package sqlaction_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	sampleaction "github.com/mcpdecl/mcpdecl/adapters/sample"
	sqlaction "github.com/mcpdecl/mcpdecl/adapters/sql"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// TestShopExample runs the tools of examples/shop.hcl on a database that
// the example creates from its seed.
func TestShopExample(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shop.db")
	load1 := func() *engine.Config {
		cfg, _, diags := load.Load(load.Options{
			Registry: engine.NewRegistry(sqlaction.New(), sampleaction.New()),
			Vars:     map[string]string{"shop_db": db},
		}, "../../examples/shop.hcl")
		if diags.HasErrors() {
			t.Fatal(describe(diags))
		}
		t.Cleanup(func() { _ = cfg.Close() })
		return cfg
	}
	cfg := load1()
	if err := cfg.Check(t.Context()); err != nil {
		t.Fatal(err)
	}

	res := mustCall(t, cfg, "find_customer_orders", `{"email": "Ada.Lovelace@example.com"}`)
	var orders struct {
		Orders []struct {
			OrderID   int     `json:"order_id"`
			OrderedAt string  `json:"ordered_at"`
			Status    string  `json:"status"`
			Items     int     `json:"items"`
			TotalEUR  float64 `json:"total_eur"`
		}
		SpentEUR float64 `json:"spent_eur"`
	}
	if err := json.Unmarshal([]byte(structured(t, res)), &orders); err != nil {
		t.Fatal(err)
	}
	if len(orders.Orders) != 5 || orders.SpentEUR <= 0 {
		t.Errorf("Ada's orders: %s", structured(t, res))
	}
	for i, o := range orders.Orders {
		if !strings.HasPrefix(o.OrderedAt, "2025-") || !strings.HasSuffix(o.OrderedAt, "Z") {
			t.Errorf("ordered_at %q is not an RFC 3339 time", o.OrderedAt)
		}
		if i > 0 && o.OrderedAt > orders.Orders[i-1].OrderedAt {
			t.Errorf("orders are not newest first")
		}
	}
	if got := structured(t, mustCall(t, cfg, "find_customer_orders", `{"email": "nobody@example.com"}`)); got != `{"orders":[],"spent_eur":0}` {
		t.Errorf("nobody's orders: %s", got)
	}
	// An injection attempt is a value like any other.
	if got := structured(t, mustCall(t, cfg, "find_customer_orders", `{"email": "x'or'1'='1@example.com"}`)); got != `{"orders":[],"spent_eur":0}` {
		t.Errorf("injection: %s", got)
	}

	// The product template completes SKUs from the database, whatever the
	// case typed; a % is text, not a LIKE pattern.
	product, ok := cfg.Template("product")
	if !ok {
		t.Fatal("no product template")
	}
	for typed, want := range map[string]string{"te": "TEA-201,TEA-202", "MUG-00": "MUG-001,MUG-002", "%": "", "": "BEAN-101,BEAN-102,BEAN-103,BOOK-301,FLT-401,GRD-020,KET-010,MUG-001,MUG-002,SCL-402,TEA-201,TEA-202"} {
		values, more, err := product.Complete(t.Context(), "sku", typed, 100)
		if err != nil || more || strings.Join(values, ",") != want {
			t.Errorf("complete sku %q = %v (more %v), %v; want %s", typed, values, more, err, want)
		}
	}

	res = mustCall(t, cfg, "top_products", `{"limit": 3}`)
	if got := structured(t, res); !strings.HasPrefix(got, `{"products":[{"category":"accessories","name":"Pour-over scale","revenue_eur":612,"sku":"SCL-402","units_sold":18},`) {
		t.Errorf("top products: %s", got)
	}
	res = mustCall(t, cfg, "top_products", `{"limit": 2, "category": "coffee"}`)
	var top struct{ Products []struct{ Category string } }
	_ = json.Unmarshal([]byte(structured(t, res)), &top)
	if len(top.Products) != 2 || top.Products[0].Category != "coffee" || top.Products[1].Category != "coffee" {
		t.Errorf("top coffee: %s", structured(t, res))
	}

	res = mustCall(t, cfg, "sales_report", `{}`)
	if !strings.HasPrefix(res.Text(), "Revenue 2025-01-01 to 2025-12-31: ") || !strings.HasSuffix(res.Text(), " EUR over 12 months") {
		t.Errorf("report text: %q", res.Text())
	}
	if got := structured(t, mustCall(t, cfg, "sales_report", `{"from": "2025-03-01", "to": "2025-03-31"}`)); !strings.Contains(got, `"month":"2025-03"`) || strings.Contains(got, `"2025-04"`) {
		t.Errorf("march: %s", got)
	}

	res = mustCall(t, cfg, "restock_product", `{"sku": "TEA-202", "quantity": 25}`)
	if got := structured(t, res); got != `{"sku":"TEA-202","stock":25}` {
		t.Errorf("restock: %s", got)
	}
	if res := call(t, cfg, "restock_product", `{"sku": "NOPE-999", "quantity": 1}`); !res.IsError || res.Text() != "There is no product with SKU NOPE-999." {
		t.Errorf("restock of nothing: %v %q", res.IsError, res.Text())
	}

	for _, tc := range []struct {
		tool                  string
		readOnly, destructive bool
	}{
		{"find_customer_orders", true, false},
		{"top_products", true, false},
		{"sales_report", true, false},
		{"restock_product", false, true},
	} {
		tl, _ := cfg.Tool(tc.tool)
		a := tl.Annotations()
		if a == nil || *a.ReadOnlyHint != tc.readOnly || *a.DestructiveHint != tc.destructive {
			t.Errorf("%s: annotations %+v", tc.tool, a)
		}
	}

	// A second start finds the data in place: init does not run again.
	_ = cfg.Close()
	cfg = load1()
	if got := structured(t, mustCall(t, cfg, "restock_product", `{"sku": "TEA-202", "quantity": 5}`)); got != `{"sku":"TEA-202","stock":30}` {
		t.Errorf("restock after a restart: %s", got)
	}
}
