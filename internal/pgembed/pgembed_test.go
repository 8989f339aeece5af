package pgembed

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

// The shared server's tests run this binary again in two roles: the go
// command (roleGo, which runs test binaries one after another) and a test
// binary (roleUser, which joins the shared server and says what it found).
const (
	roleEnv  = "PGEMBED_TEST_ROLE"
	dirEnv   = "PGEMBED_TEST_DIR"
	roleGo   = "go"
	roleUser = "user"
)

func TestMain(m *testing.M) {
	SuperviseIfAsked()
	switch os.Getenv(roleEnv) {
	case roleGo:
		// Two test binaries, one after the other.
		for range 2 {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), roleEnv+"="+roleUser)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Println("user:", err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	case roleUser:
		s, err := Shared(context.Background(), Options{Dir: os.Getenv(dirEnv), Settings: fast})
		if err != nil {
			fmt.Println("shared:", err)
			os.Exit(1)
		}
		fmt.Printf("started=%v port=%d\n", s.Started, s.Port)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var fast = map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}

// serverDir is a new directory for a server, which the postgres user can
// reach when the tests run as root (t.TempDir's are private).
func serverDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "pg")
}

func start(t *testing.T, dir string) *Server {
	t.Helper()
	return startWith(t, dir, fast)
}

