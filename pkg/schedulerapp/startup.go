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

package schedulerapp

import (
	"fmt"
	"strings"
)

// twoGenerators is kube-scheduler's error for a profile with more than one
// PlacementGenerate plugin (k8s.io/kubernetes/pkg/scheduler/framework/runtime).
const twoGenerators = "at most one placement generate plugin is allowed"

// explainStartupError adds to a start-up error what to change where
// kube-scheduler's own message does not say it: DRAAllocator generates a
// pod group's placements itself, so with TopologyAwareWorkloadScheduling
// a profile that enables it and leaves upstream's TopologyPlacementGenerator
// on has two generators.
func explainStartupError(err error) error {
	if err == nil || !strings.Contains(err.Error(), twoGenerators) {
		return err
	}
	return fmt.Errorf("%w: DRAAllocator generates pod groups' placements itself (topology domains), in place of "+
		"TopologyPlacementGenerator; disable that one in the profile: plugins.multiPoint.disabled: [{name: TopologyPlacementGenerator}] "+
		"(manifests/config/dra-scheduler.yaml does)", err)
}
