package pgembed

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeRelease is a Maven jar as the library downloads it: a .txz of
// bin/initdb, bin/pg_ctl and bin/postgres (scripts here; postgres -V
// answers like the real one).
func fakeRelease(t *testing.T) []byte {
	t.Helper()
	xz, err := exec.LookPath("xz")
	if err != nil {
		t.Skip("no xz program to pack a fake release with")
	}
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	for _, prog := range []string{"initdb", "pg_ctl", "postgres"} {
		body := "#!/bin/sh\necho 'postgres (PostgreSQL) 18.3'\n"
		if err := tw.WriteHeader(&tar.Header{Name: "bin/" + prog, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	cmd := exec.Command(xz, "-c", "--format=xz", "--check=crc32")
	cmd.Stdin = &tarball
	txz, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var jar bytes.Buffer
	zw := zip.NewWriter(&jar)
	w, _ := zw.Create("postgres-linux-x86_64.txz")
	w.Write(txz)
	zw.Close()
	return jar.Bytes()
}

// Where no Postgres is installed, the library's download is unpacked into
// the server's directory once, and found there afterwards.
func TestDownloadUnpacksOnce(t *testing.T) {
	jar := fakeRelease(t)
	var mu sync.Mutex
	var paths []string // the jars asked for
	repo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".jar") {
			mu.Lock()
			paths = append(paths, r.URL.Path)
			mu.Unlock()
			w.Write(jar)
			return
		}
		http.NotFound(w, r) // no .sha256: the library then checks nothing
	}))
	defer repo.Close()
	dir := t.TempDir()
	o := Options{Dir: dir, DownloadFrom: repo.URL, cachePath: filepath.Join(dir, "cache")}
	for range 2 {
		b, err := download(o, "")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := b.Dir, filepath.Join(dir, "binaries", "18.3.0", "bin"); got != want || b.Version != "18.3" || !b.Downloaded {
			t.Errorf("got %+v, want the binaries of 18.3 in %s", b, want)
		}
	}
	mu.Lock()
	asked := slices.Clone(paths)
	mu.Unlock()
	if got := len(asked); got != 1 {
		t.Errorf("%d downloads, want 1", got)
	}
	if len(asked) == 0 || !strings.Contains(asked[0], "/18.3.0/") {
		t.Errorf("asked for %v, want the library's newest version", asked)
	}
	if _, err := download(Options{Dir: dir, DownloadFrom: repo.URL, cachePath: filepath.Join(dir, "cache")}, "8.4"); err == nil || !strings.Contains(err.Error(), "install Postgres 8.4") {
		t.Errorf("data of a version the library cannot download: %v", err)
	}
}