// startWith starts the server with these settings; fast ones lose the
// last commits in a crash.
func startWith(t *testing.T, dir string, settings map[string]string) *Server {
	t.Helper()
	began := time.Now()
	s, err := Start(context.Background(), Options{Dir: dir, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("started in %v: %s", time.Since(began).Round(time.Millisecond), s)
	t.Cleanup(func() { s.Stop() })
	return s
}

func connect(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	return db
}

func exec1(t *testing.T, db *sql.DB, query string) {
	t.Helper()
	if _, err := db.Exec(query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// count is the number of rows of the table player in database app.
func count(t *testing.T, s *Server) int {
	t.Helper()
	var n int
	if err := connect(t, s.URL("app")).QueryRow(`SELECT count(*) FROM player`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// seed makes database app with one row.
func seed(t *testing.T, s *Server) {
	t.Helper()
	exec1(t, connect(t, s.URL("postgres")), `CREATE DATABASE app`)
	app := connect(t, s.URL("app"))
	exec1(t, app, `CREATE TABLE player (name text PRIMARY KEY)`)
	exec1(t, app, `INSERT INTO player VALUES ('Ada')`)
}

func postmasterPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	return pid
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStartKeepsDataAcrossRestarts(t *testing.T) {
	dir := serverDir(t)
	s := start(t, dir)
	if !strings.Contains(s.String(), s.Bin.Version) || !strings.Contains(s.String(), filepath.Join(dir, "data")) {
		t.Errorf("the description %q names neither the version nor the data", s)
	}
	seed(t, s)
	t.Run("ErrSecondProcess", func(t *testing.T) {
		_, err := Start(context.Background(), Options{Dir: dir})
		if err == nil || !strings.Contains(err.Error(), "another process") || !strings.Contains(err.Error(), strconv.Itoa(s.Port)) {
			t.Errorf("a second start while the first runs: %v", err)
		}
	})
	pid := postmasterPID(t, dir)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if _, err := os.Stat(filepath.Join(dir, "data", "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid after a clean stop: %v", err)
	}
	s = start(t, dir)
	if got, want := count(t, s), 1; got != want {
		t.Errorf("rows after a restart: got %d, want %d", got, want)
	}

	t.Run("PasswordNeeded", func(t *testing.T) {
		// A Server with the port alone (no password) is refused, also on
		// a cluster an earlier version set to trust loopback.
		refused := func(port int) bool {
			db, err := sql.Open("postgres", (&Server{Port: port}).URL("app"))
			if err != nil {
				return true
			}
			defer db.Close()
			return db.Ping() != nil
		}
		if !refused(s.Port) {
			t.Error("a connection without the password got in")
		}
		s.Stop()
		hba := filepath.Join(dir, "data", "pg_hba.conf")
		old := trustMark + ": loopback needs no password.\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n"
		if err := os.WriteFile(hba, []byte(old), 0o600); err != nil {
			t.Fatal(err)
		}
		again := start(t, dir)
		if !refused(again.Port) {
			t.Error("a cluster left trusting loopback still lets a connection without the password in")
		}
		if got, want := count(t, again), 1; got != want {
			t.Errorf("rows with the password: got %d, want %d", got, want)
		}
	})
}

func TestStartRecovers(t *testing.T) {
	dir := serverDir(t)
	s := startWith(t, dir, nil)
	seed(t, s)
	// Each server started below is stopped when the whole test ends.
	outer := t

	t.Run("ServerLeftRunning", func(t *testing.T) {
		// The app was killed: its lock went with it, the server stayed.
		old := postmasterPID(t, dir)
		s.lock.Close()
		s = startWith(outer, dir, nil)
		if !alive(postmasterPID(t, dir)) || postmasterPID(t, dir) == old {
			t.Errorf("postmaster %d, before %d", postmasterPID(t, dir), old)
		}
		waitGone(t, old)
		if got, want := count(t, s), 1; got != want {
			t.Errorf("rows: got %d, want %d", got, want)
		}
	})
	t.Run("StalePIDFile", func(t *testing.T) {
		// kill -9 of the server itself: postmaster.pid stays behind.
		pid := postmasterPID(t, dir)
		exec1(t, connect(t, s.URL("app")), `INSERT INTO player VALUES ('Bo')`)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitGone(t, pid)
		s.lock.Close()
		s = startWith(outer, dir, nil)
		if got, want := count(t, s), 2; got != want {
			t.Errorf("rows: got %d, want %d", got, want)
		}
	})
	t.Run("PIDFileOfAnotherProgram", func(t *testing.T) {
		// After a reboot the number in a stale file may be another
		// program's: that program is left alone, the file removed.
		other := exec.Command("sleep", "60")
		if err := other.Start(); err != nil {
			t.Fatal(err)
		}
		defer other.Process.Kill()
		pidFile := filepath.Join(dir, "data", "postmaster.pid")
		b, _ := os.ReadFile(pidFile)
		pid := postmasterPID(t, dir)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitGone(t, pid)
		lines := strings.Split(string(b), "\n")
		lines[0] = strconv.Itoa(other.Process.Pid)
		if err := os.WriteFile(pidFile, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		s.lock.Close()
		s = startWith(outer, dir, nil)
		if got, want := count(t, s), 2; got != want {
			t.Errorf("rows: got %d, want %d", got, want)
		}
		if !alive(other.Process.Pid) {
			t.Error("the other program was stopped")
		}
	})
}

func TestStartRefusesForeignDirectory(t *testing.T) {
	dir := serverDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(context.Background(), Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "holds other files") {
		t.Errorf("start in a directory of other files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "thesis.tex")); err != nil {
		t.Error(err)
	}
}

// Two test binaries run one after the other by one go command share one
// server, which stops once the command has ended.
func TestSharedServerOutlivesBinariesNotTheCommand(t *testing.T) {
	dir := serverDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"="+roleGo, dirEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "started=true ") || !strings.HasPrefix(lines[1], "started=false ") ||
		strings.TrimPrefix(lines[0], "started=true ") != strings.TrimPrefix(lines[1], "started=false ") {
		t.Fatalf("the two binaries said %q: want the first to start the server and the second to join it", lines)
	}
	// The command has ended: the supervisor stops the server.
	for deadline := time.Now().Add(20 * time.Second); ; {
		_, err := os.Stat(filepath.Join(dir, "data", "postmaster.pid"))
		_, serr := os.Stat(filepath.Join(dir, "state.json"))
		if os.IsNotExist(err) && os.IsNotExist(serr) {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "supervisor.log"))
			t.Fatalf("the shared server still runs 20 s after its command ended; supervisor: %s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The supervisor writes its last line after the server's files are
	// gone: give it a moment (CI once read the log in between).
	var log []byte
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		log, _ = os.ReadFile(filepath.Join(dir, "supervisor.log"))
		if strings.Contains(string(log), "stopped") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(string(log), "stopped") {
		t.Errorf("supervisor log: %s", log)
	}
}
