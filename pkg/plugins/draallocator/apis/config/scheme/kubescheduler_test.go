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

package scheme

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// kubeSchedulerConfig is a KubeSchedulerConfiguration with one profile that
// enables DRAAllocator; pluginConfig is appended by the tests.
const kubeSchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: dra-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: DRAAllocator
`

// pluginArgs decodes a full KubeSchedulerConfiguration exactly as
// kube-scheduler v1.37 does and returns what the framework would hand the
// DRAAllocator factory: the Args of its pluginConfig entry, or nil.
func pluginArgs(t *testing.T, pluginConfig string) runtime.Object {
	t.Helper()
	obj, err := runtime.Decode(schedscheme.Codecs.UniversalDecoder(), []byte(kubeSchedulerConfig+pluginConfig))
	if err != nil {
		t.Fatalf("kube-scheduler rejected the configuration: %v", err)
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		t.Fatalf("decoded %T, want *config.KubeSchedulerConfiguration", obj)
	}
	for _, p := range cfg.Profiles {
		if p.SchedulerName != "dra-scheduler" {
			continue
		}
		for _, pc := range p.PluginConfig {
			if pc.Name == "DRAAllocator" {
				return pc.Args
			}
		}
		return nil
	}
	t.Fatal("profile dra-scheduler not found")
	return nil
}

func TestDecodeReadsArgsFromAKubeSchedulerConfiguration(t *testing.T) {
	tests := []struct {
		name         string
		pluginConfig string
		wantUnknown  bool
		want         *config.DRAAllocatorArgs
	}{{
		name:         "args in pluginConfig arrive as runtime.Unknown and are decoded and defaulted",
		pluginConfig: "  pluginConfig:\n  - name: DRAAllocator\n    args: {scoringStrategy: {type: MostAllocated}, filterTimeout: 5s}\n",
		wantUnknown:  true,
		want:         args(5*time.Second, 600*time.Second, config.MostAllocated, config.FirstFit),
	}, {
		name:         "args with apiVersion and kind arrive as runtime.Unknown and are decoded",
		pluginConfig: "  pluginConfig:\n  - name: DRAAllocator\n    args:\n      apiVersion: kubescheduler.config.k8s.io/v1\n      kind: DRAAllocatorArgs\n      deviceSelectionPolicy: Packing\n      bindingTimeout: 1m\n",
		wantUnknown:  true,
		want:         args(10*time.Second, time.Minute, config.FirstAvailable, config.Packing),
	}, {
		name:         "a pluginConfig entry without args gives the defaults",
		pluginConfig: "  pluginConfig:\n  - name: DRAAllocator\n",
		want:         defaults,
	}, {
		name: "a profile without a DRAAllocator pluginConfig gives the defaults",
		want: defaults,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := pluginArgs(t, tc.pluginConfig)
			if _, isUnknown := in.(*runtime.Unknown); isUnknown != tc.wantUnknown {
				t.Fatalf("kube-scheduler passed %T, want runtime.Unknown: %v", in, tc.wantUnknown)
			}
			if !tc.wantUnknown && in != nil {
				t.Fatalf("kube-scheduler passed %T, want nil", in)
			}
			got, err := Decode(in)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if *got != *tc.want {
				t.Errorf("args = %+v, want %+v", *got, *tc.want)
			}
		})
	}
}

func TestDecodeCatchesMistakesKubeSchedulerLetsThrough(t *testing.T) {
	// kube-scheduler does not know DRAAllocatorArgs, so it accepts any args
	// block; the plugin's strict decoding is the only check.
	in := pluginArgs(t, "  pluginConfig:\n  - name: DRAAllocator\n    args:\n      filterTimeOut: 5s\n")
	_, err := Decode(in)
	want := `DRAAllocator args: strict decoding error: unknown field "filterTimeOut"`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	in = pluginArgs(t, "  pluginConfig:\n  - name: DRAAllocator\n    args:\n      scoringStrategy:\n        type: Spread\n")
	_, err = Decode(in)
	if err == nil || !strings.HasPrefix(err.Error(), `DRAAllocator args: scoringStrategy.type: Unsupported value: "Spread"`) {
		t.Errorf("error = %v, want an unsupported scoringStrategy.type", err)
	}
}
