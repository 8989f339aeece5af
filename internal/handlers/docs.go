package handlers

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"nothanks/docs"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
)

// docList names the documents served to visitors, in the order the pages
// list them.
var docList = []views.Choice{
	{Value: "rules", Label: i18n.M("The rules as implemented")},
	{Value: "api", Label: i18n.M("The JSON API")},
	{Value: "record", Label: i18n.M("Game records")},
	{Value: "correspondence", Label: i18n.M("Correspondence and mail")},
	{Value: "ranked", Label: i18n.M("Ranked play")},
	{Value: "tournaments", Label: i18n.M("Tournaments")},
	{Value: "bots", Label: i18n.M("Bots")},
	{Value: "analysis", Label: i18n.M("Post-game analysis")},
	{Value: "playing-again", Label: i18n.M("Playing again")},
	{Value: "guests", Label: i18n.M("Playing as a guest")},
	{Value: "invites", Label: i18n.M("Inviting players by name")},
	{Value: "people", Label: i18n.M("Following, blocking, chat and moderation")},
	{Value: "fair-play", Label: i18n.M("Fair play: leaving games, reliability and pauses")},
	{Value: "push", Label: i18n.M("Notifications on your devices")},
	{Value: "notation", Label: i18n.M("Games as text: the notation")},
	{Value: "database", Label: i18n.M("Downloads, imports and the open database")},
	{Value: "puzzles", Label: i18n.M("Puzzles")},
	{Value: "translating", Label: i18n.M("Languages and translating")},
}

// served reports whether a document is one of docList.
func served(name string) bool {
	return slices.ContainsFunc(docList, func(d views.Choice) bool { return d.Value == name })
}

// docLinks turns the documents' links to each other ("bots.md",
// "api.md#streams"), written for reading them in the repository, into
// the site's addresses ("/docs/bots", "/docs/api#streams"). A link to a
// file the site does not serve (the README, the operators' notes) keeps
// its words without the link.
type docLinks struct{}

func (docLinks) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var links []*ast.Link
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering {
			links = append(links, l)
		}
		return ast.WalkContinue, nil
	})
	for _, l := range links {
		dest := string(l.Destination)
		if strings.Contains(dest, "://") || strings.HasPrefix(dest, "/") || strings.HasPrefix(dest, "#") {
			continue
		}
		file, frag, _ := strings.Cut(dest, "#")
		name, isDoc := strings.CutSuffix(file, ".md")
		switch {
		case isDoc && served(name):
			to := "/docs/" + name
			if frag != "" {
				to += "#" + frag
			}
			l.Destination = []byte(to)
		case isDoc || strings.HasPrefix(file, "../"):
			parent := l.Parent()
			for c := l.FirstChild(); c != nil; {
				next := c.NextSibling()
				parent.InsertBefore(parent, l, c)
				c = next
			}
			parent.RemoveChild(parent, l)
		}
	}
}

// markdown renders the documents: GitHub-flavoured tables, heading ids for
// links, and raw HTML left out (the documents are ours, but a page of the
// site never needs any).
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID(),
		parser.WithASTTransformers(util.Prioritized(docLinks{}, 100))),
)

// renderedDocs caches each document's HTML: they are embedded, so they
// never change while the process runs.
var renderedDocs sync.Map

// forPrograms are the documents for people who write programs for the
// site (bots, apps), listed apart from the players' ones.
var forPrograms = []string{"api", "bots", "record"}

// docIndex lists the documents: for players, then for programs with the
// API reference.
func (s *Server) docIndex(c echo.Context) error {
	var players, programs []views.Choice
	for _, d := range docList {
		ch := views.Choice{Value: d.Value, Label: tr(c, d.Label)}
		if slices.Contains(forPrograms, d.Value) {
			programs = append(programs, ch)
		} else {
			players = append(players, ch)
		}
	}
	programs = append(programs, views.Choice{Value: "api-reference", Label: tr(c, i18n.M("API reference"))})
	return render(c, http.StatusOK, views.DocIndex(s.page(c, tr(c, i18n.M("Documentation"))), players, programs))
}

// doc serves one of the Markdown documents as a page of the site.
func (s *Server) doc(c echo.Context) error {
	name := c.Param("name")
	var others []views.Choice
	found := false
	for _, d := range docList {
		if d.Value == name {
			found = true
		} else {
			others = append(others, views.Choice{Value: d.Value, Label: tr(c, d.Label)})
		}
	}
	if !found {
		return echo.ErrNotFound
	}
	// The reference drawn from the OpenAPI description is a page of its
	// own, beside the documents.
	others = append(others, views.Choice{Value: "api-reference", Label: tr(c, i18n.M("API reference"))})
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
	// The document is in English; its title in the list is translated.
	title := name
	for _, d := range docList {
		if d.Value == name {
			title = tr(c, d.Label)
		}
	}
	return render(c, http.StatusOK, views.DocPage(s.page(c, title), html.(string), others))
}
