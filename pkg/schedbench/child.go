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
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ChildEnv, when set in the environment, holds the JSON-encoded command
// line of dra-scheduler: the process is the scheduler child of a run and
// must call schedulerapp.RunJSONArgs with it instead of doing its own work.
const ChildEnv = "DRA_BENCH_SCHEDULER_ARGS"

// schedulerReadyTimeout bounds how long a scheduler may take to answer
// /readyz (informers synced).
const schedulerReadyTimeout = 3 * time.Minute

// clockTicks is USER_HZ, the unit of the CPU times in /proc/<pid>/stat; it
// is 100 on every Linux architecture Go supports.
const clockTicks = 100

// child is a running scheduler process.
type child struct {
	cmd     *exec.Cmd
	logPath string
	port    int
	done    chan struct{}
	logFile *os.File
}

// startChild starts the scheduler with configPath, logging to logPath,
// and waits until its /readyz answers ok.
func startChild(ctx context.Context, argv []string, configPath, logPath string, extraFlags []string) (*child, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	certDir := filepath.Join(filepath.Dir(logPath), strings.TrimSuffix(filepath.Base(logPath), ".log")+"-certs")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, fmt.Errorf("create scheduler certificate directory: %w", err)
	}
	args := append([]string{
		"--config=" + configPath,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + certDir,
		"-v=2",
	}, extraFlags...)
	encoded, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode scheduler arguments: %w", err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("create scheduler log: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), ChildEnv+"="+string(encoded))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The scheduler dies with this process, even when it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start scheduler %s: %w", argv[0], err)
	}
	c := &child{cmd: cmd, logPath: logPath, port: port, done: make(chan struct{}), logFile: logFile}
	go func() {
		_ = cmd.Wait()
		close(c.done)
	}()
	if err := c.waitReady(ctx); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// waitReady polls /readyz until it answers 200.
func (c *child) waitReady(ctx context.Context) error {
	client := loopbackClient()
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(schedulerReadyTimeout)
	last := "no answer"
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/readyz", c.port), nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			var body bytes.Buffer
			_, _ = body.ReadFrom(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(body.String()))
		} else {
			last = err.Error()
		}
		select {
		case <-c.done:
			return fmt.Errorf("scheduler exited while starting (%v); log: %s", c.cmd.ProcessState, c.logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("scheduler /readyz not ok after %v (last answer: %s); log: %s", schedulerReadyTimeout, last, c.logPath)
		}
	}
}

// loopbackClient is an HTTP client for the scheduler's secure port on
// 127.0.0.1 (/readyz, /metrics), whose certificate is self-signed.
func loopbackClient() *http.Client {
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback requests to the scheduler's self-signed certificate
	}
}

// exited reports whether the scheduler process has ended.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// usage is what the scheduler process has used so far.
type usage struct {
	// peakRSS is VmHWM in bytes.
	peakRSS int64
	// cpu is user + system time.
	cpu time.Duration
}

// usage reads the process' peak RSS and CPU time from /proc.
func (c *child) usage() (usage, error) {
	pid := c.cmd.Process.Pid
	var u usage
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, fmt.Errorf("read scheduler status: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err != nil {
					return u, fmt.Errorf("parse VmHWM %q: %w", rest, err)
				}
				u.peakRSS = kb << 10
			}
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, fmt.Errorf("read scheduler stat: %w", err)
	}
	u.cpu, err = parseStatCPU(string(stat))
	return u, err
}

// parseStatCPU returns utime + stime of a /proc/<pid>/stat line.
func parseStatCPU(stat string) (time.Duration, error) {
	// The command name (field 2) is in parentheses and may contain spaces.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("parse /proc stat: no command name")
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("parse /proc stat: %d fields after the command name", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse /proc stat CPU time %q: %w", s, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// stop kills the scheduler and waits for it; kube-scheduler has nothing to
// save, and a kill cannot hang.
func (c *child) stop() {
	_ = c.cmd.Process.Kill()
	<-c.done
	_ = c.logFile.Close()
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port for the scheduler: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
