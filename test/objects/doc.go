// Package objects has small builders for the Kubernetes objects dra-scheduler
// tests create: nodes, pods, DeviceClasses, ResourceSlices, claim templates.
// Each builder starts from the fewest fields a valid object needs and adds
// one aspect per method, in the style of kube-scheduler's testing wrappers:
//
//	objects.MakePod("worker", "ns").Scheduler("dra-scheduler").ClaimFromTemplate("gpu", "one-gpu").Obj()
package objects
