package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	demoNamespace = "demo"
	driver        = "gpu.example.com"
)

// defaultSchedulerConfig is the profile the demo runs when -config is not
// given.
const defaultSchedulerConfig = `
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: dra-scheduler
`

// seed creates GPU nodes, a DeviceClass, claim templates and sample pods.
func seed(ctx context.Context, client kubernetes.Interface) error {
	var objs []any
	objs = append(objs, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: demoNamespace}},
		objects.DeviceClass("gpu.example.com", driver))
	for _, n := range []struct {
		name   string
		gpus   int
		memory string
	}{{"gpu-80g-1", 8, "80Gi"}, {"gpu-80g-2", 8, "80Gi"}, {"gpu-40g-1", 8, "40Gi"}, {"cpu-1", 0, ""}} {
		objs = append(objs, objects.MakeNode(n.name).Obj())
		if n.gpus == 0 {
			continue
		}
		slice := objects.MakeSlice(n.name+"-"+driver, driver, n.name)
		for i := range n.gpus {
			slice.Device(fmt.Sprintf("gpu-%d", i), map[string]string{"memory": n.memory})
		}
		objs = append(objs, slice.Obj())
	}
	mem := func(q string) string {
		return fmt.Sprintf(`device.capacity["%s"].memory.compareTo(quantity("%s")) >= 0`, driver, q)
	}
	objs = append(objs,
		objects.ClaimTemplate("one-gpu", demoNamespace, "gpu", "gpu.example.com", 1),
		objects.ClaimTemplate("one-80gi-gpu", demoNamespace, "gpu", "gpu.example.com", 1, mem("80Gi")),
		objects.ClaimTemplate("four-80gi-gpus", demoNamespace, "gpus", "gpu.example.com", 4, mem("80Gi")),
		objects.ClaimTemplate("one-200gi-gpu", demoNamespace, "gpu", "gpu.example.com", 1, mem("200Gi")),
	)
	for i := range 4 {
		objs = append(objs, pod(fmt.Sprintf("inference-%d", i), "one-gpu"))
	}
	for i := range 3 {
		objs = append(objs, pod(fmt.Sprintf("trainer-%d", i), "four-80gi-gpus"))
	}
	objs = append(objs, pod("finetune-0", "one-80gi-gpu"), pod("too-big-0", "one-200gi-gpu"))
	for _, obj := range objs {
		if err := objects.Create(ctx, client, obj); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	return nil
}

func pod(name, template string) *v1.Pod {
	return objects.MakePod(name, demoNamespace).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", template).Obj()
}

// report waits until every demo pod is bound or has been found
// unschedulable, then prints where each landed with which devices and why
// the others wait.
func report(ctx context.Context, client kubernetes.Interface, timeout time.Duration) error {
	var pods []v1.Pod
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(demoNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		pods = list.Items
		for _, p := range pods {
			if p.Spec.NodeName == "" && !unschedulable(&p) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the demo pods to settle: %w", err)
	}
	claims, err := client.ResourceV1().ResourceClaims(demoNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	devicesOf := map[string]string{} // pod name -> devices
	for _, c := range claims.Items {
		if c.Status.Allocation == nil {
			continue
		}
		var devs []string
		for _, r := range c.Status.Allocation.Devices.Results {
			devs = append(devs, r.Pool+"/"+r.Device)
		}
		for _, ref := range c.Status.ReservedFor {
			devicesOf[ref.Name] = strings.Join(devs, ",")
		}
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	w := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "\nPOD\tNODE\tDEVICES / WHY PENDING")
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			fmt.Fprintf(w, "%s\t%s\t%s\n", p.Name, p.Spec.NodeName, devicesOf[p.Name])
			continue
		}
		fmt.Fprintf(w, "%s\t<pending>\t%s\n", p.Name, pendingReason(&p))
	}
	return w.Flush()
}

func unschedulable(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

func pendingReason(p *v1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return c.Message
		}
	}
	return "not yet considered"
}
