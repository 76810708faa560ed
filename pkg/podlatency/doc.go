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

// Package podlatency measures how long pods take from creation to binding,
// as a benchmark or demo that creates them sees it: a Recorder watches a
// namespace's pods and keeps, per pod name, when it was created (the
// caller says so just before its Create call) and when it was first seen
// bound to a node.
//
// # Invariants
//
//   - A pod's binding time is the first time any event or list showed it
//     with a node; later events never move it.
//   - The recorder survives the API server ending its watch: it watches
//     again from the last resource version it saw, or, when that is too
//     old (410 Gone), lists the pods and records those already bound at
//     the list's time (counted in WatchStats' relists: their latency is
//     then an upper bound). Only an error it cannot recover from ends it
//     (Err).
package podlatency
