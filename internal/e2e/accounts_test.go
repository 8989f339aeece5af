package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
)

func TestBrowserRegisterLogoutLogin(t *testing.T) {
	s := apptest.New(t)
	browser := newBrowser(t)
	ctx := newUser(t, browser)

	do(t, ctx,
		chromedp.Navigate(s.URL+"/"),
		chromedp.Click(byTestID("nav-register")),
		chromedp.WaitVisible(byTestID("register-form")),
		chromedp.SendKeys(byTestID("input-username"), "Browser"),
		chromedp.SendKeys(byTestID("input-email"), "browser@example.com"),
		chromedp.SendKeys(byTestID("input-password"), apptest.Password),
		chromedp.SendKeys(byTestID("input-confirm"), apptest.Password),
		chromedp.Click(byTestID("register-submit")),
		chromedp.WaitVisible(byTestID("nav-user")),
	)
	if got := textOf(t, ctx, byTestID("nav-user")); got != "Browser" {
		t.Fatalf("after registering, nav shows %q", got)
	}
	do(t, ctx,
		chromedp.Click(byTestID("logout")),
		chromedp.WaitVisible(byTestID("nav-login")),
		chromedp.Click(byTestID("nav-login")),
		chromedp.WaitVisible(byTestID("login-form")),
		chromedp.SendKeys(byTestID("input-login"), "browser"),
		chromedp.SendKeys(byTestID("input-password"), apptest.Password),
		chromedp.Click(byTestID("login-submit")),
		chromedp.WaitVisible(byTestID("welcome")),
	)
	if got := textOf(t, ctx, byTestID("welcome")); got != "Welcome back, Browser." {
		t.Errorf("after logging in, home says %q", got)
	}
	screenshot(t, ctx, "home-logged-in")
}

func TestBrowserFormErrorsKeepInput(t *testing.T) {
	s := apptest.New(t)
	ctx := newUser(t, newBrowser(t))
	do(t, ctx,
		chromedp.Navigate(s.URL+"/register"),
		chromedp.SendKeys(byTestID("input-username"), "ok_name"),
		chromedp.SendKeys(byTestID("input-email"), "not-an-email"),
		chromedp.Click(byTestID("register-submit")),
		chromedp.WaitVisible(byTestID("error-email")),
	)
	value := get(t, ctx, chromedp.Value(byTestID("input-username")))
	if value != "ok_name" {
		t.Errorf("username after a failed submit = %q", value)
	}
}
