// Package pgembed runs a Postgres server of the application's own, so that a
// machine with only Go installed runs the app and its tests on the real
// database: the app's server when nothing answers at the default address
// (Start), and one server shared by every test binary of a `go test` run
// (Shared). It uses the Postgres programs installed on the machine
// (Debian's /usr/lib/postgresql/N/bin, Homebrew's, PATH), so that it works
// offline, and else lets github.com/fergusstrange/embedded-postgres
// download them once. As root, where Postgres refuses to run, the server
// runs as the postgres system user.
//
// It knows nothing of the application: it imports no package of this module.
package pgembed

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
	"github.com/lib/pq"
)

// Options say where a server lives and how it runs.
type Options struct {
	// Dir holds everything of the server: data/ (the cluster, kept from
	// one start to the next), log/ (the server's log, a file a weekday),
	// password (the superuser's), and run/, which the library empties at
	// each start. It is created if missing; a directory with other files
	// in it is refused.
	Dir string
	// BinDir, if set, is the directory of initdb, pg_ctl and postgres to
	// use; else installed ones are looked for, and else downloaded.
	BinDir string
	// Settings are Postgres run-time parameters added to the package's
	// own (such as fsync=off for a test server).
	Settings map[string]string
	// Output receives what initdb and pg_ctl print; nil: nothing.
	Output io.Writer
	// OnStart, if set, is called by Shared when this process started the
	// server, with the admin database's URL, while no other process can
	// join it yet (dbtest drops what killed test runs left behind); an
	// error stops the server again.
	OnStart func(adminURL string) error
	// DownloadFrom is the Maven repository to download binaries from
	// (empty: the library's default, Maven Central).
	DownloadFrom string

	cachePath string // tests: where the library keeps downloads (else ~/.embedded-postgres-go)
}

// Server is a running embedded Postgres.
type Server struct {
	Dir  string
	Bin  Binaries
	Port int
	// User is the system account the server runs as ("" : this process's).
	User string
	// Started: this call started the server; false when Shared joined a
	// server that other processes had started.
	Started bool

	password string
	prefix   string // the library's binaries path: PREFIX/bin/pg_ctl
	lock     *os.File
	users    *os.File // Shared: this process's use of the server
	stopOnce sync.Once
	stopErr  error
}

// Superuser is the name of the server's superuser.
const Superuser = "postgres"

// URL is the connection URL of the named database (which need not exist yet).
func (s *Server) URL(database string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", Superuser, s.password, s.Port, database)
}

// String says which Postgres runs, how and where, for the start message.
func (s *Server) String() string {
	from := s.Bin.Dir
	if s.Bin.Downloaded {
		from = "downloaded to " + s.Bin.Dir
	}
	as := ""
	if s.User != "" {
		as = ", run as user " + s.User
	}
	return fmt.Sprintf("embedded Postgres %s (%s%s) on 127.0.0.1:%d, data in %s", s.Bin.Version, from, as, s.Port, filepath.Join(s.Dir, "data"))
}

// DefaultDir is where the app's embedded server keeps its data: the
// user's data directory ($XDG_DATA_HOME, else ~/.local/share; on macOS
// ~/Library/Application Support) + nothanks/postgres. As root, whose
// home the postgres user cannot enter, it is /var/lib/nothanks/postgres.
func DefaultDir(getenv func(string) string) (string, error) {
	if os.Geteuid() == 0 {
		return "/var/lib/nothanks/postgres", nil
	}
	if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "nothanks", "postgres"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("pgembed: no home directory to keep the data in: set EMBEDDED_PG_DIR: %w", err)
		}
		home = h
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "nothanks", "postgres"), nil
	}
	return filepath.Join(home, ".local", "share", "nothanks", "postgres"), nil
}

