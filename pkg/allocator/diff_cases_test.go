package allocator_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestSameAsUpstream runs hand-written cases through both allocators.
func TestSameAsUpstream(t *testing.T) {
	const drv = "gpu.example.com"
	nodes := []*v1.Node{objects.MakeNode("node-a").Obj(), objects.MakeNode("node-b").Obj()}
	gpus := func(node string, mem ...string) *resourceapi.ResourceSlice {
		s := objects.MakeSlice(node+"-gpus", drv, node)
		for i, m := range mem {
			s.Device("gpu-"+string(rune('0'+i)), map[string]string{"memory": m})
		}
		return s.Obj()
	}
	class := classLister{objects.DeviceClass("gpu", drv)}
	big := `device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0`
	claim := func(name string, count int64, selectors ...string) *resourceapi.ResourceClaim {
		return objects.Claim(name, "ns", objects.ClaimSpec("req", "gpu", count, selectors...))
	}

	for name, tc := range map[string]diffCase{
		"one GPU on each node": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi"), gpus("node-b", "80Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1)},
		},
		"a memory selector picks the big GPU": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi", "80Gi"), gpus("node-b", "80Gi", "40Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1, big)},
		},
		"two claims share the node's GPUs without overlap": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi", "80Gi", "80Gi"), gpus("node-b", "80Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c1", 1, big), claim("c2", 1)},
		},
		"too many devices do not fit": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi", "80Gi"), gpus("node-b", "80Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 3)},
		},
		"a missing class is an error": {
			classes: classLister{},
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1)},
		},
		"a CEL runtime error aborts": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1, `device.attributes["gpu.example.com"].model == "x"`)},
		},
		"allocated devices are skipped": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "80Gi", "80Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1)},
			state:   structured.AllocatedState{AllocatedDevices: sets.New(structured.MakeDeviceID(drv, "node-a", "gpu-0"))},
		},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.features == (structured.Features{}) {
				tc.features = defaultFeatures
			}
			tc.nodes = nodes
			for _, d := range compare(t.Context(), tc) {
				t.Error(d)
			}
		})
	}
}
