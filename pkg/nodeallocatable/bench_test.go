package nodeallocatable

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// BenchmarkDemand measures one node's demand of a pod with three
// containers and an init container, whose devices map cpu and cost memory:
// what Filter computes per feasible node.
func BenchmarkDemand(b *testing.B) {
	pod := withInit(podWith([2]string{"1", "1Gi"}, [2]string{"500m", "256Mi"}, [2]string{"", "64Mi"}), "2", "512Mi")
	statuses := []v1.NodeAllocatableResourceClaimStatus{cpuStatus("4", "c0"), memoryOverhead("1Gi", "256Mi", "c0", "c1")}
	for name, demand := range map[string]func() (v1.ResourceList, error){
		"Demand":   func() (v1.ResourceList, error) { return Demand(pod, statuses, Features{}) },
		"Demander": demanderFunc(pod, statuses),
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := demand(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// demanderFunc is a Demander's Demand for the statuses, prepared once.
func demanderFunc(pod *v1.Pod, statuses []v1.NodeAllocatableResourceClaimStatus) func() (v1.ResourceList, error) {
	d := NewDemander(pod, Features{})
	return func() (v1.ResourceList, error) { return d.Demand(statuses) }
}
