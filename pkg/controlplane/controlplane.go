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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
)

// Options configure a control plane. The zero value is ready to use.
type Options struct {
	// Dir holds etcd's data, certificates and kubeconfigs. Empty means a
	// new temporary directory, removed by Stop.
	Dir string
	// APIServerFlags are kube-apiserver command-line flags applied after
	// DefaultAPIServerFlags.
	APIServerFlags []string
	// WithoutControllers skips the resourceclaim and namespace controllers,
	// for tests that create every ResourceClaim themselves.
	WithoutControllers bool
	// GarbageCollector also runs kube-controller-manager's garbage
	// collector, which deletes the generated claims of deleted pods. It
	// watches every resource, so it is off unless a caller deletes pods
	// and needs their claims gone (dra-bench soak).
	GarbageCollector bool
	// ClaimWorkers is how many claims and pods the resourceclaim controller
	// syncs in parallel, as kube-controller-manager's
	// --concurrent-resourceclaim-syncs. 0 means its default,
	// DefaultResourceClaimWorkers (50); negative values are an error.
	ClaimWorkers int
}

// ResourceClaimWorkers is the resourceclaim controller's worker count these
// options give: ClaimWorkers, or DefaultResourceClaimWorkers when it is 0.
func (o Options) ResourceClaimWorkers() int {
	if o.ClaimWorkers == 0 {
		return DefaultResourceClaimWorkers
	}
	return o.ClaimWorkers
}

// ControlPlane is a running etcd, kube-apiserver and controllers.
type ControlPlane struct {
	// Config is an admin (system:masters) client configuration.
	Config *restclient.Config
	// Client is an admin clientset made from Config.
	Client kubernetes.Interface
	// Kubeconfig is the path of an admin kubeconfig file for Config.
	Kubeconfig string
	// Dir is where the control plane keeps its files.
	Dir string

	stops   []func() // in start order; Stop runs them backwards
	rmDir   bool
	stopped bool
}

// Start brings up etcd, kube-apiserver and (unless disabled) the
// controllers DRA needs. It returns once the apiserver is ready. The caller
// must call Stop.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, finalErr error) {
	logger := klog.FromContext(ctx)
	if opts.ClaimWorkers < 0 {
		return nil, fmt.Errorf("resourceclaim controller workers %d: want at least 1, or 0 for the default %d", opts.ClaimWorkers, DefaultResourceClaimWorkers)
	}
	cp := &ControlPlane{Dir: opts.Dir}
	if cp.Dir == "" {
		dir, err := os.MkdirTemp("", "dra-scheduler-controlplane-")
		if err != nil {
			return nil, fmt.Errorf("create control plane directory: %w", err)
		}
		cp.Dir, cp.rmDir = dir, true
	}
	defer func() {
		if finalErr != nil {
			cp.Stop()
		}
	}()

	etcdURL, stopEtcd, err := startEtcd(ctx, filepath.Join(cp.Dir, "etcd"))
	if err != nil {
		return nil, err
	}
	cp.stops = append(cp.stops, stopEtcd)
	logger.V(2).Info("etcd ready", "url", etcdURL)

	certDir := filepath.Join(cp.Dir, "apiserver")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, fmt.Errorf("create apiserver directory: %w", err)
	}
	api, err := startAPIServer(ctx, certDir, etcdURL, slices.Concat(DefaultAPIServerFlags, opts.APIServerFlags))
	if err != nil {
		return nil, err
	}
	cp.stops = append(cp.stops, api.stop)
	logger.V(2).Info("kube-apiserver ready", "host", api.loopback.Host)

	cp.Config = restclient.CopyConfig(api.loopback)
	cp.Config.QPS, cp.Config.Burst = 1000, 2000
	cp.Client, err = kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return nil, fmt.Errorf("create admin client: %w", err)
	}
	cp.Kubeconfig = filepath.Join(cp.Dir, "admin.kubeconfig")
	if err := WriteKubeconfig(cp.Config, cp.Kubeconfig); err != nil {
		return nil, err
	}

	if !opts.WithoutControllers {
		stopControllers, err := startControllers(ctx, cp.Config, cp.Client, opts.ResourceClaimWorkers())
		if err != nil {
			return nil, err
		}
		cp.stops = append(cp.stops, stopControllers)
	}
	if opts.GarbageCollector {
		stopGC, err := startGarbageCollector(ctx, cp.Config, cp.Client)
		if err != nil {
			return nil, err
		}
		cp.stops = append(cp.stops, stopGC)
	}
	return cp, nil
}

// Stop shuts everything down in reverse start order and removes the
// temporary directory. It is safe to call more than once.
func (cp *ControlPlane) Stop() {
	if cp.stopped {
		return
	}
	cp.stopped = true
	for i := len(cp.stops) - 1; i >= 0; i-- {
		cp.stops[i]()
	}
	if cp.rmDir {
		_ = os.RemoveAll(cp.Dir)
	}
}

// WriteKubeconfig writes config as a kubeconfig file: server, CA data, TLS
// server name, bearer token or client certificate, and the user and groups
// it impersonates (so that a component can run as a ServiceAccount with the
// admin's credentials, and RBAC judges the ServiceAccount).
func WriteKubeconfig(config *restclient.Config, path string) error {
	if config.BearerTokenFile != "" || config.TLSClientConfig.CAFile != "" {
		return errors.New("write kubeconfig: file references are not supported, only inline credentials")
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["dra-scheduler"] = &clientcmdapi.Cluster{
		Server:                   config.Host,
		CertificateAuthorityData: config.TLSClientConfig.CAData,
		TLSServerName:            config.TLSClientConfig.ServerName,
	}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		Token:                 config.BearerToken,
		ClientCertificateData: config.TLSClientConfig.CertData,
		ClientKeyData:         config.TLSClientConfig.KeyData,
		Impersonate:           config.Impersonate.UserName,
		ImpersonateGroups:     config.Impersonate.Groups,
	}
	kc.Contexts["dra-scheduler"] = &clientcmdapi.Context{Cluster: "dra-scheduler", AuthInfo: "admin"}
	kc.CurrentContext = "dra-scheduler"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}
