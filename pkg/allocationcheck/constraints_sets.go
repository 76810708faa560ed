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

package allocationcheck

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
)

// elements returns an attribute's values as "kind:value" strings (a
// scalar is one element, a list its distinct elements), nil when it holds
// none — an empty list or no field.
func elements(a resourceapi.DeviceAttribute) map[string]bool {
	out := map[string]bool{}
	add := func(kind, v string) { out[kind+":"+v] = true }
	switch {
	case a.IntValue != nil:
		add("int", strconv.FormatInt(*a.IntValue, 10))
	case a.BoolValue != nil:
		add("bool", strconv.FormatBool(*a.BoolValue))
	case a.StringValue != nil:
		add("string", *a.StringValue)
	case a.VersionValue != nil:
		add("version", *a.VersionValue)
	}
	for _, v := range a.IntValues {
		add("int", strconv.FormatInt(v, 10))
	}
	for _, v := range a.BoolValues {
		add("bool", strconv.FormatBool(v))
	}
	for _, v := range a.StringValues {
		add("string", v)
	}
	for _, v := range a.VersionValues {
		add("version", v)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func describeElements(set map[string]bool) string {
	list := make([]string, 0, len(set))
	for e := range set {
		list = append(list, e)
	}
	sort.Strings(list)
	return "{" + strings.Join(list, ", ") + "}"
}

// matchSets: the subject devices' sets have an element in common.
func (j *constraintJudge) matchSets(subjects []*entry) {
	var common map[string]bool
	var members []string
	for _, e := range subjects {
		set := j.elements(e)
		if set == nil {
			continue
		}
		members = append(members, fmt.Sprintf("%s %s", e.id, describeElements(set)))
		if common == nil {
			common = set
			continue
		}
		next := map[string]bool{}
		for el := range common {
			if set[el] {
				next[el] = true
			}
		}
		if len(next) == 0 {
			j.violation(e, "the devices' values have no element in common: %s", strings.Join(members, "; "))
			return
		}
		common = next
	}
}

// distinctSets: no two subject devices' sets have an element in common.
func (j *constraintJudge) distinctSets(subjects []*entry) {
	var seen []*entry
	var sets []map[string]bool
	for _, e := range subjects {
		set := j.elements(e)
		if set == nil {
			continue
		}
	others:
		for k, other := range sets {
			for el := range set {
				if other[el] {
					j.violation(e, "value %s is also a value of device %s (result #%d)", el, seen[k].id, seen[k].index)
					break others
				}
			}
		}
		seen, sets = append(seen, e), append(sets, set)
	}
}
