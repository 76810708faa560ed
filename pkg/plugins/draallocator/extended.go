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
	"fmt"
	"slices"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	resourcehelper "k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
	"k8s.io/utils/ptr"
)

// DRA-backed extended resources: a pod asks for "example.com/gpu: 2" and a
// DeviceClass provides that name (extendedResourceName, or the implicit
// deviceclass.resource.kubernetes.io/<class>). On nodes that do not
// advertise the resource (no device plugin), the plugin allocates devices
// through a claim it writes itself, as the in-tree plugin does:
//
//   - PreFilter notes the resources and prepares an in-memory claim (owned
//     by the pod, annotated as the pod's extended-resource claim); a claim
//     left from an earlier attempt is stale and is deleted in PostFilter.
//   - Filter derives the claim's requests for the node (one request per
//     container and resource, named container-<i>-request-<j>) and asks
//     the allocator with the pod's other claims.
//   - Reserve marks the allocation in flight; PreBind creates the claim,
//     writes allocation and reservation, and records in the pod's status
//     which container uses which request; Unreserve deletes the claim.

// specialClaimName marks the in-memory claim; it is not a valid object
// name, so it never collides with a real claim.
const specialClaimName = "<extended-resources>"

// draExtendedResource is an extended resource of the pod that a
// DeviceClass provides.
type draExtendedResource struct {
	name     v1.ResourceName
	class    string
	quantity int64
}

// extendedState is the pod's extended-resource claim during one cycle.
type extendedState struct {
	resources []draExtendedResource
	// stale is a claim left by an earlier attempt (to be deleted).
	stale *resourceapi.ResourceClaim
	// template is the in-memory claim without requests.
	template *resourceapi.ResourceClaim

	mu sync.Mutex
	// variants holds the claim per set of resources that must come from
	// DRA; nodes needing the same set share one (and the allocator's
	// per-pod preparation).
	variants map[string]*extendedVariant

	// chosen is the variant of the node in Reserve; allocation its result;
	// created the claim PreBind wrote.
	chosen     *extendedVariant
	allocation *resourceapi.AllocationResult
	created    *resourceapi.ResourceClaim
}

// extendedVariant is the extended-resource claim for one set of resources.
type extendedVariant struct {
	claim *resourceapi.ResourceClaim
	// claims are the pod's claims to allocate followed by claim.
	claims   []*resourceapi.ResourceClaim
	mappings []v1.ContainerExtendedResourceRequest
}

// newExtendedState finds the pod's extended resources that DRA could
// provide; nil when there are none or the DRAExtendedResource gate is off.
func (pl *DRAAllocator) newExtendedState(pod *v1.Pod) (*extendedState, error) {
	if !pl.gates.EnableDRAExtendedResource {
		return nil, nil
	}
	resolver := pl.draManager.DeviceClassResolver()
	if resolver == nil {
		return nil, nil
	}
	var resources []draExtendedResource
	for name, q := range resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}) {
		if q.IsZero() || !schedutil.IsDRAExtendedResourceName(name) {
			continue
		}
		if class := resolver.GetDeviceClass(name); class != nil {
			resources = append(resources, draExtendedResource{name: name, class: class.Name, quantity: q.Value()})
		}
	}
	if len(resources) == 0 {
		return nil, nil
	}
	slices.SortFunc(resources, func(a, b draExtendedResource) int { return strings.Compare(string(a.name), string(b.name)) })
	x := &extendedState{resources: resources, variants: map[string]*extendedVariant{}}
	claims, err := pl.draManager.ResourceClaims().List()
	if err != nil {
		return nil, fmt.Errorf("list claims: %w", err)
	}
	for _, c := range claims {
		if c.Namespace == pod.Namespace && c.Annotations[resourceapi.ExtendedResourceClaimAnnotation] == "true" && controlledBy(c, pod) {
			x.stale = c
			return x, nil
		}
	}
	x.template = &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: pod.Namespace,
			Name:      specialClaimName,
			// A placeholder UID for in-flight bookkeeping until the claim
			// exists.
			UID:          uuid.NewUUID(),
			GenerateName: pod.Name + "-extended-resources-",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true),
			}},
			Annotations: map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"},
		},
	}
	return x, nil
}

func controlledBy(claim *resourceapi.ResourceClaim, pod *v1.Pod) bool {
	for _, ref := range claim.OwnerReferences {
		if ref.UID == pod.UID && ptr.Deref(ref.Controller, false) {
			return true
		}
	}
	return false
}

// variant returns the claims to allocate on the node: nil when every
// extended resource comes from the node's allocatable (a device plugin).
// A status means the node cannot run the pod.
func (x *extendedState) variant(pod *v1.Pod, nodeInfo fwk.NodeInfo, userClaims []*resourceapi.ResourceClaim) (*extendedVariant, *fwk.Status) {
	if x.stale != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
			fmt.Sprintf("extended resource claim %s/%s from an earlier attempt must be deleted first", x.stale.Namespace, x.stale.Name))
	}
	var fromDRA []draExtendedResource
	var key strings.Builder
	for _, r := range x.resources {
		if nodeInfo.GetAllocatable().GetScalarResources()[r.name] == 0 {
			fromDRA = append(fromDRA, r)
			key.WriteString(string(r.name))
			key.WriteByte(0)
		}
	}
	if len(fromDRA) == 0 {
		return nil, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if v := x.variants[key.String()]; v != nil {
		return v, nil
	}
	claim := x.template.DeepCopy()
	requests, mappings := extendedRequests(pod, fromDRA)
	claim.Spec.Devices.Requests = requests
	v := &extendedVariant{claim: claim, claims: append(slices.Clone(userClaims), claim), mappings: mappings}
	x.variants[key.String()] = v
	return v, nil
}

