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

// Package scheme turns the args kube-scheduler hands the DRAAllocator plugin
// into defaulted, validated internal args.
//
// How kube-scheduler (v1.37) passes args to an out-of-tree plugin: while
// decoding a KubeSchedulerConfiguration, PluginConfig.decodeNestedObjects
// only decodes args whose kind "<PluginName>Args" is registered in the
// kube-scheduler scheme. DRAAllocatorArgs is deliberately NOT registered
// there, so the args block stays a runtime.RawExtension holding JSON (YAML
// config is converted to JSON by the outer decoder), which conversion to the
// internal KubeSchedulerConfiguration turns into a *runtime.Unknown. If the
// plugin has no pluginConfig entry, or the entry has no args, the plugin
// factory receives nil.
//
// Design and invariants:
//
//   - The scheme is private: NewScheme builds a fresh one holding only the
//     internal and v1 DRAAllocatorArgs. The package keeps one unexported
//     decoder built from such a scheme at package initialisation and never
//     mutates it afterwards, so Decode is safe for concurrent use. No global
//     (client-go or kube-scheduler) scheme is touched.
//   - Decode pipeline: obtain v1 args (nil and empty input mean "all
//     defaults"; raw JSON/YAML is decoded strictly, with apiVersion/kind
//     optional and defaulting to kubescheduler.config.k8s.io/v1
//     DRAAllocatorArgs), default them with the scheme (the only place
//     defaults are applied), convert to internal, validate.
//   - Internal args passed in directly are taken as already defaulted: they
//     are copied and validated, never defaulted.
//   - The caller's object is never modified; every error is prefixed with
//     "DRAAllocator args: ".
package scheme
