// Package e2e holds the browser tests: headless Chromium, driven by
// chromedp, against the whole application started in the test on a free
// port. Without a Chromium they skip, unless E2E=1, when they fail.
package e2e