// Start starts the server kept in o.Dir for this process alone: another
// process starting the same directory is refused until this one stops.
// A server left running by a process that was killed, or the stale
// postmaster.pid of a server that was, is dealt with first.
func Start(ctx context.Context, o Options) (*Server, error) {
	if err := prepareDir(o.Dir); err != nil {
		return nil, err
	}
	lock, err := lockFile(filepath.Join(o.Dir, "lock"), true, false)
	if errors.Is(err, errLocked) {
		st, _ := readState(o.Dir)
		return nil, fmt.Errorf("pgembed: another process (pid %d) runs the embedded Postgres in %s: stop it first, or give this one its server with DATABASE_URL=postgres://%s:PASSWORD@127.0.0.1:%d/nothanks?sslmode=disable (PASSWORD is in %s)",
			st.Owner, o.Dir, Superuser, st.Port, filepath.Join(o.Dir, "password"))
	}
	if err != nil {
		return nil, fmt.Errorf("pgembed: lock %s: %w", o.Dir, err)
	}
	s, err := launch(ctx, o)
	if err != nil {
		lock.Close()
		return nil, err
	}
	s.lock = lock
	if err := writeState(o.Dir, s.state()); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Stop shuts the server down cleanly (pg_ctl stop, fast mode: sessions
// are ended, everything committed is on disk). For a server joined with
// Shared it only ends this process's use; the supervisor stops the server
// once no process uses it.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		if s.users != nil {
			s.stopErr = s.users.Close()
			return
		}
		s.stopErr = pgCtlStop(s.prefix, filepath.Join(s.Dir, "data"), "fast")
		if s.stopErr == nil {
			os.Remove(filepath.Join(s.Dir, "state.json"))
		}
		if s.lock != nil {
			s.lock.Close()
		}
	})
	return s.stopErr
}

// ownFiles are the entries a server's directory may hold: a directory
// with anything else in it is not one of ours (the library empties run/).
var ownFiles = map[string]bool{
	"README": true, "password": true, "lock": true, "state.json": true, "state.json.tmp": true, "data": true, "log": true,
	"run": true, "runas": true, "binaries": true, "fetch": true, "users": true, "supervisor": true, "supervisor.log": true,
}

func prepareDir(dir string) error {
	if !supported {
		return fmt.Errorf("pgembed: an embedded Postgres needs Linux, macOS or FreeBSD: set DATABASE_URL to a Postgres server")
	}
	if dir == "" || !filepath.IsAbs(dir) {
		return fmt.Errorf("pgembed: the server's directory must be an absolute path, not %q", dir)
	}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		// Directories made above it stay open to others (as root, the
		// postgres user must get through them); the server's own is private.
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return fmt.Errorf("pgembed: %w", err)
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
			return fmt.Errorf("pgembed: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	for _, e := range entries {
		if !ownFiles[e.Name()] {
			return fmt.Errorf("pgembed: %s holds other files (%s): name a new or empty directory for the embedded Postgres", dir, e.Name())
		}
	}
	readme := "This directory holds the embedded Postgres of No Thanks! (internal/pgembed).\n" +
		"data/ is the database cluster, log/ the server's log, password the superuser's password.\n" +
		"To start afresh, stop the app and delete this directory.\n"
	return os.WriteFile(filepath.Join(dir, "README"), []byte(readme), 0o644)
}

