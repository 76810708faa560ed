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

package schedbench

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	"github.com/dra-scheduler/dra-scheduler/manifests"
)

// TestSchedulerConfigDecodes decodes every configuration with
// kube-scheduler's own scheme (defaults included), validates it, and checks
// which DRA plugin ends up enabled (device-plugin: the default ones, like
// no-claims).
func TestSchedulerConfigDecodes(t *testing.T) {
	for _, c := range append(AllConfigs(), ConfigDevicePlugin) {
		t.Run(string(c), func(t *testing.T) {
			data, err := SchedulerConfig(c, "/tmp/kubeconfig", 5000, 4000)
			if err != nil {
				t.Fatal(err)
			}
			obj, gvk, err := schedscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
			if err != nil {
				t.Fatalf("decode:\n%s\n%v", data, err)
			}
			cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
			if !ok {
				t.Fatalf("decoded %v into %T", gvk, obj)
			}
			if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
				t.Errorf("invalid: %v", err)
			}
			if cfg.LeaderElection.LeaderElect {
				t.Error("leader election is on")
			}
			cc := cfg.ClientConnection
			if cc.Kubeconfig != "/tmp/kubeconfig" || cc.QPS != 5000 || cc.Burst != 4000 {
				t.Errorf("clientConnection = %+v", cc)
			}
			if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != SchedulerName {
				t.Fatalf("profiles %+v, want one named %s", cfg.Profiles, SchedulerName)
			}
			mp := cfg.Profiles[0].Plugins.MultiPoint
			enabled := func(name string) bool {
				return slices.ContainsFunc(mp.Enabled, func(p schedconfig.Plugin) bool { return p.Name == name }) &&
					!slices.ContainsFunc(mp.Disabled, func(p schedconfig.Plugin) bool { return p.Name == name || p.Name == "*" })
			}
			wantOurs := c == ConfigOurs
			if got := enabled("DRAAllocator"); got != wantOurs {
				t.Errorf("DRAAllocator enabled = %v, want %v; multiPoint %+v", got, wantOurs, mp)
			}
			if got := enabled(inTreePlugin); got == wantOurs {
				t.Errorf("DynamicResources enabled = %v, want %v; multiPoint %+v", got, !wantOurs, mp)
			}
			if wantOurs {
				// Preemption for devices needs DRAAllocator's PostFilter
				// before DefaultPreemption's, as the shipped ConfigMap has it.
				// (It is disabled and enabled again: the default plugins
				// come before the enabled ones.)
				ours := slices.IndexFunc(mp.Enabled, func(p schedconfig.Plugin) bool { return p.Name == "DRAAllocator" })
				preemption := slices.IndexFunc(mp.Enabled, func(p schedconfig.Plugin) bool { return p.Name == defaultPreemptionPlugin })
				if ours < 0 || preemption < ours {
					t.Errorf("DefaultPreemption is not enabled after DRAAllocator; multiPoint %+v", mp)
				}
				// DRAAllocator generates placements: upstream's generator
				// must be off, and device packing weighs 2 among them.
				if !slices.ContainsFunc(mp.Disabled, func(p schedconfig.Plugin) bool { return p.Name == placementGenerator }) {
					t.Errorf("%s is not disabled; multiPoint %+v", placementGenerator, mp)
				}
				ps := cfg.Profiles[0].Plugins.PlacementScore.Enabled
				if !slices.ContainsFunc(ps, func(p schedconfig.Plugin) bool { return p.Name == "DRAAllocator" && p.Weight == 2 }) {
					t.Errorf("placementScore enabled %+v, want DRAAllocator at weight 2", ps)
				}
			}
		})
	}
	if _, err := SchedulerConfig("other", "", 1, 1); err == nil {
		t.Error("an unknown configuration was accepted")
	}
}

func TestParseConfigs(t *testing.T) {
	got, err := ParseConfigs(" in-tree,ours ")
	if err != nil || !slices.Equal(got, []Config{ConfigInTree, ConfigOurs}) {
		t.Errorf("ParseConfigs = %v, %v", got, err)
	}
	for _, bad := range []string{"", "ours,fast", "ours,ours"} {
		if _, err := ParseConfigs(bad); err == nil {
			t.Errorf("ParseConfigs(%q) accepted", bad)
		}
	}
}

func TestOptionsComplete(t *testing.T) {
	o := Options{Sizes: []int{10}, LogDir: t.TempDir(), Child: []string{"true"}}
	if err := o.complete(); err != nil {
		t.Fatal(err)
	}
	if o.Shape.Name != "schedperf" || o.Claims != ClaimsTemplate || o.QPS != 5000 || o.podsFor(10) != 10 || len(o.Configs) != 3 {
		t.Errorf("defaults not filled: %+v", o)
	}
	h100, err := ShapeByName("h100")
	if err != nil {
		t.Fatal(err)
	}
	o = Options{Sizes: []int{10}, Shape: h100, Pods: 80, Warmup: 1, LogDir: t.TempDir(), Child: []string{"true"}}
	if err := o.complete(); err == nil || !strings.Contains(err.Error(), "80 devices, fewer than the 81 pods") {
		t.Errorf("81 pods on 80 GPUs: %v", err)
	}
	if _, err := ShapeByName("tpu"); err == nil {
		t.Error("unknown shape accepted")
	}
}

