// Command kubectl-dra is the kubectl plugin "kubectl dra": put it on PATH
// and run `kubectl dra explain pod NAME` or `kubectl dra usage`; it also
// runs on its own. See pkg/kubectldra.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/dra-scheduler/dra-scheduler/pkg/kubectldra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := kubectldra.Main(ctx)
	stop()
	os.Exit(code)
}
