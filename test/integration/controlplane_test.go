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

package integration

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
)

func TestControlPlaneStopsCleanlyAndStartsAgain(t *testing.T) {
	ctx := t.Context()
	baseline := runtime.NumGoroutine()
	for round := range 2 {
		// The second round also runs the garbage collector.
		cp, err := controlplane.Start(ctx, controlplane.Options{GarbageCollector: round == 1})
		if err != nil {
			t.Fatalf("round %d: start: %v", round, err)
		}
		if _, err := cp.Client.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
			cp.Stop()
			t.Fatalf("round %d: the apiserver does not serve the default namespace: %v", round, err)
		}
		if round == 1 {
			if err := dependentIsCollected(ctx, cp.Client); err != nil {
				cp.Stop()
				t.Fatalf("round %d, with the garbage collector: %v", round, err)
			}
		}
		u, err := url.Parse(cp.Config.Host)
		if err != nil {
			t.Fatal(err)
		}
		dir := cp.Dir
		cp.Stop()
		cp.Stop() // idempotent

		if conn, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
			conn.Close()
			t.Errorf("round %d: kube-apiserver still accepts connections on %s after Stop", round, u.Host)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("round %d: control plane directory %s left behind (stat: %v)", round, dir, err)
		}
	}
	// Some apiserver goroutines wind down asynchronously, so allow a small
	// margin; a running control plane has thousands.
	deadline := time.Now().Add(20 * time.Second)
	for runtime.NumGoroutine() > baseline+50 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	n := runtime.NumGoroutine()
	t.Logf("goroutines: %d before, %d after two rounds", baseline, n)
	if n > baseline+50 {
		t.Errorf("%d goroutines after two start/stop rounds, %d before: components leak goroutines", n, baseline)
	}
}

// dependentIsCollected deletes a ConfigMap that owns another and waits for
// the garbage collector to delete the dependent, as it deletes the claims
// generated for a deleted pod.
func dependentIsCollected(ctx context.Context, client kubernetes.Interface) error {
	configMaps := client.CoreV1().ConfigMaps("default")
	owner, err := configMaps.Create(ctx, &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	dependent := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID},
	}}}
	if _, err := configMaps.Create(ctx, dependent, metav1.CreateOptions{}); err != nil {
		return err
	}
	if err := configMaps.Delete(ctx, owner.Name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := configMaps.Get(ctx, dependent.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("the dependent of a deleted owner still exists after a minute: %w", err)
	}
	return nil
}
