package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// chromium finds the system browser: CHROME_PATH, or Debian's chromium.
func chromium() string {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless Chromium for the test and returns a context
// for its first tab. More users get their own contexts from newUser.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path := chromium()
	if path == "" {
		if os.Getenv("E2E") == "1" {
			t.Fatal("E2E=1 but no Chromium found: install it (apt-get install -y chromium) or set CHROME_PATH")
		}
		t.Skip("no Chromium found: install it (apt-get install -y chromium) or set CHROME_PATH; E2E=1 makes this a failure")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	if err := chromedp.Do(browser); err != nil {
		cancelBrowser()
		cancelAlloc()
		t.Fatalf("start Chromium at %s: %v", path, err)
	}
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	return browser
}

// newUser opens a tab in a fresh browser context (its own cookies), as a
// separate person at another computer would be.
func newUser(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// do runs steps with a time limit, failing the test on error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// get runs one action that reads a value, failing the test on error.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// byTestID selects the first element with data-testid=id.
func byTestID(id string) chromedp.CSS { return chromedp.CSS(`[data-testid="` + id + `"]`) }

// screenshot saves a PNG of the page under testdata/screenshots for review.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if h := get(t, ctx, chromedp.Evaluate[float64](`document.documentElement.scrollHeight`)); h > maxShotHeight {
		// Chromium refuses to capture a page much taller than this ("Page
		// is too large"); the long reference pages are kept from the top.
		w := get(t, ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
		top := func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
			yes := true
			r, err := cdp.Call(ctx, tg, page.CaptureScreenshot, page.CaptureScreenshotParams{
				CaptureBeyondViewport: &yes, FromSurface: &yes,
				Clip: &page.Viewport{Width: w, Height: maxShotHeight, Scale: 1},
			})
			if err != nil {
				return nil, err
			}
			return r.Data, nil
		}
		savePNG(t, name, get(t, ctx, chromedp.Action[[]byte](top)))
		return
	}
	savePNG(t, name, get(t, ctx, chromedp.FullScreenshot(100)))
}

// maxShotHeight is the tallest screenshot kept, in CSS pixels.
const maxShotHeight = 12000

// savePNG keeps a screenshot in testdata/screenshots.
func savePNG(t *testing.T, name string, png []byte) {
	t.Helper()
	dir := filepath.Join("testdata", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func textOf(t *testing.T, ctx context.Context, sel chromedp.CSS) string {
	t.Helper()
	return strings.TrimSpace(get(t, ctx, chromedp.Text(sel)))
}

// click clicks an element, looking again when a board swapped in by the
// stream took the element away between finding it and clicking it.
func click(t *testing.T, ctx context.Context, sel chromedp.CSS) {
	t.Helper()
	var err error
	for range 5 {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = chromedp.Do(c, chromedp.Click(sel))
		cancel()
		if err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("click %s: %v", sel, err)
}
