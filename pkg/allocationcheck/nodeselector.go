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
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/utils/ptr"
)

// checkNodeSelectors verifies rule 10 for every result: the node selector
// says where the claim may be used, so it must
//
//   - match the node (nil, meaning "everywhere", included);
//   - pin the node — every term requires metadata.name In [node] — if any
//     device is node-local (its slice, or the device with
//     perDeviceNodeSelection, has a nodeName) or binds to the node;
//   - imply every device's own node selector: each term either pins the node
//     or contains all requirements of one term of that selector (same key,
//     operator and set of values). This is a syntactic sufficient condition:
//     it accepts selectors built by merging the devices' requirements, as
//     allocators do, but not every semantically stricter selector;
//   - be nil only if every device is available on all nodes.
func checkNodeSelectors(c *checker) []error {
	var errs []error
	for _, cv := range c.claims {
		errs = append(errs, checkNodeSelector(c, cv)...)
	}
	return errs
}

func checkNodeSelector(c *checker, cv *claimView) []error {
	var errs []error
	var pinnedBy []*entry
	var labelled []*entry
	for _, e := range cv.entries {
		if e.dev == nil {
			continue
		}
		src := sourceOf(e.dev)
		switch {
		case src.nodeName != "" || ptr.Deref(e.dev.spec.BindsToNode, false):
			pinnedBy = append(pinnedBy, e)
		case !src.allNodes && src.nodeSelector != nil:
			labelled = append(labelled, e)
		}
	}
	sel := cv.result.NodeSelector
	if sel == nil {
		for _, e := range pinnedBy {
			errs = append(errs, cv.entryViolation(CheckNodeSelector, e, "node selector is nil, but the device is local to node %s and the selector must pin it", c.node.Name))
		}
		for _, e := range labelled {
			errs = append(errs, cv.entryViolation(CheckNodeSelector, e, "node selector is nil, but %s is only available on nodes matching its node selector", sourceOf(e.dev).what))
		}
		return errs
	}
	ns, err := nodeaffinity.NewNodeSelector(sel)
	if err != nil {
		return append(errs, cv.violation(CheckNodeSelector, "", "", "node selector is invalid: %v", err))
	}
	if !ns.Match(c.node) {
		errs = append(errs, cv.violation(CheckNodeSelector, "", "", "node selector %s does not match node %s", selectorString(sel), c.node.Name))
	}
	if len(pinnedBy) > 0 {
		for i, term := range sel.NodeSelectorTerms {
			if !pinsNode(term, c.node.Name) {
				errs = append(errs, cv.entryViolation(CheckNodeSelector, pinnedBy[0],
					"device is local to node %s, but term #%d of node selector %s does not pin it (matchFields metadata.name In [%s])",
					c.node.Name, i, selectorString(sel), c.node.Name))
			}
		}
	}
	for _, e := range labelled {
		src := sourceOf(e.dev)
		for i, term := range sel.NodeSelectorTerms {
			if !pinsNode(term, c.node.Name) && !impliesSome(term, src.nodeSelector.NodeSelectorTerms) {
				errs = append(errs, cv.entryViolation(CheckNodeSelector, e, "term #%d of node selector %s does not imply the node selector %s of %s",
					i, selectorString(sel), selectorString(src.nodeSelector), src.what))
			}
		}
	}
	return errs
}

// pinsNode reports whether the term only matches the named node.
func pinsNode(term v1.NodeSelectorTerm, node string) bool {
	for _, r := range term.MatchFields {
		if r.Key == "metadata.name" && r.Operator == v1.NodeSelectorOpIn && slices.Equal(r.Values, []string{node}) {
			return true
		}
	}
	return false
}

// impliesSome reports whether term contains all requirements of one of the
// given terms.
func impliesSome(term v1.NodeSelectorTerm, of []v1.NodeSelectorTerm) bool {
	for _, t := range of {
		if containsAll(term.MatchExpressions, t.MatchExpressions) && containsAll(term.MatchFields, t.MatchFields) {
			return true
		}
	}
	return false
}

func containsAll(have, want []v1.NodeSelectorRequirement) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h.Key == w.Key && h.Operator == w.Operator && sets.New(h.Values...).Equal(sets.New(w.Values...)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func selectorString(sel *v1.NodeSelector) string {
	var terms []string
	for _, t := range sel.NodeSelectorTerms {
		var reqs []string
		for _, r := range t.MatchExpressions {
			reqs = append(reqs, fmt.Sprintf("%s %s %v", r.Key, r.Operator, r.Values))
		}
		for _, r := range t.MatchFields {
			reqs = append(reqs, fmt.Sprintf("field %s %s %v", r.Key, r.Operator, r.Values))
		}
		terms = append(terms, fmt.Sprintf("%v", reqs))
	}
	return fmt.Sprintf("%v", terms)
}
