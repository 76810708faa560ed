/*
Copyright 2026 The dra-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package deviceconstraints

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Of returns the constraints of obj, a Pod or a PodGroup (any object),
// from its Annotation. found is false, and the error nil, when obj has no
// such annotation; when it has one, the error is Parse's. The error does not
// name obj: callers that report it should.
func Of(obj metav1.Object) (constraints []Constraint, found bool, err error) {
	if obj == nil {
		return nil, false, nil
	}
	value, found := obj.GetAnnotations()[Annotation]
	if !found {
		return nil, false, nil
	}
	constraints, err = Parse(value)
	return constraints, true, err
}

// Parse reads an annotation value: a JSON or YAML list of constraints,
// each an object with the fields "requests" (a list of
// "<pod claim>[/<request>[/<subrequest>]]"), and exactly one of
// "matchAttribute" and "distinctAttribute". It returns nil constraints for
// an empty list. Its error is an *Error for the first fault found; it
// does not look at any pod or claim (see CheckPod for that).
func Parse(value string) ([]Constraint, error) {
	data := []byte(value)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, valueError(errors.New("empty value: want a list of constraints ([] for none)"))
	}
	if !json.Valid(data) {
		converted, err := yaml.YAMLToJSONStrict(data)
		if err != nil {
			// YAML errors may span lines; keep the message on one.
			oneLine := strings.Join(strings.Fields(err.Error()), " ")
			return nil, valueError(&reasonError{reason: err, message: "not valid JSON or YAML: " + oneLine})
		}
		data = converted
	}
	if kind := kindOf(data); kind != kindList {
		return nil, valueError(fmt.Errorf("must be a list of constraints, got %s", kind))
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, valueError(fmt.Errorf("decoding the list of constraints: %w", err))
	}
	if err := checkCount(len(entries)); err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, nil
	}
	constraints := make([]Constraint, 0, len(entries))
	for i, entry := range entries {
		c, err := decodeConstraint(i, entry)
		if err != nil {
			return nil, err
		}
		if err := c.validate(i); err != nil {
			return nil, err
		}
		constraints = append(constraints, c)
	}
	return constraints, nil
}

// decodeConstraint decodes entry, constraint i, strictly: an object of known
// fields, each at most once, of the right JSON types, null meaning absent.
// Each request is parsed; the rest of validation is left to validate.
func decodeConstraint(i int, entry json.RawMessage) (Constraint, error) {
	var c Constraint
	fault := func(fieldName, value string, err error) (Constraint, error) {
		return Constraint{}, &Error{Constraint: i, Field: fieldName, Value: value, Err: err}
	}
	if kind := kindOf(entry); kind != kindObject {
		return fault("", "", fmt.Errorf("must be an object, got %s", kind))
	}
	decoder := json.NewDecoder(bytes.NewReader(entry))
	if _, err := decoder.Token(); err != nil { // the opening brace
		return fault("", "", fmt.Errorf("decoding: %w", err))
	}
	seen := make(map[string]bool, 3)
	for decoder.More() {
		token, err := decoder.Token()
		if err != nil {
			return fault("", "", fmt.Errorf("decoding: %w", err))
		}
		key, _ := token.(string) // object keys are strings in valid JSON
		var raw json.RawMessage
		if err := decoder.Decode(&raw); err != nil {
			return fault(key, "", fmt.Errorf("decoding: %w", err))
		}
		if seen[key] {
			return fault("", "", fmt.Errorf("duplicate field %q", key))
		}
		seen[key] = true
		switch key {
		case fieldRequests, fieldMatchAttribute, fieldDistinctAttribute:
		default:
			return fault("", "", fmt.Errorf("unknown field %q (known: %s, %s, %s)",
				key, fieldRequests, fieldMatchAttribute, fieldDistinctAttribute))
		}
		if kindOf(raw) == kindNull {
			continue
		}
		switch key {
		case fieldRequests:
			if kind := kindOf(raw); kind != kindList {
				return fault(key, "", fmt.Errorf("must be a list of strings, got %s", kind))
			}
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return fault(key, "", fmt.Errorf("decoding: %w", err))
			}
			for j, item := range items {
				text, err := decodeString(item)
				if err != nil {
					return fault(requestsField(j), "", err)
				}
				ref, err := ParseRequestRef(text)
				if err != nil {
					return fault(requestsField(j), text, err)
				}
				c.Requests = append(c.Requests, ref)
			}
		case fieldMatchAttribute, fieldDistinctAttribute:
			text, err := decodeString(raw)
			if err != nil {
				return fault(key, "", err)
			}
			name := resourceapi.FullyQualifiedName(text)
			if key == fieldMatchAttribute {
				c.MatchAttribute = &name
			} else {
				c.DistinctAttribute = &name
			}
		}
	}
	return c, nil
}

// decodeString decodes raw, which must be a JSON string.
func decodeString(raw json.RawMessage) (string, error) {
	if kind := kindOf(raw); kind != kindString {
		return "", fmt.Errorf("must be a string, got %s", kind)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("decoding: %w", err)
	}
	return s, nil
}

// JSON kinds, as error messages name them.
const (
	kindList    = "a list"
	kindObject  = "an object"
	kindString  = "a string"
	kindBoolean = "a boolean"
	kindNull    = "null"
	kindNumber  = "a number"
)

// kindOf names the kind of the valid JSON value raw.
func kindOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return kindNull
	}
	switch raw[0] {
	case '[':
		return kindList
	case '{':
		return kindObject
	case '"':
		return kindString
	case 't', 'f':
		return kindBoolean
	case 'n':
		return kindNull
	default:
		return kindNumber
	}
}

// wireConstraint is a Constraint as the annotation spells it.
type wireConstraint struct {
	Requests          []string `json:"requests,omitempty"`
	MatchAttribute    *string  `json:"matchAttribute,omitempty"`
	DistinctAttribute *string  `json:"distinctAttribute,omitempty"`
}

// Marshal writes constraints as an annotation value: compact JSON, fields
// in the order requests, matchAttribute, distinctAttribute, "[]" for none.
// It refuses what Validate refuses, so Parse reads back what it writes.
func Marshal(constraints []Constraint) (string, error) {
	if err := Validate(constraints); err != nil {
		return "", err
	}
	wire := make([]wireConstraint, len(constraints))
	for i, c := range constraints {
		for _, ref := range c.Requests {
			wire[i].Requests = append(wire[i].Requests, ref.String())
		}
		wire[i].MatchAttribute = (*string)(c.MatchAttribute)
		wire[i].DistinctAttribute = (*string)(c.DistinctAttribute)
	}
	data, err := json.Marshal(wire)
	if err != nil {
		return "", valueError(fmt.Errorf("encoding: %w", err))
	}
	return string(data), nil
}

// String is Marshal's value, or "<invalid: ...>" when it refuses c.
func (c Constraint) String() string {
	value, err := Marshal([]Constraint{c})
	if err != nil {
		return "<invalid: " + strings.TrimPrefix(err.Error(), "annotation "+Annotation+": ") + ">"
	}
	return strings.TrimSuffix(strings.TrimPrefix(value, "["), "]")
}
