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

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// checkTaints verifies rule 6 for every result entry:
//
//   - the entry's tolerations are those of the (sub)request it names (a copy
//     made at allocation time; nil and empty are the same);
//   - with DeviceTaints, every NoSchedule or NoExecute taint of the device is
//     tolerated by at least one of those tolerations. Other effects (None,
//     unknown ones) do not block allocation.
func checkTaints(c *checker) []error {
	var errs []error
	for _, cv := range c.claims {
		for _, e := range cv.entries {
			if e.req == nil {
				continue
			}
			if !apiequality.Semantic.DeepEqual(e.res.Tolerations, e.req.tolerations) {
				errs = append(errs, cv.entryViolation(CheckTaints, e, "result #%d has tolerations %v, the request has %v", e.index, e.res.Tolerations, e.req.tolerations))
			}
			if e.dev == nil || !c.features.DeviceTaints {
				continue
			}
			for _, taint := range e.dev.spec.Taints {
				if blocking(taint) && !toleratedBy(taint, e.req.tolerations) {
					errs = append(errs, cv.entryViolation(CheckTaints, e, "taint %s is not tolerated", taintString(taint)))
				}
			}
		}
	}
	return errs
}

// blocking reports whether a taint prevents allocation unless tolerated.
func blocking(t resourceapi.DeviceTaint) bool {
	return t.Effect == resourceapi.DeviceTaintEffectNoSchedule || t.Effect == resourceapi.DeviceTaintEffectNoExecute
}

func toleratedBy(t resourceapi.DeviceTaint, tolerations []resourceapi.DeviceToleration) bool {
	for _, tol := range tolerations {
		if tolerates(tol, t) {
			return true
		}
	}
	return false
}

// tolerates implements the API's matching rule: the effect matches if the
// toleration's effect is empty or equal, the key if the toleration's key is
// empty or equal; operator Exists then matches any value, Equal (the
// default) only an equal value.
func tolerates(tol resourceapi.DeviceToleration, t resourceapi.DeviceTaint) bool {
	if tol.Effect != "" && tol.Effect != t.Effect {
		return false
	}
	if tol.Key != "" && tol.Key != t.Key {
		return false
	}
	switch tol.Operator {
	case resourceapi.DeviceTolerationOpExists:
		return true
	case "", resourceapi.DeviceTolerationOpEqual:
		return tol.Value == t.Value
	}
	return false
}

func taintString(t resourceapi.DeviceTaint) string {
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}
