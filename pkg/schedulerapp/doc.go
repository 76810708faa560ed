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

// Package schedulerapp builds dra-scheduler: kube-scheduler's own command
// with dra-scheduler's plugins in its out-of-tree registry.
//
// The binary (NewCommand) and the in-process runner (Start) share one plugin
// list and one option-parsing path, so tests, benchmarks and the demo run the
// scheduler exactly the way the binary does: flags parsed into kube-scheduler's
// Options, then app.Setup and app.Run. Start differs only where a process
// boundary would: it listens on a free loopback port, uses a private
// component-globals registry, and is stopped by cancelling its context
// rather than by a signal.
package schedulerapp
