package handlers

import (
	"bytes"
	"net/http"
	"regexp"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"

	"nothanks/docs"
	"nothanks/internal/views"
)

// docList names the documents served to visitors, in the order the pages
// list them.
var docList = []views.Choice{
	{Value: "rules", Label: "The rules as implemented"},
	{Value: "api", Label: "The JSON API"},
	{Value: "record", Label: "Game records"},
	{Value: "correspondence", Label: "Correspondence and mail"},
	{Value: "ranked", Label: "Ranked play"},
	{Value: "bots", Label: "Bots"},
	{Value: "analysis", Label: "Post-game analysis"},
	{Value: "playing-again", Label: "Playing again"},
	{Value: "guests", Label: "Playing as a guest"},
	{Value: "invites", Label: "Inviting players by name"},
}

// markdown renders the documents: GitHub-flavoured tables, heading ids for
// links, and raw HTML left out (the documents are ours, but a page of the
// site never needs any).
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// renderedDocs caches each document's HTML: they are embedded, so they
// never change while the process runs.
var renderedDocs sync.Map

var firstHeading = regexp.MustCompile(`(?m)^# (.+)$`)

// doc serves one of the Markdown documents as a page of the site.
func (s *Server) doc(c echo.Context) error {
	name := c.Param("name")
	var others []views.Choice
	found := false
	for _, d := range docList {
		if d.Value == name {
			found = true
		} else {
			others = append(others, d)
		}
	}
	if !found {
		return echo.ErrNotFound
	}
	src, err := docs.FS.ReadFile(name + ".md")
	if err != nil {
		return err
	}
	html, ok := renderedDocs.Load(name)
	if !ok {
		var buf bytes.Buffer
		if err := markdown.Convert(src, &buf); err != nil {
			return err
		}
		html = buf.String()
		renderedDocs.Store(name, html)
	}
	title := name
	if m := firstHeading.FindSubmatch(src); m != nil {
		title = string(m[1])
	}
	return render(c, http.StatusOK, views.DocPage(s.page(c, title), html.(string), others))
}
