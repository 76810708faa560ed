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

package schedulerapp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/spf13/pflag"
	kubecompatibility "k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/compatibility"
	"k8s.io/component-base/configz"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

// configzName is the key kube-scheduler registers its configuration under;
// it is process-global, so it must be released when a scheduler stops.
const configzName = "componentconfig"

// Running is a dra-scheduler started in this process.
type Running struct {
	// SecurePort is the port of /healthz, /readyz and /metrics on 127.0.0.1.
	SecurePort int

	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// Start parses args as dra-scheduler's command line (for example
// "--config=/path/to/config.yaml") and runs the scheduler until ctx is
// cancelled or Stop is called. The KubeSchedulerConfiguration file named by
// --config supplies the kubeconfig (clientConnection.kubeconfig), as for the
// binary. Only one in-process scheduler runs at a time: kube-scheduler
// registers its configuration in the process-global configz. Feature gates cannot be changed per in-process scheduler: they are
// process-wide, so --feature-gates is rejected. plugins configures the
// scheduler's DRAAllocator plugins (test hooks).
func Start(ctx context.Context, args []string, plugins draallocator.Options) (*Running, error) {
	logger := klog.FromContext(ctx)

	// A private registry, so that several schedulers can start in one
	// process (the binary uses the process-wide default).
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	effectiveVersion := kubecompatibility.DefaultBuildEffectiveVersion()
	effectiveVersion.SetEmulationVersion(featureGate.EmulationVersion())
	effectiveVersion.SetMinCompatibilityVersion(featureGate.MinCompatibilityVersion())
	registry := compatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(compatibility.DefaultKubeComponent, effectiveVersion, featureGate); err != nil {
		return nil, fmt.Errorf("register scheduler component globals: %w", err)
	}
	opts := options.NewOptionsWithComponentGlobalsRegistry(registry)

	fs := pflag.NewFlagSet(Name, pflag.ContinueOnError)
	for _, f := range opts.Flags.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("parse dra-scheduler flags %q: %w", args, err)
	}
	if fs.Changed("feature-gates") || fs.Changed("emulated-version") {
		return nil, errors.New("an in-process dra-scheduler shares the process' feature gates: set them on the default feature gate instead of --feature-gates/--emulated-version")
	}
	if err := registry.Set(); err != nil {
		return nil, fmt.Errorf("apply dra-scheduler flags: %w", err)
	}

	r := &Running{done: make(chan struct{})}
	if opts.SecureServing.BindPort != 0 {
		listener, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("listen for the scheduler's secure port: %w", err)
		}
		certDir, err := os.MkdirTemp("", "dra-scheduler-certs-")
		if err != nil {
			_ = listener.Close()
			return nil, fmt.Errorf("create certificate directory: %w", err)
		}
		defer func() {
			if r.cancel == nil {
				_ = os.RemoveAll(certDir)
			}
		}()
		opts.SecureServing.Listener = listener
		opts.SecureServing.BindPort = listener.Addr().(*net.TCPAddr).Port
		opts.SecureServing.ServerCert.CertDirectory = certDir
		r.SecurePort = opts.SecureServing.BindPort
		go func() {
			<-r.done
			_ = os.RemoveAll(certDir)
		}()
	}

	ctx, cancel := context.WithCancel(ctx)
	cc, sched, err := app.Setup(ctx, opts, RegistryOptions(plugins)...)
	if err != nil {
		cancel()
		close(r.done)
		configz.Delete(configzName)
		return nil, fmt.Errorf("set up dra-scheduler: %w", explainStartupError(err))
	}
	r.cancel = cancel
	go func() {
		defer close(r.done)
		defer configz.Delete(configzName)
		if err := app.Run(ctx, cc, sched); err != nil && ctx.Err() == nil {
			logger.Error(err, "dra-scheduler stopped")
			r.err = err
		}
	}()
	return r, nil
}

// Stop cancels the scheduler and waits until it has shut down.
func (r *Running) Stop() {
	r.cancel()
	<-r.done
}

// Done is closed once the scheduler has stopped.
func (r *Running) Done() <-chan struct{} { return r.done }

// Err is the error the scheduler stopped with, if it stopped by itself;
// valid after Done is closed.
func (r *Running) Err() error { return r.err }
