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
