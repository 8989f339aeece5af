package pgembed

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// account is the unprivileged user the server runs as when this process
// is root, where initdb and postgres refuse to run.
type account struct {
	name     string
	uid, gid int
	// switcher is how a script becomes that user: runuser, else su.
	switcher string
}

// RunAsUser is the system account the server runs as under root.
const RunAsUser = "postgres"

// runAs returns the account to run the server as: nil when this process
// is not root.
func runAs() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	fix := fmt.Sprintf("create that user (useradd --system --user-group --home-dir /var/lib/postgresql --shell /usr/sbin/nologin %s; on Alpine: adduser -S %s), run as an ordinary user, or set DATABASE_URL to a Postgres server", RunAsUser, RunAsUser)
	u, err := user.Lookup(RunAsUser)
	if err != nil {
		return nil, fmt.Errorf("pgembed: Postgres refuses to run as root, and this system has no %q user to run it as: %s", RunAsUser, fix)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if uid == 0 {
		return nil, fmt.Errorf("pgembed: Postgres refuses to run as root, and the %q user is root too: %s", RunAsUser, fix)
	}
	a := &account{name: u.Username, uid: uid, gid: gid}
	for _, p := range []string{"runuser", "/usr/sbin/runuser", "/sbin/runuser"} {
		if path, err := exec.LookPath(p); err == nil {
			a.switcher = fmt.Sprintf("exec %s -u %s -- ", shellQuote(path), shellQuote(a.name))
			break
		}
	}
	if a.switcher == "" {
		path, err := exec.LookPath("su")
		if err != nil {
			return nil, fmt.Errorf("pgembed: Postgres refuses to run as root, and neither runuser nor su is here to run it as %s: install util-linux, or run as an ordinary user", a.name)
		}
		a.switcher = fmt.Sprintf(`exec %s -s /bin/sh %s -c 'exec "$0" "$@"' `, shellQuote(path), shellQuote(a.name))
	}
	return a, nil
}

// prefix returns the directory to give the library as its binaries path
// (it runs PREFIX/bin/initdb and PREFIX/bin/pg_ctl): the binaries' parent
// when nothing stands in the way, else dir/runas holding two scripts that
// run the real programs, as the account when there is one. initdb reads
// its password file, which the library writes as this process, so the
// script gives that file to the account first.
func prefix(dir string, b Binaries, as *account) (string, error) {
	if as == nil && filepath.Base(b.Dir) == "bin" {
		return filepath.Dir(b.Dir), nil
	}
	wrap := filepath.Join(dir, "runas")
	if err := os.MkdirAll(filepath.Join(wrap, "bin"), 0o755); err != nil {
		return "", fmt.Errorf("pgembed: %w", err)
	}
	for _, prog := range []string{"initdb", "pg_ctl"} {
		var s strings.Builder
		s.WriteString("#!/bin/sh\n# Written by internal/pgembed at each start: runs " + prog + " of " + b.Dir)
		if as != nil {
			s.WriteString(" as " + as.name + ",\n# for Postgres refuses to run as root.\ncd / || exit 1\n")
			s.WriteString(`for a in "$@"; do case "$a" in --pwfile=*) chown ` + shellQuote(as.name) + ` "${a#--pwfile=}" || exit 1;; esac; done` + "\n")
			s.WriteString(as.switcher + shellQuote(filepath.Join(b.Dir, prog)) + ` "$@"` + "\n")
		} else {
			s.WriteString(".\nexec " + shellQuote(filepath.Join(b.Dir, prog)) + ` "$@"` + "\n")
		}
		if err := os.WriteFile(filepath.Join(wrap, "bin", prog), []byte(s.String()), 0o755); err != nil {
			return "", fmt.Errorf("pgembed: %w", err)
		}
	}
	return wrap, nil
}

// handOver gives the server's directories to the account, and checks that
// it can reach them: every directory above must let it through.
func handOver(dir string, as *account) error {
	if as == nil {
		return nil
	}
	for _, d := range []string{dir, filepath.Join(dir, "data"), filepath.Join(dir, "log")} {
		fi, err := os.Stat(d)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("pgembed: %w", err)
		}
		if uid, _ := owner(fi); uid != 0 && uid != as.uid {
			return fmt.Errorf("pgembed: %s belongs to user id %d, not %s: run as that user, or choose another directory", d, uid, as.name)
		}
		if err := os.Chown(d, as.uid, as.gid); err != nil {
			return fmt.Errorf("pgembed: give %s to %s: %w", d, as.name, err)
		}
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("pgembed: %w", err)
		}
		uid, gid := owner(fi)
		m := fi.Mode().Perm()
		through := m&0o001 != 0 || (gid == as.gid && m&0o010 != 0) || (uid == as.uid && m&0o100 != 0)
		if !through {
			return fmt.Errorf("pgembed: the server runs as %s (Postgres refuses to run as root), who cannot reach %s: %s is mode %04o; choose a directory it can reach with EMBEDDED_PG_DIR, such as /var/lib/nothanks/postgres", as.name, dir, p, m)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