// extendedRequests turns the pod's requests for DRA-provided resources
// into device requests and says which container uses which, with the
// in-tree plugin's names and sharing rules: each long-lived container
// (regular or sidecar) gets its own request; a plain init container runs
// before them, so it reuses the requests of the long-lived containers that
// come after it and asks for the rest itself; all plain init containers
// run one at a time, so they share one request sized for the largest.
func extendedRequests(pod *v1.Pod, resources []draExtendedResource) ([]resourceapi.DeviceRequest, []v1.ContainerExtendedResourceRequest) {
	containers := slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers)
	isInit := func(i int) bool {
		return i < len(pod.Spec.InitContainers) &&
			ptr.Deref(containers[i].RestartPolicy, "") != v1.ContainerRestartPolicyAlways
	}
	var requests []resourceapi.DeviceRequest
	var mappings []v1.ContainerExtendedResourceRequest
	for _, r := range resources {
		// Long-lived containers first: their requests can be reused.
		own := make([]*resourceapi.DeviceRequest, len(containers))
		var longMappings, initMappings []v1.ContainerExtendedResourceRequest
		for i := range containers {
			if isInit(i) {
				continue
			}
			if n := containerQuantity(&containers[i], r.name); n > 0 {
				own[i] = deviceRequest(&containers[i], i, r, n)
				longMappings = append(longMappings, mapping(&containers[i], r.name, own[i].Name))
			}
		}
		var largest *resourceapi.DeviceRequest
		var initNames []string
		for i := range containers {
			if !isInit(i) {
				continue
			}
			want := containerQuantity(&containers[i], r.name)
			if want == 0 {
				continue
			}
			var got int64
			for _, req := range own[i:] {
				if req == nil || got >= want {
					continue
				}
				got += req.Exactly.Count
				initMappings = append(initMappings, mapping(&containers[i], r.name, req.Name))
			}
			if got >= want {
				continue
			}
			req := deviceRequest(&containers[i], i, r, want-got)
			initNames = append(initNames, req.Name)
			initMappings = append(initMappings, mapping(&containers[i], r.name, req.Name))
			if largest == nil || req.Exactly.Count > largest.Exactly.Count {
				largest = req
			}
		}
		if largest != nil {
			for i := range initMappings {
				if slices.Contains(initNames, initMappings[i].RequestName) {
					initMappings[i].RequestName = largest.Name
				}
			}
			requests = append(requests, *largest)
		}
		for _, req := range own {
			if req != nil {
				requests = append(requests, *req)
			}
		}
		mappings = append(mappings, longMappings...)
		mappings = append(mappings, initMappings...)
	}
	slices.SortFunc(requests, func(a, b resourceapi.DeviceRequest) int { return strings.Compare(a.Name, b.Name) })
	return requests, mappings
}

// containerQuantity is the container's integer request for the resource.
func containerQuantity(c *v1.Container, name v1.ResourceName) int64 {
	q, ok := c.Resources.Requests[name]
	if !ok {
		return 0
	}
	n, ok := q.AsInt64()
	if !ok {
		return 0
	}
	return n
}

// deviceRequest is container i's request for n devices of r's class. Its
// name numbers the container (init containers first) and the resource's
// place among the container's sorted resource names.
func deviceRequest(c *v1.Container, i int, r draExtendedResource, n int64) *resourceapi.DeviceRequest {
	names := make([]string, 0, len(c.Resources.Requests))
	for name := range c.Resources.Requests {
		names = append(names, string(name))
	}
	slices.Sort(names)
	j := max(slices.Index(names, string(r.name)), 0)
	return &resourceapi.DeviceRequest{
		Name: fmt.Sprintf("container-%d-request-%d", i, j),
		Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: r.class,
			AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
			Count:           n,
		},
	}
}

func mapping(c *v1.Container, name v1.ResourceName, request string) v1.ContainerExtendedResourceRequest {
	return v1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(name), RequestName: request}
}

// placeholderUID is the UID in-flight bookkeeping uses for the claim until
// it exists.
func (x *extendedState) placeholderUID() types.UID { return x.template.UID }

// extendedResourcesAppeared names an extended resource the pod asks for
// that a DeviceClass provides now although PreFilter found none (x nil):
// the class arrived during the cycle, after this plugin's PreFilter and
// before NodeResourcesFit's Filter looked the resource up
// (shouldDelegateResourceToDRA) and left it to DRA. Binding
// the pod would give it neither devices nor node capacity; "" when there
// is none (the common case costs a look at the containers' requests).
func (pl *DRAAllocator) extendedResourcesAppeared(pod *v1.Pod, x *extendedState) v1.ResourceName {
	if x != nil {
		return ""
	}
	return pl.draExtendedResourceOf(pod)
}

// draExtendedResourceOf names an extended resource the pod asks for that
// a DeviceClass provides now, "" if none (or DRAExtendedResource is off).
// Before the pod is bound, nothing else tells that it needs devices: its
// extended-resource claim is made at binding.
func (pl *DRAAllocator) draExtendedResourceOf(pod *v1.Pod) v1.ResourceName {
	if !pl.gates.EnableDRAExtendedResource {
		return ""
	}
	resolver := pl.draManager.DeviceClassResolver()
	if resolver == nil {
		return ""
	}
	for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			for name := range cs[i].Resources.Requests {
				if schedutil.IsDRAExtendedResourceName(name) && resolver.GetDeviceClass(name) != nil {
					return name
				}
			}
		}
	}
	return ""
}
