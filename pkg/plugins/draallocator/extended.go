package draallocator

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
)

// draExtendedResource is an extended resource the pod requests that a
// DeviceClass provides (extendedResourceName, or the implicit
// deviceclass.resource.kubernetes.io/<class>).
type draExtendedResource struct {
	name  v1.ResourceName
	class string
}

// draExtendedResources lists the pod's extended resources that DRA could
// provide, sorted by name. Empty unless the DRAExtendedResource gate is on.
func (pl *DRAAllocator) draExtendedResources(pod *v1.Pod) []draExtendedResource {
	if !pl.fts.EnableDRAExtendedResource {
		return nil
	}
	resolver := pl.draManager.DeviceClassResolver()
	if resolver == nil {
		return nil
	}
	var out []draExtendedResource
	for name, q := range resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}) {
		if q.IsZero() || !schedutil.IsDRAExtendedResourceName(name) {
			continue
		}
		if class := resolver.GetDeviceClass(name); class != nil {
			out = append(out, draExtendedResource{name: name, class: class.Name})
		}
	}
	slices.SortFunc(out, func(a, b draExtendedResource) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return out
}

// filterExtendedResources rejects a node on which one of the pod's
// extended resources would have to come from DRA: DRAAllocator does not
// allocate DRA-backed extended resources (yet), and letting such a pod
// through would bind it without its devices. Nodes that advertise the
// resource in their allocatable (a device plugin) are left to
// NodeResourcesFit, as the in-tree plugin does.
func filterExtendedResources(resources []draExtendedResource, nodeInfo fwk.NodeInfo) *fwk.Status {
	for _, r := range resources {
		if nodeInfo.GetAllocatable().GetScalarResources()[r.name] == 0 {
			return fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
				fmt.Sprintf("extended resource %s would come from DRA (device class %s), which DRAAllocator does not allocate", r.name, r.class))
		}
	}
	return nil
}