func TestMakePod(t *testing.T) {
	noClaims := makePod("p", "ns", ConfigNoClaims, ClaimsTemplate)
	if len(noClaims.Spec.ResourceClaims) != 0 || noClaims.Spec.SchedulerName != SchedulerName {
		t.Errorf("no-claims pod: %+v", noClaims.Spec)
	}
	tmpl := makePod("p", "ns", ConfigOurs, ClaimsTemplate)
	if rc := tmpl.Spec.ResourceClaims; len(rc) != 1 || rc[0].ResourceClaimTemplateName == nil || *rc[0].ResourceClaimTemplateName != templateName {
		t.Errorf("template pod claims: %+v", rc)
	}
	claim := makePod("p-3", "ns", ConfigInTree, ClaimsPerPod)
	if rc := claim.Spec.ResourceClaims; len(rc) != 1 || rc[0].ResourceClaimName == nil || *rc[0].ResourceClaimName != "p-3" {
		t.Errorf("claim pod claims: %+v", rc)
	}
	if c := claim.Spec.Containers[0].Resources.Claims; len(c) != 1 || c[0].Name != podClaimName {
		t.Errorf("container does not use the claim: %+v", c)
	}
}

func TestCheckClaims(t *testing.T) {
	claim := func(name string, devices ...string) runtime.Object {
		c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
		if devices != nil {
			c.Status.Allocation = &resourceapi.AllocationResult{}
			for _, d := range devices {
				c.Status.Allocation.Devices.Results = append(c.Status.Allocation.Devices.Results,
					resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: "d", Pool: "pool-1", Device: d})
			}
		}
		return c
	}
	other := claim("elsewhere", "dev-0")
	other.(*resourceapi.ResourceClaim).Namespace = "other"
	client := fake.NewClientset(claim("a", "dev-0"), claim("b", "dev-1"), claim("c", "dev-0"), claim("pending"), other,
		&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}})
	got, err := checkClaims(t.Context(), client, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if got.claims != 4 || got.allocated != 3 || got.duplicates != 1 || !strings.Contains(got.example, "d/pool-1/dev-0 allocated to claims a and c") {
		t.Errorf("checkClaims = %+v", got)
	}
}

func TestParseStatCPU(t *testing.T) {
	// A real line, with a command name holding a space and a parenthesis.
	line := "4242 (dra-bench (x)) S 1 4242 4242 0 -1 4194560 12345 0 0 0 250 75 0 0 20 0 40 0 1234 987654 4321 18446744073709551615\n"
	got, err := parseStatCPU(line)
	if err != nil || got != 3250*time.Millisecond {
		t.Errorf("parseStatCPU = %v, %v; want 3.25s (325 ticks)", got, err)
	}
	if _, err := parseStatCPU("4242 (x) S 1"); err == nil {
		t.Error("a short line was accepted")
	}
}

// TestFileSchedulerConfigRunsTheShippedConfigurationAsShipped: the
// shipped KubeSchedulerConfiguration, adapted for a run, keeps its plugins
// and client rate; only the kubeconfig, leader election and the first
// profile's name change.
func TestFileSchedulerConfigRunsTheShippedConfigurationAsShipped(t *testing.T) {
	shipped, err := manifests.SchedulerConfig()
	if err != nil {
		t.Fatal(err)
	}
	data, err := FileSchedulerConfig(shipped, "/tmp/kubeconfig")
	if err != nil {
		t.Fatal(err)
	}
	decode := func(data []byte) *schedconfig.KubeSchedulerConfiguration {
		t.Helper()
		obj, _, err := schedscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
		if err != nil {
			t.Fatalf("decode:\n%s\n%v", data, err)
		}
		return obj.(*schedconfig.KubeSchedulerConfiguration)
	}
	orig, cfg := decode(shipped), decode(data)
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		t.Errorf("invalid: %v", err)
	}
	if cfg.LeaderElection.LeaderElect || cfg.ClientConnection.Kubeconfig != "/tmp/kubeconfig" {
		t.Errorf("leader election %v, kubeconfig %q; want off and the run's", cfg.LeaderElection.LeaderElect, cfg.ClientConnection.Kubeconfig)
	}
	if cfg.ClientConnection.QPS != orig.ClientConnection.QPS || cfg.ClientConnection.Burst != orig.ClientConnection.Burst || orig.ClientConnection.QPS != 100 {
		t.Errorf("client rate %v/%v, want the shipped %v/%v (100)", cfg.ClientConnection.QPS, cfg.ClientConnection.Burst, orig.ClientConnection.QPS, orig.ClientConnection.Burst)
	}
	if cfg.Profiles[0].SchedulerName != SchedulerName {
		t.Errorf("first profile %q, want %q", cfg.Profiles[0].SchedulerName, SchedulerName)
	}
	cfg.Profiles[0].SchedulerName = orig.Profiles[0].SchedulerName
	if !reflect.DeepEqual(cfg.Profiles, orig.Profiles) {
		t.Errorf("profiles changed beyond the name:\n%+v\nwant\n%+v", cfg.Profiles, orig.Profiles)
	}

	if _, err := FileSchedulerConfig([]byte("apiVersion: v1\nkind: ConfigMap\n"), "k"); err == nil || !strings.Contains(err.Error(), "KubeSchedulerConfiguration") {
		t.Errorf("a ConfigMap: error %v, want one asking for a KubeSchedulerConfiguration", err)
	}
}
