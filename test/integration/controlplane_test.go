package integration

import (
	"net"
	"net/url"
	"os"
	"runtime"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
)

func TestControlPlaneStopsCleanlyAndStartsAgain(t *testing.T) {
	ctx := t.Context()
	baseline := runtime.NumGoroutine()
	for round := range 2 {
		cp, err := controlplane.Start(ctx, controlplane.Options{})
		if err != nil {
			t.Fatalf("round %d: start: %v", round, err)
		}
		if _, err := cp.Client.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
			cp.Stop()
			t.Fatalf("round %d: the apiserver does not serve the default namespace: %v", round, err)
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
