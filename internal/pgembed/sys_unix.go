//go:build linux || darwin || freebsd

package pgembed

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// supported says whether this system can run an embedded server (file
// locks, processes, a shell for the scripts that change user).
const supported = true

// lockFile opens path and takes an flock on it: shared or exclusive,
// waiting for it or not. The lock lasts as long as the file stays open, and
// goes with the process however it ends, which is what makes it the sign of
// a live user. Go opens files close-on-exec, so children never inherit it.
func lockFile(path string, exclusive, wait bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}

// alive reports whether a process with that id exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// processName is the command name of a live process ("" if unknown).
func processName(pid int) string {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
		return strings.TrimSpace(string(b))
	}
	out, err := exec.Command("ps", "-o", "comm=", "-p", fmt.Sprint(pid)).Output()
	if err != nil {
		return ""
	}
	return filepath.Base(strings.TrimSpace(string(out)))
}

// processDir is the working directory of a process where the system tells
// (Linux), else "". A postmaster works in its data directory.
func processDir(pid int) string {
	d, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return ""
	}
	return d
}

// detach makes a command its own session, so that a Ctrl-C aimed at the
// terminal's `go test` does not reach it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// owner is a file's owning user and group.
func owner(fi os.FileInfo) (uid, gid int) {
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}
