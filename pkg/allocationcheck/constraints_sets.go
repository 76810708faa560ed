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

func (c *checker) checkMatchAttributeSets(cv *claimView, index int, name resourceapi.FullyQualifiedName, subjects []*entry) []error {
	var errs []error
	var common map[string]bool
	var members []string
	for _, e := range subjects {
		a, ok, err := c.constraintAttribute(e, name)
		set := elements(a)
		switch {
		case err != nil:
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (matchAttribute %s): %v", index, name, err))
			continue
		case !ok:
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (matchAttribute %s): device has no such attribute", index, name))
			continue
		case set == nil:
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (matchAttribute %s): the attribute holds no value", index, name))
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
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (matchAttribute %s): the devices' values have no element in common: %s",
				index, name, strings.Join(members, "; ")))
			return errs
		}
		common = next
	}
	return errs
}

func (c *checker) checkDistinctAttributeSets(cv *claimView, index int, name resourceapi.FullyQualifiedName, subjects []*entry) []error {
	var errs []error
	var seen []*entry
	var sets []map[string]bool
	for _, e := range subjects {
		a, ok, err := c.constraintAttribute(e, name)
		set := elements(a)
		switch {
		case err != nil:
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (distinctAttribute %s): %v", index, name, err))
			continue
		case !ok:
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (distinctAttribute %s): device has no such attribute", index, name))
			continue
		case set == nil:
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (distinctAttribute %s): the attribute holds no value", index, name))
			continue
		}
	others:
		for j, other := range sets {
			for el := range set {
				if other[el] {
					errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (distinctAttribute %s): value %s is also a value of device %s (result #%d)",
						index, name, el, seen[j].id, seen[j].index))
					break others
				}
			}
		}
		seen, sets = append(seen, e), append(sets, set)
	}
	return errs
}