// launch starts the server in o.Dir, which the caller has locked.
func launch(ctx context.Context, o Options) (*Server, error) {
	data := filepath.Join(o.Dir, "data")
	major := ""
	if b, err := os.ReadFile(filepath.Join(data, "PG_VERSION")); err == nil {
		major = strings.TrimSpace(string(b))
	} else if entries, _ := os.ReadDir(data); len(entries) > 0 {
		// initdb writes PG_VERSION first: without it nothing was ever
		// stored here, and the library will start this directory afresh.
		fmt.Fprintf(out(o), "pgembed: %s is an unfinished data directory; making it again\n", data)
	}
	as, err := runAs()
	if err != nil {
		return nil, err
	}
	bin, err := pickBinaries(o, major)
	if err != nil {
		return nil, err
	}
	if err := handOver(o.Dir, as); err != nil {
		return nil, err
	}
	pre, err := prefix(o.Dir, bin, as)
	if err != nil {
		return nil, err
	}
	password, err := readPassword(o.Dir, major != "")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: o.Dir, Bin: bin, password: password, prefix: pre, Started: true}
	if as != nil {
		s.User = as.name
	}
	if err := s.recoverStale(ctx); err != nil {
		return nil, err
	}
	locale := "C.UTF-8"
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.Port = freePort()
		cfg := embeddedpostgres.DefaultConfig().
			// The library checks a data directory's PG_VERSION against
			// this, and would make a mismatched one afresh: it must be the
			// version of the binaries in use (chosen to match the data).
			Version(embeddedpostgres.PostgresVersion(bin.Version)).
			Port(uint32(s.Port)).
			Username(Superuser).
			Password(password).
			Database("postgres").
			RuntimePath(filepath.Join(o.Dir, "run")).
			DataPath(data).
			BinariesPath(pre).
			Locale(locale).
			Encoding("UTF8").
			StartTimeout(60 * time.Second).
			StartParameters(s.settings(o.Settings)).
			Logger(o.Output)
		lastErr = embeddedpostgres.NewDatabase(cfg).Start()
		removeLibraryLog()
		if lastErr == nil {
			if err := s.authentication(ctx); err != nil {
				s.Stop()
				return nil, err
			}
			return s, nil
		}
		msg := lastErr.Error()
		switch {
		case strings.Contains(msg, "unable to init database") && locale != "C":
			// A system without the C.UTF-8 locale (macOS): plain C,
			// still UTF-8 encoded.
			locale = "C"
		case strings.Contains(msg, "already in use"), strings.Contains(msg, "could not bind"), strings.Contains(msg, "already listening"):
			// The free port was taken meanwhile: another.
		case strings.Contains(msg, "shared memory block is still in use"):
			// The old server's processes are still going away.
			time.Sleep(time.Second)
		default:
			return nil, fmt.Errorf("pgembed: start Postgres %s in %s: %w", bin.Version, o.Dir, lastErr)
		}
	}
	return nil, fmt.Errorf("pgembed: start Postgres %s in %s: %w", bin.Version, o.Dir, lastErr)
}

