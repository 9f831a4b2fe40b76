// Command celcheck evaluates the CEL rules (x-kubernetes-validations) of CRD schemas on objects, with the
// Kubernetes API server's own code (k8s.io/apiextensions-apiserver), offline.
//
//	celcheck SCHEMA_DIR < objects.jsonl > verdicts.jsonl
//
// Each input line is {"id": N, "schema": "nodepool-karpenter-v1.json", "object": {...}}; SCHEMA_DIR holds the
// openAPIV3Schema of each CRD version as written upstream (gengpu's schemas/cel, from scripts/sync-schemas). A line
// may carry the schema itself as "inline" (a CRD of the repository being checked), compiled once under its name.
// Each output line is {"id": N, "errors": [{"field": "spec.x", "type": "...", "detail": "..."}]}, or
// {"id": N, "fatal": "..."} when the schema or the object cannot be used. Objects are defaulted from their
// schema first, as the API server does on create; transition rules (oldSelf) do not apply to a new object.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

type request struct {
	ID     int                    `json:"id"`
	Schema string                 `json:"schema"`
	Object map[string]interface{} `json:"object"`
	// Inline: the schema itself (a CRD a repository carries), compiled once under the name Schema
	Inline json.RawMessage `json:"inline,omitempty"`
}

type celError struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
}

type verdict struct {
	ID     int        `json:"id"`
	Errors []celError `json:"errors"`
	Fatal  string     `json:"fatal,omitempty"`
}

type compiled struct {
	structural *structuralschema.Structural
	validator  *cel.Validator
	err        error
}

func compile(dir, name string, inline []byte) compiled {
	data := inline
	if len(data) == 0 {
		var err error
		if data, err = os.ReadFile(filepath.Join(dir, filepath.Base(name))); err != nil {
			return compiled{err: err}
		}
	}
	var props apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(data, &props); err != nil {
		return compiled{err: err}
	}
	var internal apiextensionsinternal.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&props, &internal, nil); err != nil {
		return compiled{err: err}
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return compiled{err: err}
	}
	return compiled{structural: ss, validator: cel.NewValidator(ss, true, celconfig.PerCallLimit)}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: celcheck SCHEMA_DIR < objects.jsonl")
		os.Exit(2)
	}
	dir := os.Args[1]
	cache := map[string]compiled{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		// As the API server decodes a request: a whole number is an int64, not encoding/json's float64 (CEL
		// rules that compare integers fail on a float: "expected int, got float64").
		if err := utiljson.Unmarshal(in.Bytes(), &req); err != nil {
			_ = out.Encode(verdict{ID: -1, Fatal: err.Error()})
			continue
		}
		c, ok := cache[req.Schema]
		if !ok {
			c = compile(dir, req.Schema, req.Inline)
			cache[req.Schema] = c
		}
		v := verdict{ID: req.ID, Errors: []celError{}}
		if c.err != nil {
			v.Fatal = c.err.Error()
			_ = out.Encode(v)
			continue
		}
		structuraldefaulting.Default(req.Object, c.structural)
		errs, _ := c.validator.Validate(context.Background(), nil, c.structural, req.Object, nil, celconfig.RuntimeCELCostBudget)
		for _, e := range errs {
			v.Errors = append(v.Errors, celError{Field: e.Field, Type: string(e.Type), Detail: e.Detail})
		}
		_ = out.Encode(v)
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
