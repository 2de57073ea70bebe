package load

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// functions returns the load-time functions of a file in dir: the go-cty
// standard library, env(), file() relative to dir, and expr().
// read is told of every file that file() reads (see fileFunc).
func functions(dir string, lookupEnv func(string) (string, bool), read fileReader) map[string]function.Function {
	return map[string]function.Function{
		"abs":             stdlib.AbsoluteFunc,
		"ceil":            stdlib.CeilFunc,
		"chomp":           stdlib.ChompFunc,
		"chunklist":       stdlib.ChunklistFunc,
		"coalesce":        stdlib.CoalesceFunc,
		"coalescelist":    stdlib.CoalesceListFunc,
		"compact":         stdlib.CompactFunc,
		"concat":          stdlib.ConcatFunc,
		"contains":        stdlib.ContainsFunc,
		"csvdecode":       stdlib.CSVDecodeFunc,
		"distinct":        stdlib.DistinctFunc,
		"element":         stdlib.ElementFunc,
		"flatten":         stdlib.FlattenFunc,
		"floor":           stdlib.FloorFunc,
		"format":          stdlib.FormatFunc,
		"formatdate":      stdlib.FormatDateFunc,
		"formatlist":      stdlib.FormatListFunc,
		"indent":          stdlib.IndentFunc,
		"index":           stdlib.IndexFunc,
		"join":            stdlib.JoinFunc,
		"jsondecode":      stdlib.JSONDecodeFunc,
		"jsonencode":      stdlib.JSONEncodeFunc,
		"keys":            stdlib.KeysFunc,
		"length":          stdlib.LengthFunc,
		"log":             stdlib.LogFunc,
		"lookup":          stdlib.LookupFunc,
		"lower":           stdlib.LowerFunc,
		"max":             stdlib.MaxFunc,
		"merge":           stdlib.MergeFunc,
		"min":             stdlib.MinFunc,
		"parseint":        stdlib.ParseIntFunc,
		"pow":             stdlib.PowFunc,
		"range":           stdlib.RangeFunc,
		"regex":           stdlib.RegexFunc,
		"regexall":        stdlib.RegexAllFunc,
		"regex_replace":   stdlib.RegexReplaceFunc,
		"replace":         stdlib.ReplaceFunc,
		"reverse":         stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc,
		"setproduct":      stdlib.SetProductFunc,
		"setsubtract":     stdlib.SetSubtractFunc,
		"setunion":        stdlib.SetUnionFunc,
		"signum":          stdlib.SignumFunc,
		"slice":           stdlib.SliceFunc,
		"sort":            stdlib.SortFunc,
		"split":           stdlib.SplitFunc,
		"strlen":          stdlib.StrlenFunc,
		"strrev":          stdlib.ReverseFunc,
		"substr":          stdlib.SubstrFunc,
		"timeadd":         stdlib.TimeAddFunc,
		"title":           stdlib.TitleFunc,
		"trim":            stdlib.TrimFunc,
		"trimprefix":      stdlib.TrimPrefixFunc,
		"trimspace":       stdlib.TrimSpaceFunc,
		"trimsuffix":      stdlib.TrimSuffixFunc,
		"upper":           stdlib.UpperFunc,
		"values":          stdlib.ValuesFunc,
		"zipmap":          stdlib.ZipmapFunc,

		"env":  envFunc(lookupEnv),
		"file": fileFunc(dir, read),
		"expr": mapping.Function(),
	}
}

// envFunc is env(name) or env(name, fallback): the value of an environment
// variable of the mcpdecl process, or the fallback (default "") when it is
// not set.
func envFunc(lookupEnv func(string) (string, bool)) function.Function {
	return function.New(&function.Spec{
		Description: "The value of an environment variable, or a fallback when it is not set.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam:    &function.Parameter{Name: "fallback", Type: cty.String},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, fmt.Errorf("env takes a name and at most one fallback value")
			}
			if v, ok := lookupEnv(args[0].AsString()); ok {
				return cty.StringVal(v), nil
			}
			if len(args) == 2 {
				return args[1], nil
			}
			return cty.StringVal(""), nil
		},
	})
}

// fileReader is told of each file that file() reads: its absolute path,
// and its contents, or the error that kept it from being read.
type fileReader func(path string, contents []byte, err error)

// fileFunc is file(path): the contents of a regular file, relative to the
// directory of the configuration file that calls it, of at most
// engine.MaxConfigFileBytes. read is told of every file read, for --watch
// and the cache namespace.
func fileFunc(dir string, read fileReader) function.Function {
	return function.New(&function.Spec{
		Description: "The contents of a file, relative to the configuration file.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			// Record the path even when it cannot be read, so that a watcher
			// reloads once the file appears or is fixed.
			b, err := engine.ReadConfigFile(p)
			read(p, b, err)
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

// Functions returns the load-time functions of a file in dir, as the
// configuration's files have them: the go-cty standard library, env()
// through lookupEnv (nil: the process's environment), file() relative to
// dir, and expr(). Test files are read with them.
func Functions(dir string, lookupEnv func(string) (string, bool)) map[string]function.Function {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	return functions(dir, lookupEnv, func(string, []byte, error) {})
}