// settings are the server's run-time parameters: TCP on loopback only (no
// Unix socket, whose default directory may not be writable), and the log
// in Dir/log, a file a weekday overwritten a week later.
func (s *Server) settings(extra map[string]string) map[string]string {
	p := map[string]string{
		"listen_addresses":         "127.0.0.1",
		"unix_socket_directories":  "",
		"logging_collector":        "on",
		"log_directory":            filepath.Join(s.Dir, "log"),
		"log_filename":             "postgresql-%a.log",
		"log_truncate_on_rotation": "on",
		"log_rotation_age":         "1d",
		"log_rotation_size":        "0",
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// passwordOnly is the pg_hba.conf of the package's servers: any role
// needs its password, since any local user can reach the port.
const passwordOnly = "host all all 127.0.0.1/32 password\nhost all all ::1/128 password\n"

// trustMark begins the pg_hba.conf that an earlier version wrote for test
// servers, which let anyone in from loopback without a password.
const trustMark = "# Written by internal/pgembed (TrustLocal)"

// authentication makes a cluster that an earlier version set to trust
// loopback ask for passwords again, and has the server read it. initdb
// (through the library) writes one that asks everyone for a password.
func (s *Server) authentication(ctx context.Context) error {
	path := filepath.Join(s.Dir, "data", "pg_hba.conf")
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	if !strings.HasPrefix(string(b), trustMark) {
		return nil
	}
	// WriteFile keeps the file's owner (the postgres user, as root).
	if err := os.WriteFile(path, []byte(passwordOnly), 0o600); err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	db, err := open(s.Port, s.password)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `SELECT pg_reload_conf()`); err != nil {
		return fmt.Errorf("pgembed: reload pg_hba.conf: %w", err)
	}
	return nil
}

// readPassword reads the superuser's password, or makes one for a new
// cluster. A random one, since any local user can reach the port.
func readPassword(dir string, existing bool) (string, error) {
	path := filepath.Join(dir, "password")
	b, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	if existing {
		return "", fmt.Errorf("pgembed: %s is missing, and the data in %s needs it: put it back, or move %s away to start afresh", path, dir, filepath.Join(dir, "data"))
	}
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	pw := hex.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(pw+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("pgembed: %w", err)
	}
	return pw, nil
}

// recoverStale deals with a postmaster.pid left in the data directory.
// A server still running there (its process was left behind by a killed
// app, or a test run whose supervisor was killed) is stopped; a file whose
// process is gone, or whose number now belongs to another program, is
// removed. A Postgres process that may be this directory's server but
// neither answers nor can be told apart is not guessed about.
func (s *Server) recoverStale(ctx context.Context) error {
	data := filepath.Join(s.Dir, "data")
	pidFile := filepath.Join(data, "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	lines := strings.Split(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(lines[0]))
	port := 0
	if len(lines) > 3 {
		port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	if !alive(pid) {
		return removeStale(pidFile)
	}
	realData, _ := filepath.EvalSymlinks(data)
	ours := false
	if dd, err := dataDirectory(ctx, port, s.password); err == nil {
		real, _ := filepath.EvalSymlinks(dd)
		ours = real == realData
	} else if cwd := processDir(pid); cwd != "" {
		real, _ := filepath.EvalSymlinks(cwd)
		ours = real == realData
	} else if strings.HasPrefix(processName(pid), "postgres") || strings.HasPrefix(processName(pid), "postmaster") {
		return fmt.Errorf("pgembed: %s names process %d, a Postgres that does not answer on port %d: if it is this directory's server, stop it (kill %d), else remove that file; then start again", pidFile, pid, port, pid)
	}
	if !ours {
		return removeStale(pidFile)
	}
	if err := pgCtlStop(s.prefix, data, "fast"); err != nil {
		if err := pgCtlStop(s.prefix, data, "immediate"); err != nil {
			return fmt.Errorf("pgembed: a server left running in %s (pid %d) would not stop: %w", data, pid, err)
		}
	}
	return nil
}

func removeStale(pidFile string) error {
	if err := os.Remove(pidFile); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("pgembed: remove the stale %s: %w", pidFile, err)
	}
	return nil
}

// dataDirectory asks the server on port which data directory it serves.
func dataDirectory(ctx context.Context, port int, password string) (string, error) {
	db, err := open(port, password)
	if err != nil {
		return "", err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var dir string
	err = db.QueryRowContext(ctx, `SELECT setting FROM pg_settings WHERE name = 'data_directory'`).Scan(&dir)
	return dir, err
}

func open(port int, password string) (*sql.DB, error) {
	c, err := pq.NewConnector(fmt.Sprintf("host=127.0.0.1 port=%d user=%s password=%s dbname=postgres sslmode=disable connect_timeout=3", port, Superuser, password))
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// pgCtlStop stops the server of a data directory and waits until it has.
func pgCtlStop(prefix, data, mode string) error {
	cmd := exec.Command(filepath.Join(prefix, "bin", "pg_ctl"), "stop", "-w", "-t", "60", "-m", mode, "-D", data)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgembed: pg_ctl stop: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// freePort is a TCP port free on loopback at the moment of asking.
func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func out(o Options) io.Writer {
	if o.Output == nil {
		return io.Discard
	}
	return o.Output
}

// removeLibraryLog removes the temporary file in which the library
// collects pg_ctl's output at each start (it never removes it); this
// package does not use the library's Stop, which would read it again.
// Where the system does not list a process's open files, it stays.
func removeLibraryLog() {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	prefix := filepath.Join(os.TempDir(), "embedded_postgres_log")
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, prefix) {
			os.Remove(target)
		}
	}
}

// state is what a server's directory says about the server running from it.
type state struct {
	PID     int    `json:"pid"`   // the postmaster
	Port    int    `json:"port"`  // on 127.0.0.1
	Owner   int    `json:"owner"` // the process that started it
	Version string `json:"version"`
	BinDir  string `json:"bin_dir"`
	Prefix  string `json:"prefix"`
	User    string `json:"user,omitempty"`
	// Parents are the processes (the `go test` commands) whose children
	// use a shared server: it stays up while one of them lives.
	Parents    []int `json:"parents,omitempty"`
	Downloaded bool  `json:"downloaded,omitempty"`
}

func (s *Server) state() state {
	pid := 0
	if b, err := os.ReadFile(filepath.Join(s.Dir, "data", "postmaster.pid")); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	}
	return state{PID: pid, Port: s.Port, Owner: os.Getpid(), Version: s.Bin.Version, BinDir: s.Bin.Dir, Prefix: s.prefix, User: s.User, Downloaded: s.Bin.Downloaded}
}

func readState(dir string) (state, error) {
	var st state
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}

func writeState(dir string, st state) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "state.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, "state.json"))
}
