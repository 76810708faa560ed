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

package kubectldra

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

// Output formats.
const (
	outputText = "text"
	outputJSON = "json"
)

// options are the flags every subcommand shares.
type options struct {
	kubeconfig, context, namespace string
	from                           []string
	output                         string
	stdin                          io.Reader
	stdout                         io.Writer
}

// NewCommand returns the kubectl-dra command tree writing to stdout and
// reading --from - from stdin.
func NewCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	o := &options{stdin: stdin, stdout: stdout}
	root := &cobra.Command{
		Use:   "kubectl-dra",
		Short: "Explain DRA scheduling: why a pod is pending, where it could run, how devices are used",
		Long: `kubectl dra answers DRA questions with dra-scheduler's own allocator.

It reads the cluster live (read-only; bind the ClusterRole dra-scheduler:explain)
or, with --from, files written by:

  kubectl get nodes,pods,resourceslices,deviceclasses,resourceclaims,resourceclaimtemplates,devicetaintrules -A -o yaml`,
		SilenceUsage: true,
		// --version prints the same line as the version subcommand.
		Version: version.String(programName),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	f := root.PersistentFlags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	f.StringVar(&o.context, "context", "", "the kubeconfig context to use")
	f.StringVarP(&o.namespace, "namespace", "n", "", "the pod's namespace (default: the context's, or default)")
	f.StringArrayVar(&o.from, "from", nil, "read objects from this file of kubectl get -o yaml (or json) output instead of a cluster; repeatable; - is standard input")
	f.StringVarP(&o.output, "output", "o", outputText, "output format: text or json")
	root.AddCommand(newExplainCommand(o), newFitCommand(o), newUsageCommand(o), newVersionCommand())
	return root
}

// live reports whether objects come from a cluster.
func (o *options) live() bool { return len(o.from) == 0 }

// clientConfig is the kubeconfig as kubectl loads it.
func (o *options) clientConfig() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.context})
}

// resolveNamespace returns --namespace, or the context's, or default.
func (o *options) resolveNamespace() (string, error) {
	if o.namespace != "" {
		return o.namespace, nil
	}
	if !o.live() {
		return "default", nil
	}
	ns, _, err := o.clientConfig().Namespace()
	if err != nil {
		return "", fmt.Errorf("namespace from kubeconfig: %w", err)
	}
	return ns, nil
}

// objects reads the objects q asks for, live or from --from.
func (o *options) objects(ctx context.Context, q clusterstate.Query) (*clusterstate.Objects, error) {
	if !o.live() {
		objs := &clusterstate.Objects{Kinds: clusterstate.ClusterKinds}
		if err := objs.ReadFiles(o.stdin, o.from...); err != nil {
			return nil, err
		}
		return objs, nil
	}
	config, err := o.clientConfig().ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	config.UserAgent = "kubectl-dra"
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return clusterstate.Get(ctx, client, q)
}

// checkOutput refuses an unknown --output.
func (o *options) checkOutput() error {
	if o.output != outputText && o.output != outputJSON {
		return fmt.Errorf("--output %q: want text or json", o.output)
	}
	return nil
}

// write prints v as JSON, or with text.
func (o *options) write(v any, text func(io.Writer) error) error {
	if o.output == outputJSON {
		enc := json.NewEncoder(o.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	return text(o.stdout)
}

// Main runs the command with the process's arguments and streams and
// returns the exit code.
func Main(ctx context.Context) int {
	cmd := NewCommand(os.Stdin, os.Stdout, os.Stderr)
	return ExitCode(cmd.ExecuteContext(ctx))
}

// ExitCode is the process's exit code for the error a command returned: 0
// for none, the code a command chose (kubectl dra fit: 1 when fewer fit
// than asked, 2 on errors), 1 for any other error.
func ExitCode(err error) int {
	var exit *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.code
	}
	return 1
}

// exitError is an error with the exit code it stands for (kubectl dra
// fit's 1 for "fewer fit", 2 for errors); err nil is an answer, not an
// error, and prints nothing.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit code %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }
