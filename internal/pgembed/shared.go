package pgembed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// One server for a whole `go test ./...`: the package's test binaries run
// one after another and two at a time, each a process of its own, and each
// would otherwise pay for a server of its own. The first to need one starts
// it and a supervisor process; each user holds a shared lock on Dir/users
// for as long as it lives (the system drops it when the process ends,
// however it ends). The supervisor stops the server once no process holds
// that lock and the `go test` commands that ran them (their parents) have
// ended, or after IdleGrace without users: nothing is left running after
// `go test` returns. Dir/lock orders the starting, joining and stopping.

// SuperviseEnv, set in its environment, makes a test binary the
// supervisor of the shared server in the directory it names.
const SuperviseEnv = "NOTHANKS_PGEMBED_SUPERVISE"

// IdleGrace is how long a shared server with no users stays up while the
// command that ran them lives (a test binary run from a shell; a long gap
// between packages just costs a restart).
const IdleGrace = 60 * time.Second

// SharedDir is the shared test server's directory: one per user in the
// temporary directory, its data kept from run to run (the migrated
// template database with it).
func SharedDir() (string, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("nothanks-pgtest-%d", os.Geteuid()))
	fi, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		return dir, nil
	}
	if err != nil {
		return "", fmt.Errorf("pgembed: %w", err)
	}
	as, err := runAs()
	if err != nil {
		return "", err
	}
	uid, _ := owner(fi)
	if !fi.IsDir() || (uid != os.Geteuid() && (as == nil || uid != as.uid)) {
		return "", fmt.Errorf("pgembed: %s is not a directory of this user's: remove it, or set TMPDIR elsewhere", dir)
	}
	return dir, nil
}

// Shared joins the server running from o.Dir, or starts it (Started is
// then true: no other process used it). Stop ends this process's use;
// otherwise the end of the process does.
//
// The supervisor is this program run again with SuperviseEnv set, so a
// program calling Shared must call SuperviseIfAsked first thing (dbtest
// does it in its init).
func Shared(ctx context.Context, o Options) (*Server, error) {
	if err := prepareDir(o.Dir); err != nil {
		return nil, err
	}
	lock, err := lockFile(filepath.Join(o.Dir, "lock"), true, true)
	if err != nil {
		return nil, fmt.Errorf("pgembed: lock %s: %w", o.Dir, err)
	}
	defer lock.Close()
	st, s := join(ctx, o.Dir)
	if s == nil {
		if s, err = launch(ctx, o); err != nil {
			return nil, err
		}
		if o.OnStart != nil {
			if err := o.OnStart(s.URL("postgres")); err != nil {
				pgCtlStop(s.prefix, filepath.Join(o.Dir, "data"), "fast")
				return nil, err
			}
		}
		st = s.state()
	}
	if err := s.enlist(st); err != nil {
		if s.Started {
			pgCtlStop(s.prefix, filepath.Join(o.Dir, "data"), "fast")
			os.Remove(filepath.Join(o.Dir, "state.json"))
		}
		return nil, err
	}
	return s, nil
}

// enlist counts this process among the server's users, and its parent
// (the go command) among the commands to wait for; a supervisor sees to
// the end.
func (s *Server) enlist(st state) error {
	if ppid := os.Getppid(); ppid > 1 && !slices.Contains(st.Parents, ppid) {
		st.Parents = append(st.Parents, ppid)
	}
	if err := writeState(s.Dir, st); err != nil {
		return err
	}
	if err := startSupervisor(s.Dir); err != nil {
		return err
	}
	users, err := lockFile(filepath.Join(s.Dir, "users"), false, true)
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	s.users = users
	return nil
}

// join returns the server the directory's state names, if it runs and answers.
func join(ctx context.Context, dir string) (state, *Server) {
	st, err := readState(dir)
	if err != nil || !alive(st.PID) {
		return st, nil
	}
	password, err := readPassword(dir, true)
	if err != nil {
		return st, nil
	}
	if _, err := dataDirectory(ctx, st.Port, password); err != nil {
		return st, nil
	}
	return st, &Server{
		Dir: dir, Bin: Binaries{Dir: st.BinDir, Version: st.Version, Downloaded: st.Downloaded},
		Port: st.Port, User: st.User, password: password, prefix: st.Prefix,
	}
}

// startSupervisor starts the supervisor unless one runs (it holds
// Dir/supervisor), and waits until it does.
func startSupervisor(dir string) error {
	held := func() (bool, error) {
		probe, err := lockFile(filepath.Join(dir, "supervisor"), true, false)
		if errors.Is(err, errLocked) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		probe.Close()
		return false, nil
	}
	if ok, err := held(); ok || err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("pgembed: start the supervisor: %w", err)
	}
	logFile, err := os.OpenFile(filepath.Join(dir, "supervisor.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	defer logFile.Close()
	// -test.run=^$: should the program not call SuperviseIfAsked, a test
	// binary runs no test, and the wait below says so.
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), SuperviseEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgembed: start the supervisor: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(15 * time.Second)
	for {
		if ok, err := held(); ok || err != nil {
			return err
		}
		select {
		case err := <-exited:
			return fmt.Errorf("pgembed: the supervisor (%s) ended at once (%v): does the program call pgembed.SuperviseIfAsked first? See %s", exe, err, logFile.Name())
		case <-deadline:
			return fmt.Errorf("pgembed: the supervisor (%s) did not start; see %s", exe, logFile.Name())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// SuperviseIfAsked makes this process the supervisor of a shared server
// when SuperviseEnv asks it to, and then exits; otherwise it returns at once.
func SuperviseIfAsked() {
	if dir := os.Getenv(SuperviseEnv); dir != "" {
		os.Exit(supervise(dir, IdleGrace, 200*time.Millisecond))
	}
}

func supervise(dir string, grace, every time.Duration) int {
	me, err := lockFile(filepath.Join(dir, "supervisor"), true, false)
	if err != nil {
		// Another supervisor holds it: that one does the work.
		return 0
	}
	defer me.Close()
	logf := func(format string, args ...any) {
		fmt.Printf(time.Now().Format(time.RFC3339)+" "+format+"\n", args...)
	}
	logf("supervising the server in %s", dir)
	lastUsed := time.Now()
	for {
		time.Sleep(every)
		lock, err := lockFile(filepath.Join(dir, "lock"), true, true)
		if err != nil {
			logf("lock: %v", err)
			return 1
		}
		done, code := superviseOnce(dir, &lastUsed, grace, logf)
		if done {
			// Give up supervising before the directory's lock, so that a
			// process that takes the lock next and finds no server starts
			// a supervisor that is not refused as a second one.
			me.Close()
			lock.Close()
			return code
		}
		lock.Close()
	}
}

// superviseOnce looks once, holding Dir/lock: is the server still wanted?
func superviseOnce(dir string, lastUsed *time.Time, grace time.Duration, logf func(string, ...any)) (done bool, code int) {
	st, err := readState(dir)
	if err != nil {
		logf("no server to supervise (%v)", err)
		return true, 0
	}
	if !alive(st.PID) {
		logf("the server (pid %d) is gone", st.PID)
		os.Remove(filepath.Join(dir, "state.json"))
		return true, 0
	}
	probe, err := lockFile(filepath.Join(dir, "users"), true, false)
	if errors.Is(err, errLocked) {
		*lastUsed = time.Now()
		return false, 0
	}
	if err != nil {
		logf("users: %v", err)
		return false, 0
	}
	probe.Close()
	parentsGone := !slices.ContainsFunc(st.Parents, alive)
	if !parentsGone && time.Since(*lastUsed) < grace {
		return false, 0
	}
	logf("no users (their commands ended: %v); stopping the server", parentsGone)
	if err := pgCtlStop(st.Prefix, filepath.Join(dir, "data"), "fast"); err != nil {
		logf("%v", err)
		return true, 1
	}
	os.Remove(filepath.Join(dir, "state.json"))
	logf("stopped")
	return true, 0
}
