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

package controlplane

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/wait"
	utilcompatibility "k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	keyutil "k8s.io/client-go/util/keyutil"
	basecompatibility "k8s.io/component-base/compatibility"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

func init() {
	// Several apiservers in one process each apply logging options; the
	// second application must not fail because the first one happened.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
}

// apiserverReadyTimeout bounds how long kube-apiserver may take to report
// /readyz ok.
const apiserverReadyTimeout = 2 * time.Minute

// DefaultAPIServerFlags are the kube-apiserver flags every control plane
// gets before Options.APIServerFlags (later flags win).
var DefaultAPIServerFlags = []string{
	"--authorization-mode=Node,RBAC",
	// No node lifecycle controller runs, so nothing would ever remove the
	// not-ready taint this plugin adds to new nodes.
	// There is no token controller: pods must not need a ServiceAccount.
	"--disable-admission-plugins=TaintNodesByCondition,ServiceAccount",
	"--service-cluster-ip-range=10.0.0.0/16",
	"--endpoint-reconciler-type=none",
}

type apiserver struct {
	// loopback is the apiserver's own client configuration: a bearer token
	// of a system:masters user, its self-signed CA and TLS server name.
	loopback *restclient.Config
	stop     func()
}

// startAPIServer runs kube-apiserver in this process against etcdURL, with
// certificates and keys under dir.
func startAPIServer(ctx context.Context, dir, etcdURL string, flags []string) (*apiserver, error) {
	// A private component-globals registry, so that control planes can
	// start one after another in one process.
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	effectiveVersion := utilcompatibility.DefaultBuildEffectiveVersion()
	effectiveVersion.SetEmulationVersion(featureGate.EmulationVersion())
	effectiveVersion.SetMinCompatibilityVersion(featureGate.MinCompatibilityVersion())
	registry := basecompatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, effectiveVersion, featureGate); err != nil {
		return nil, fmt.Errorf("register apiserver component globals: %w", err)
	}

	s := options.NewServerRunOptions()
	s.GenericServerRunOptions.ComponentGlobalsRegistry = registry
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(flags); err != nil {
		return nil, fmt.Errorf("parse kube-apiserver flags %q: %w", flags, err)
	}
	if fs.Changed("feature-gates") || fs.Changed("emulated-version") {
		return nil, errors.New("an in-process kube-apiserver shares the process' feature gates: set them on the default feature gate instead of --feature-gates/--emulated-version")
	}
	if err := registry.Set(); err != nil {
		return nil, fmt.Errorf("apply kube-apiserver flags: %w", err)
	}

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for kube-apiserver: %w", err)
	}
	s.SecureServing.Listener = listener
	s.SecureServing.BindPort = listener.Addr().(*net.TCPAddr).Port
	s.SecureServing.ExternalAddress = net.ParseIP("127.0.0.1")
	s.SecureServing.ServerCert.CertDirectory = dir
	s.Etcd.StorageConfig.Transport.ServerList = []string{etcdURL}

	saKey, err := writeServiceAccountKey(dir)
	if err != nil {
		_ = listener.Close()
		return nil, err
	}
	s.ServiceAccountSigningKeyFile = saKey
	s.Authentication.ServiceAccounts.Issuers = []string{"https://dra-scheduler.invalid"}
	s.Authentication.ServiceAccounts.KeyFiles = []string{saKey}

	ctx, cancel := context.WithCancel(ctx)
	fail := func(err error) (*apiserver, error) {
		cancel()
		_ = listener.Close()
		return nil, err
	}
	completedOptions, err := s.Complete(ctx)
	if err != nil {
		return fail(fmt.Errorf("complete kube-apiserver options: %w", err))
	}
	if errs := completedOptions.Validate(); len(errs) != 0 {
		return fail(fmt.Errorf("validate kube-apiserver options: %w", errors.Join(errs...)))
	}
	config, err := app.NewConfig(completedOptions)
	if err != nil {
		return fail(fmt.Errorf("configure kube-apiserver: %w", err))
	}
	completed, err := config.Complete()
	if err != nil {
		return fail(fmt.Errorf("complete kube-apiserver config: %w", err))
	}
	server, err := app.CreateServerChain(completed)
	if err != nil {
		return fail(fmt.Errorf("create kube-apiserver: %w", err))
	}
	prepared, err := server.PrepareRun()
	if err != nil {
		return fail(fmt.Errorf("prepare kube-apiserver: %w", err))
	}

	errCh := make(chan error, 1)
	go func() {
		defer close(errCh)
		if err := prepared.Run(ctx); err != nil {
			errCh <- err
		}
	}()
	stop := func() {
		cancel()
		for range errCh {
		}
	}

	loopback := restclient.CopyConfig(server.GenericAPIServer.LoopbackClientConfig)
	if err := waitReady(ctx, loopback, errCh); err != nil {
		stop()
		return nil, err
	}
	return &apiserver{loopback: loopback, stop: stop}, nil
}

// waitReady polls /readyz until it answers ok, the server fails, or the
// timeout passes.
func waitReady(ctx context.Context, config *restclient.Config, errCh <-chan error) error {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("create kube-apiserver client: %w", err)
	}
	var lastBody string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, apiserverReadyTimeout, true, func(ctx context.Context) (bool, error) {
		select {
		case err, ok := <-errCh:
			if ok && err != nil {
				return false, fmt.Errorf("kube-apiserver stopped: %w", err)
			}
			return false, errors.New("kube-apiserver stopped while starting")
		default:
		}
		status := 0
		body, _ := client.CoreV1().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&status).Raw()
		lastBody = string(body)
		return status == 200, nil
	})
	if err != nil {
		return fmt.Errorf("wait for kube-apiserver /readyz (last answer %q): %w", lastBody, err)
	}
	return nil
}

// writeServiceAccountKey creates the key kube-apiserver signs service
// account tokens with.
func writeServiceAccountKey(dir string) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", fmt.Errorf("generate service account key: %w", err)
	}
	pemKey, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return "", fmt.Errorf("encode service account key: %w", err)
	}
	path := filepath.Join(dir, "service-account.key")
	if err := os.WriteFile(path, pemKey, 0o600); err != nil {
		return "", fmt.Errorf("write service account key: %w", err)
	}
	return path, nil
}
