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
