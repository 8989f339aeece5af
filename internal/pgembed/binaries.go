package pgembed

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
)

// Binaries are one installation of the Postgres server programs.
type Binaries struct {
	// Dir holds initdb, pg_ctl and postgres.
	Dir string
	// Version is what `postgres -V` says, such as "15.14".
	Version string
	// Downloaded: fetched by the library, not found installed.
	Downloaded bool
}

// Major is the version's major part ("15"; "9.6" before 10), the part a
// data directory's PG_VERSION names.
func (b Binaries) Major() string { return majorOf(b.Version) }

func majorOf(v string) string {
	parts := strings.Split(v, ".")
	if n, err := strconv.Atoi(parts[0]); err == nil && n < 10 && len(parts) > 1 {
		return parts[0] + "." + parts[1]
	}
	return parts[0]
}

// installedDirs are where packages put the server programs, newest
// version first within each place: Debian and Ubuntu, the PGDG RPMs,
// Homebrew, Postgres.app, a source build, then PATH.
func installedDirs() []string {
	var dirs []string
	for _, pattern := range []string{
		"/usr/lib/postgresql/*/bin",
		"/usr/pgsql-*/bin",
		"/opt/homebrew/opt/postgresql@*/bin",
		"/usr/local/opt/postgresql@*/bin",
		"/opt/homebrew/opt/postgresql/bin",
		"/usr/local/opt/postgresql/bin",
		"/Applications/Postgres.app/Contents/Versions/*/bin",
		"/usr/local/pgsql/bin",
	} {
		m, _ := filepath.Glob(pattern)
		dirs = append(dirs, m...)
	}
	for _, prog := range []string{"pg_ctl", "postgres"} {
		if p, err := exec.LookPath(prog); err == nil {
			dirs = append(dirs, filepath.Dir(p))
		}
	}
	return dirs
}

// versionLess orders versions by their numbers, major first (9.6 before
// 16.1, 15.2 before 15.14).
func versionLess(a, b string) bool {
	na, nb := versionNumber.FindAllString(a, -1), versionNumber.FindAllString(b, -1)
	for i := 0; i < len(na) && i < len(nb); i++ {
		x, _ := strconv.Atoi(na[i])
		y, _ := strconv.Atoi(nb[i])
		if x != y {
			return x < y
		}
	}
	return len(na) < len(nb)
}

var versionNumber = regexp.MustCompile(`\d+`)

// inspect checks that dir has the three programs and asks postgres its version.
func inspect(dir string) (Binaries, error) {
	for _, prog := range []string{"initdb", "pg_ctl", "postgres"} {
		fi, err := os.Stat(filepath.Join(dir, prog))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return Binaries{}, fmt.Errorf("pgembed: %s has no %s program", dir, prog)
		}
	}
	out, err := exec.Command(filepath.Join(dir, "postgres"), "-V").Output()
	if err != nil {
		return Binaries{}, fmt.Errorf("pgembed: %s/postgres -V: %w", dir, err)
	}
	// "postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)"
	v := regexp.MustCompile(`\) (\d+(\.\d+)*)`).FindStringSubmatch(string(out))
	if v == nil {
		return Binaries{}, fmt.Errorf("pgembed: %s/postgres -V said %q", dir, strings.TrimSpace(string(out)))
	}
	return Binaries{Dir: dir, Version: v[1]}, nil
}

// FindBinaries returns the installed server programs to use: those of
// version major when it is set (an existing data directory's), else the
// newest. The boolean is false when none fits.
func FindBinaries(major string) (Binaries, bool) {
	seen := map[string]bool{}
	var found []Binaries
	for _, d := range installedDirs() {
		real, err := filepath.EvalSymlinks(d)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		b, err := inspect(d)
		if err != nil {
			continue
		}
		if major == "" || b.Major() == major {
			found = append(found, b)
		}
	}
	if len(found) == 0 {
		return Binaries{}, false
	}
	sort.SliceStable(found, func(i, j int) bool { return versionLess(found[j].Version, found[i].Version) })
	return found[0], true
}

// downloadable are the versions the library knows how to download, newest first.
var downloadable = []embeddedpostgres.PostgresVersion{
	embeddedpostgres.V18, embeddedpostgres.V17, embeddedpostgres.V16, embeddedpostgres.V15,
	embeddedpostgres.V14, embeddedpostgres.V13, embeddedpostgres.V12, embeddedpostgres.V11,
	embeddedpostgres.V10, embeddedpostgres.V9,
}

// download fetches binaries of version major (the newest the library
// offers if empty) into dir/binaries/VERSION, once: later starts find
// them there. The library fetches and unpacks only on its way to starting
// a server, so it is started with a data directory that cannot exist:
// it stops with an error right after unpacking, which is all this needs.
func download(o Options, major string) (Binaries, error) {
	dir := o.Dir
	v := downloadable[0]
	if major != "" {
		v = ""
		for _, d := range downloadable {
			if majorOf(string(d)) == major {
				v = d
			}
		}
		if v == "" {
			return Binaries{}, fmt.Errorf("pgembed: the data in %s is of Postgres %s, which is not installed here and cannot be downloaded: install Postgres %s", dir, major, major)
		}
	}
	target := filepath.Join(dir, "binaries", string(v))
	if b, err := inspect(filepath.Join(target, "bin")); err == nil {
		b.Downloaded = true
		return b, nil
	}
	scratch := filepath.Join(dir, "fetch")
	cfg := embeddedpostgres.DefaultConfig().
		Version(v).
		Port(uint32(freePort())).
		BinariesPath(target).
		RuntimePath(scratch).
		DataPath("/dev/null/data").
		Logger(nil)
	if o.DownloadFrom != "" {
		cfg = cfg.BinaryRepositoryURL(o.DownloadFrom)
	}
	if o.cachePath != "" {
		cfg = cfg.CachePath(o.cachePath)
	}
	err := embeddedpostgres.NewDatabase(cfg).Start()
	removeLibraryLog()
	os.RemoveAll(scratch)
	b, ierr := inspect(filepath.Join(target, "bin"))
	if ierr != nil {
		if err == nil {
			err = ierr
		}
		return Binaries{}, fmt.Errorf("pgembed: no Postgres is installed here (looked in /usr/lib/postgresql, Homebrew and PATH), and downloading Postgres %s for %s/%s failed: %w; install Postgres (apt-get install postgresql, brew install postgresql) or set DATABASE_URL", v, runtime.GOOS, runtime.GOARCH, err)
	}
	b.Downloaded = true
	return b, nil
}

// pickBinaries chooses the binaries for a data directory whose PG_VERSION
// says major ("" for a new one): the ones named, else installed ones,
// else downloaded ones.
func pickBinaries(o Options, major string) (Binaries, error) {
	if o.BinDir != "" {
		b, err := inspect(o.BinDir)
		if err != nil {
			return Binaries{}, err
		}
		if major != "" && b.Major() != major {
			return Binaries{}, fmt.Errorf("pgembed: the data in %s is of Postgres %s, but %s has Postgres %s: name the binaries of version %s", o.Dir, major, o.BinDir, b.Version, major)
		}
		return b, nil
	}
	if b, ok := FindBinaries(major); ok {
		return b, nil
	}
	return download(o, major)
}

// errLocked: someone else holds the lock.
var errLocked = errors.New("pgembed: locked")
