//go:build !(linux || darwin || freebsd)

package pgembed

import (
	"errors"
	"os"
	"os/exec"
)

// supported: elsewhere (Windows) the app needs a DATABASE_URL.
const supported = false

func lockFile(string, bool, bool) (*os.File, error) {
	return nil, errors.New("pgembed: file locks are not supported on this system")
}

func alive(int) bool                   { return false }
func processName(int) string           { return "" }
func processDir(int) string            { return "" }
func detach(*exec.Cmd)                 {}
func owner(os.FileInfo) (uid, gid int) { return -1, -1 }
