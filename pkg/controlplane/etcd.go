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
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// etcdStartTimeout bounds how long a new etcd may take to elect itself.
const etcdStartTimeout = 60 * time.Second

// startEtcd starts a single-member etcd with its data under dir, listening
// on free loopback ports. It returns the client URL and a stop function.
func startEtcd(ctx context.Context, dir string) (string, func(), error) {
	var lastErr error
	// Free ports are found by binding and releasing them; another process
	// may take one in between, so retry a few times.
	for attempt := 0; attempt < 5; attempt++ {
		clientURL, stop, err := startEtcdOnce(ctx, filepath.Join(dir, fmt.Sprintf("etcd-%d", attempt)))
		if err == nil {
			return clientURL, stop, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return "", nil, fmt.Errorf("start etcd: %w", lastErr)
}

func startEtcdOnce(ctx context.Context, dir string) (string, func(), error) {
	clientPort, err := freePort()
	if err != nil {
		return "", nil, err
	}
	peerPort, err := freePort()
	if err != nil {
		return "", nil, err
	}
	clientURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", clientPort)}
	peerURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peerPort)}

	cfg := embed.NewConfig()
	cfg.Name = "dra-scheduler-test"
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	// A test store: durability across machine crashes does not matter,
	// latency does.
	cfg.UnsafeNoFsync = true
	// etcd logs through zap, not klog; its shutdown reports closed
	// listeners as errors. The apiserver reports what matters about etcd.
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.QuotaBackendBytes = 8 << 30

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return "", nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return "", nil, fmt.Errorf("etcd failed while starting: %w", err)
	case <-time.After(etcdStartTimeout):
		e.Server.Stop()
		e.Close()
		return "", nil, fmt.Errorf("etcd did not become ready within %v", etcdStartTimeout)
	case <-ctx.Done():
		e.Close()
		return "", nil, ctx.Err()
	}
	return clientURL.String(), e.Close, nil
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
