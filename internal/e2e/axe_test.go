package e2e

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core, vendored from the npm registry (testdata/axe).
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// axeViolation is one rule axe-core found broken on a page.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// axeSerious runs axe-core on the page a tab shows and returns its serious
// and critical violations, in words. axe is injected through the DevTools
// protocol, which the page's Content-Security-Policy does not govern.
func axeSerious(t *testing.T, ctx context.Context) []string {
	t.Helper()
	if !get(t, ctx, chromedp.Evaluate[bool](`typeof window.axe !== "undefined"`)) {
		get(t, ctx, chromedp.Evaluate[bool](axeSource+";true"))
	}
	vs := get(t, ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`, chromedp.EvalAwaitPromise))
	var out []string
	for _, v := range vs {
		if v.Impact != "serious" && v.Impact != "critical" {
			continue
		}
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprint(n.Target...))
		}
		out = append(out, fmt.Sprintf("%s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(where, ", ")))
	}
	return out
}

// headingsSkip reports a heading that comes more than one level below the
// one before it (an h1 followed by an h3, say).
func headingsSkip(t *testing.T, ctx context.Context) string {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[string](`(() => {
		let prev = 0;
		for (const h of document.querySelectorAll("h1,h2,h3,h4,h5,h6")) {
			if (h.closest("[hidden]")) continue;
			const l = Number(h.tagName[1]);
			if (prev && l > prev + 1) return h.tagName + " " + h.textContent.trim() + " after h" + prev;
			prev = l;
		}
		return "";
	})()`))
}
