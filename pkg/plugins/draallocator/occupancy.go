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

package draallocator

import (
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// How full devices are, as a score. Nodes (scoringStrategy MostAllocated
// or LeastAllocated, score.go) and a pod group's placements
// (placementScoring of the same names, placementscore.go and
// placementlimit.go) are ranked by one rule: the share of their devices in
// use (allocator.Occupancy), the fullest first or the emptiest first.

// occupancyOrder is which end of the occupancy scores highest.
type occupancyOrder int

const (
	// fullestFirst: the larger the share of devices in use, the higher
	// (MostAllocated: fill nodes and domains before opening new ones).
	fullestFirst occupancyOrder = iota
	// emptiestFirst: the larger the share free, the higher
	// (LeastAllocated: spread).
	emptiestFirst
)

// nodeOccupancyOrder is the order of a node scoring strategy; only
// MostAllocated and LeastAllocated rank by occupancy.
func nodeOccupancyOrder(strategy config.ScoringStrategyType) occupancyOrder {
	if strategy == config.LeastAllocated {
		return emptiestFirst
	}
	return fullestFirst
}

// placementOccupancyOrder is the order of a placement scoring strategy.
func placementOccupancyOrder(strategy config.PlacementScoringType) occupancyOrder {
	if strategy == config.PlacementLeastAllocated {
		return emptiestFirst
	}
	return fullestFirst
}

// score is used of total devices as a score, 0–MaxScore; 0 without
// devices.
func (o occupancyOrder) score(used, total int) int64 {
	if total == 0 {
		return 0
	}
	share := int64(used) * fwk.MaxScore / int64(total)
	if o == emptiestFirst {
		return fwk.MaxScore - share
	}
	return share
}
