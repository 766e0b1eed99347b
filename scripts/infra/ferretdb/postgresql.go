package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A running private PostgreSQL cluster, child of this process.
type cluster struct {
	postmaster *exec.Cmd
	exited     chan struct{}
	socketDir  string
	ownSocket  bool
	url        string
}

// The cluster's directory and the role FerretDB connects as, inside -data-dir.
const (
	clusterDirName = "cluster"
	role           = "ferretdb"
	// The Unix socket's name carries a port number; nothing listens on TCP.
	socketPort = 5432
	// A Unix socket path holds at most 107 bytes on Linux.
	socketPathLimit = 100
)

// startCluster creates the cluster in dataDir on the first start, starts its postmaster and
// returns once it accepts connections.
func startCluster(ctx context.Context, bin, dataDir string) (*cluster, error) {
	dir := filepath.Join(dataDir, clusterDirName)
	if err := initCluster(bin, dataDir, dir); err != nil {
		return nil, err
	}
	if err := awaitFormerPostmaster(ctx, dir); err != nil {
		return nil, err
	}

	socketDir, ownSocket := dataDir, false
	if len(socketDir)+len("/.s.PGSQL.5432") > socketPathLimit {
		temp, err := os.MkdirTemp("", "ferretdb-pg-")
		if err != nil {
			return nil, err
		}
		socketDir, ownSocket = temp, true
	}

	postmaster := postgresCommand(filepath.Join(bin, "postgres"),
		"-D", dir,
		"-k", socketDir,
		"-p", strconv.Itoa(socketPort),
		"-c", "listen_addresses=",
		"-c", "unix_socket_permissions=0700",
		// FerretDB's pool holds up to 50 connections; the rest are headroom.
		"-c", "max_connections=120",
		"-c", "log_min_messages=warning",
		// FerretDB names the field of a filter by a parameter; only a plan made for the values
		// at hand sees that it is `_id` and takes its index (id-index.go).
		"-c", "plan_cache_mode=force_custom_plan",
	)
	if err := postmaster.Start(); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	c := &cluster{postmaster: postmaster, exited: make(chan struct{}), socketDir: socketDir, ownSocket: ownSocket}
	go func() {
		_ = postmaster.Wait()
		close(c.exited)
	}()
	query := url.Values{"host": {socketDir}, "port": {strconv.Itoa(socketPort)}}
	c.url = (&url.URL{Scheme: "postgres", User: url.User(role), Path: "/postgres", RawQuery: query.Encode()}).String()

	if err := c.awaitReady(ctx, dir); err != nil {
		c.stop()
		return nil, err
	}
	if err := installIDIndexTrigger(ctx, c.url); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// initCluster runs initdb into a scratch directory and renames it into place, so that an
// interrupted first start leaves no half-made cluster behind.
func initCluster(bin, dataDir, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err == nil {
		return nil
	}
	scratch := filepath.Join(dataDir, clusterDirName+".init")
	if err := os.RemoveAll(scratch); err != nil {
		return err
	}
	initdb := postgresCommand(filepath.Join(bin, "initdb"),
		"-D", scratch, "-U", role, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	if err := initdb.Run(); err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	// --no-sync skips initdb's own flushes; one sync before the rename makes the cluster durable.
	syscall.Sync()
	return os.Rename(scratch, dir)
}

// postgresCommand runs a PostgreSQL program with its output on ours. PostgreSQL refuses to run
// as root, so a launcher running as root runs it in a user namespace of its own, where it is an
// ordinary user; outside, it keeps root's files (ADR 0121).
func postgresCommand(program string, args ...string) *exec.Cmd {
	cmd := exec.Command(program, args...)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	attributes := &syscall.SysProcAttr{
		// Shutdown is ours to order (FerretDB first), not the terminal's.
		Setpgid: true,
		// A fast shutdown if this process dies without stopping it.
		Pdeathsig: syscall.SIGINT,
	}
	if os.Geteuid() == 0 {
		uid, gid := unprivilegedIDs()
		attributes.Cloneflags = syscall.CLONE_NEWUSER
		attributes.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: 0, Size: 1}}
		attributes.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: 0, Size: 1}}
	}
	cmd.SysProcAttr = attributes
	return cmd
}

// unprivilegedIDs names the user PostgreSQL sees itself as: one the system knows, since initdb
// looks its name up.
func unprivilegedIDs() (int, int) {
	for _, name := range []string{"postgres", "nobody"} {
		if u, err := user.Lookup(name); err == nil {
			uid, uidErr := strconv.Atoi(u.Uid)
			gid, gidErr := strconv.Atoi(u.Gid)
			if uidErr == nil && gidErr == nil && uid != 0 {
				return uid, gid
			}
		}
	}
	return 65534, 65534
}

// awaitFormerPostmaster waits while a postmaster of an earlier launcher of this cluster still
// shuts down (its launcher was killed): the new one would refuse its lock file.
func awaitFormerPostmaster(ctx context.Context, dir string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		pid := postmasterPid(dir)
		if pid == 0 || syscall.Kill(pid, 0) != nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the postmaster %d of an earlier start still runs on %s", pid, dir)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// The first line of postmaster.pid is the pid; the eighth, its state ("ready" once it serves).
func postmasterFileLines(dir string) []string {
	text, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return nil
	}
	return strings.Split(string(text), "\n")
}

func postmasterPid(dir string) int {
	lines := postmasterFileLines(dir)
	if len(lines) == 0 {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil {
		return 0
	}
	return pid
}

func (c *cluster) awaitReady(ctx context.Context, dir string) error {
	deadline := time.After(60 * time.Second)
	for {
		lines := postmasterFileLines(dir)
		if len(lines) > 7 && strings.TrimSpace(lines[7]) == "ready" && postmasterPid(dir) == c.postmaster.Process.Pid {
			return nil
		}
		select {
		case <-c.exited:
			return errors.New("postgres exited before it was ready (its log is above)")
		case <-deadline:
			return errors.New("postgres was not ready within 60 s")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop asks for a fast shutdown (sessions end, a checkpoint is written), then for an immediate
// one, and kills the postmaster as the last resort.
func (c *cluster) stop() {
	defer func() {
		if c.ownSocket {
			_ = os.RemoveAll(c.socketDir)
		}
	}()
	for _, step := range []struct {
		signal syscall.Signal
		wait   time.Duration
	}{{syscall.SIGINT, 20 * time.Second}, {syscall.SIGQUIT, 5 * time.Second}, {syscall.SIGKILL, 5 * time.Second}} {
		_ = c.postmaster.Process.Signal(step.signal)
		select {
		case <-c.exited:
			return
		case <-time.After(step.wait):
		}
	}
}
