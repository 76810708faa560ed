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

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
)

// checkConfig verifies rule 11 for every result: its config lists exactly
//
//   - for every class that an allocated (sub)request uses, each entry of the
//     class's config, with source FromClass, applying to exactly the requests
//     that use the class; and
//   - every claim config that applies to an allocated request — one that
//     names no requests, or names a request or the chosen
//     "<request>/<subrequest>" — with source FromClaim, applying to the same
//     requests as in the claim.
//
// "Applying to" is judged by meaning, not spelling: an empty requests list
// applies to every request of the claim, "<request>" and the chosen
// "<request>/<subrequest>" denote the same request, and names of requests or
// subrequests that were not allocated denote nothing.
//
// Order: FromClass entries precede FromClaim entries, the entries of one class
// keep the class's order and claim configs keep the claim's order. The order
// among classes is free.
func checkConfig(c *checker) []error {
	var errs []error
	for _, cv := range c.claims {
		errs = append(errs, checkClaimConfig(c, cv)...)
	}
	return errs
}

// wantedConfig is a config entry a result must contain.
type wantedConfig struct {
	what   string // for messages
	source resourceapi.AllocationConfigSource
	config resourceapi.DeviceConfiguration
	covers sets.Set[string]
	group  string // class name or "" for claim configs; order is kept per group
}

func checkClaimConfig(c *checker, cv *claimView) []error {
	var errs []error
	wanted := wantedConfigs(c, cv)
	got := cv.result.Devices.Config
	matched := make([]int, len(got))
	taken := make([]bool, len(wanted))
	for i, g := range got {
		matched[i] = -1
		covers := cv.covers(g.Requests)
		for j, w := range wanted {
			if !taken[j] && w.source == g.Source && covers.Equal(w.covers) && apiequality.Semantic.DeepEqual(w.config, g.DeviceConfiguration) {
				matched[i], taken[j] = j, true
				break
			}
		}
		if matched[i] < 0 {
			errs = append(errs, cv.violation(CheckConfig, "", "", "config entry #%d (source %s, requests %q) is not a class or claim config that applies as given",
				i, g.Source, g.Requests))
		}
	}
	for j, w := range wanted {
		if !taken[j] {
			errs = append(errs, cv.violation(CheckConfig, "", "", "%s is missing: want source %s, applying to requests %q", w.what, w.source, sets.List(w.covers)))
		}
	}
	sawClaim := false
	lastInGroup := map[string]int{}
	for i, g := range got {
		switch {
		case g.Source == resourceapi.AllocationConfigSourceClaim:
			sawClaim = true
		case g.Source == resourceapi.AllocationConfigSourceClass && sawClaim:
			errs = append(errs, cv.violation(CheckConfig, "", "", "config entry #%d comes from a class, but follows an entry from the claim", i))
		}
		if matched[i] < 0 {
			continue
		}
		group := wanted[matched[i]].group
		if last, ok := lastInGroup[group]; ok && last > matched[i] {
			errs = append(errs, cv.violation(CheckConfig, "", "", "config entry #%d (%s) is out of order", i, wanted[matched[i]].what))
		}
		lastInGroup[group] = matched[i]
	}
	return errs
}

// wantedConfigs lists the config entries the result must contain: class
// configs (classes in order of first use) followed by claim configs.
func wantedConfigs(c *checker, cv *claimView) []wantedConfig {
	var wanted []wantedConfig
	var classes []string
	users := map[string]sets.Set[string]{}
	for _, r := range cv.claim.Spec.Devices.Requests {
		alt := cv.chosen[r.Name]
		if alt == nil {
			continue
		}
		if users[alt.className] == nil {
			users[alt.className] = sets.New[string]()
			classes = append(classes, alt.className)
		}
		users[alt.className].Insert(r.Name)
	}
	for _, name := range classes {
		class, err := c.class(name)
		if err != nil {
			continue // reported by checkRequests for every device of the class
		}
		for k, cfg := range class.Spec.Config {
			wanted = append(wanted, wantedConfig{
				what: fmt.Sprintf("config #%d of class %s", k, name), source: resourceapi.AllocationConfigSourceClass,
				config: cfg.DeviceConfiguration, covers: users[name], group: "class " + name,
			})
		}
	}
	for k, cfg := range cv.claim.Spec.Devices.Config {
		covers := cv.covers(cfg.Requests)
		if len(cfg.Requests) > 0 && covers.Len() == 0 {
			continue // applies to no allocated request
		}
		wanted = append(wanted, wantedConfig{
			what: fmt.Sprintf("claim config #%d", k), source: resourceapi.AllocationConfigSourceClaim,
			config: cfg.DeviceConfiguration, covers: covers,
		})
	}
	return wanted
}

// covers returns the names of the claim's requests that a config's requests
// list applies to.
func (cv *claimView) covers(list []string) sets.Set[string] {
	out := sets.New[string]()
	for _, r := range cv.claim.Spec.Devices.Requests {
		alt := cv.chosen[r.Name]
		switch {
		case len(list) == 0, slices.Contains(list, r.Name):
			out.Insert(r.Name)
		case alt != nil && alt.sub != "" && slices.Contains(list, alt.name):
			out.Insert(r.Name)
		}
	}
	return out
}
