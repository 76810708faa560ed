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
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// Nodes and placements are ranked by one rule: each case holds for the
// node strategy and the placement strategy of the same name.
func TestNodesAndPlacementsScoreTheShareOfTheirDevicesInUseOrFree(t *testing.T) {
	for _, tc := range []struct {
		name        string
		node        config.ScoringStrategyType
		placement   config.PlacementScoringType
		used, total int
		want        int64
	}{
		{"MostAllocated scores the share in use", config.MostAllocated, config.PlacementMostAllocated, 3, 4, 75},
		{"LeastAllocated scores the share free", config.LeastAllocated, config.PlacementLeastAllocated, 3, 4, 25},
		{"MostAllocated scores full devices the maximum", config.MostAllocated, config.PlacementMostAllocated, 4, 4, 100},
		{"LeastAllocated scores unused devices the maximum", config.LeastAllocated, config.PlacementLeastAllocated, 0, 4, 100},
		{"MostAllocated scores no devices at all 0", config.MostAllocated, config.PlacementMostAllocated, 0, 0, 0},
		{"LeastAllocated scores no devices at all 0", config.LeastAllocated, config.PlacementLeastAllocated, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nodeOccupancyOrder(tc.node).score(tc.used, tc.total); got != tc.want {
				t.Errorf("node %s: score(%d of %d) = %d, want %d", tc.node, tc.used, tc.total, got, tc.want)
			}
			if got := placementOccupancyOrder(tc.placement).score(tc.used, tc.total); got != tc.want {
				t.Errorf("placement %s: score(%d of %d) = %d, want %d", tc.placement, tc.used, tc.total, got, tc.want)
			}
		})
	}
}
