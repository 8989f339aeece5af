package handlers

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/archive"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
)

// The notation's files are plain text; the month files gzip.
const (
	notationType = "text/plain; charset=utf-8"
	monthType    = "application/gzip"
)

// apiViewer is who asks: the token's account through the API, the
// session's on a page, nobody for a visitor.
func apiViewer(c echo.Context) *int64 {
	if u := apiUser(c); u != nil {
		return &u.ID
	}
	return viewerID(c)
}

// gameNotation is a finished game in the notation: a download from its
// page, plain text through the API.
func (s *Server) gameNotation(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	b, name, err := s.archive.Game(c.Request().Context(), apiViewer(c), id)
	if err != nil {
		return err
	}
	if apiUser(c) == nil {
		c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s"`, name))
	}
	return c.Blob(http.StatusOK, notationType, b)
}

// playerNotation is every finished game a player sat at as one file: the
// public ones, and their private ones for the player themselves.
func (s *Server) playerNotation(c echo.Context) error {
	started := false
	err := s.archive.PlayerGames(c.Request().Context(), apiViewer(c), c.Param("name"), func(name string) io.Writer {
		started = true
		h := c.Response().Header()
		h.Set(echo.HeaderContentType, notationType)
		h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s"`, name))
		c.Response().WriteHeader(http.StatusOK)
		return c.Response()
	})
	if err != nil && started {
		// The answer is under way: it can only stop short.
		s.log.Warn("a player's games file stopped", "player", c.Param("name"), "err", err)
		return nil
	}
	return err
}

// importPage is the form that brings a game in as text.
func (s *Server) importPage(c echo.Context) error {
	return s.renderImport(c, http.StatusOK, views.Form{})
}

func (s *Server) renderImport(c echo.Context, status int, f views.Form) error {
	ctx := c.Request().Context()
	v := views.ImportView{Form: f}
	u := currentUser(c)
	recent, err := s.archive.Imported(ctx, u.ID)
	if err != nil {
		return err
	}
	lang, loc := i18n.From(ctx), s.userLocation(c)
	for _, g := range recent {
		v.Recent = append(v.Recent, views.ImportedRow{ID: g.ID, Names: g.Names, When: i18n.DateTime(lang, g.CreatedAt.In(loc))})
	}
	return render(c, status, views.ImportPage(s.page(c, tr(c, "Import a game")), v))
}

// importGame stores a game from the form's text or file and shows it; a
// refused text comes back in the form with the line at fault.
func (s *Server) importGame(c echo.Context) error {
	text := c.FormValue("notation")
	if fh, err := c.FormFile("file"); err == nil && fh.Size > 0 {
		f, err := fh.Open()
		if err != nil {
			return apperr.Wrap(err, apperr.Invalid, "The file could not be read.")
		}
		b, err := io.ReadAll(io.LimitReader(f, archive.MaxImportBytes+1))
		f.Close()
		if err != nil {
			return apperr.Wrap(err, apperr.Invalid, "The file could not be read.")
		}
		text = string(b)
	} else if err != nil && !errors.Is(err, http.ErrMissingFile) && !strings.Contains(err.Error(), "multipart") {
		return apperr.Wrap(err, apperr.Invalid, "The file could not be read.")
	}
	id, err := s.archive.Import(c.Request().Context(), *currentUser(c), text)
	if err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return err
		}
		keep := text
		if len(keep) > archive.MaxImportBytes {
			keep = ""
		}
		f := views.Form{Values: map[string]string{"notation": keep}, Errors: map[string]string{"notation": messageOf(c.Request().Context(), err)}, Error: tr(c, "The game was not imported: nothing is stored.")}
		return s.renderImport(c, statusOf(apperr.CodeOf(err)), f)
	}
	s.setFlash(c, "ok", tr(c, "The game is imported: it is never rated, and its analysis is on the way."))
	return redirect(c, fmt.Sprintf("/games/%d", id))
}

// apiImport stores a game sent as {"notation": "…"}.
func (s *Server) apiImport(c echo.Context) error {
	var in struct {
		Notation string `json:"notation"`
	}
	if err := decodeBody(c, &in, i18n.M(`The body is not an import: send {"notation": "the game's text"}.`), bodyRules{required: true}); err != nil {
		return err
	}
	id, err := s.archive.Import(c.Request().Context(), *apiUser(c), in.Notation)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"id": id, "url": fmt.Sprintf("/games/%d", id), "imported": true})
}

// databasePage lists the open database's monthly files.
func (s *Server) databasePage(c echo.Context) error {
	ctx := c.Request().Context()
	ms, err := s.archive.Months(ctx)
	if err != nil {
		return err
	}
	lang := i18n.From(ctx)
	var v views.DatabaseView
	for _, m := range ms {
		if m.MadeAt == nil {
			v.Waiting++
		}
		row := views.MonthRow{Label: i18n.Month(lang, m.Month), File: archive.MonthFile(m.Month), Games: m.Games, Rated: m.Rated,
			Size: byteSize(m.Bytes), SHA256: m.SHA256, Remaking: m.MadeAt != nil && m.Status == "pending"}
		if m.MadeAt != nil {
			row.URL = "/database/" + row.File
			row.Made = i18n.DateTime(lang, m.MadeAt.UTC())
		}
		v.Months = append(v.Months, row)
	}
	return render(c, http.StatusOK, views.DatabasePage(s.page(c, tr(c, "The open database of games")), v))
}

// byteSize says a file's size: 3.4 MB, 812 kB, 96 bytes.
func byteSize(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%d kB", (n+500)/1000)
	}
	return fmt.Sprintf("%d B", n)
}

// databaseFile downloads a month's file, /database/nothanks-2026-11.txt.gz.
func (s *Server) databaseFile(c echo.Context) error {
	name := c.Param("file")
	month := strings.TrimSuffix(strings.TrimPrefix(name, "nothanks-"), ".txt.gz")
	if month == name || !strings.HasSuffix(name, ".txt.gz") {
		return apperr.E(apperr.NotFound, "No such file: the files are called nothanks-2026-11.txt.gz.")
	}
	return s.sendMonth(c, month)
}

// apiDatabaseFile is a month's file through the API, /api/v1/database/2026-11.
func (s *Server) apiDatabaseFile(c echo.Context) error { return s.sendMonth(c, c.Param("month")) }

func (s *Server) sendMonth(c echo.Context, month string) error {
	ctx := c.Request().Context()
	m, err := archive.ParseMonth(month)
	if err != nil {
		return err
	}
	am, err := s.archive.Month(ctx, m)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, monthType)
	h.Set(echo.HeaderContentLength, fmt.Sprint(am.Bytes))
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s"`, archive.MonthFile(m)))
	h.Set("Digest", "sha-256="+am.SHA256)
	c.Response().WriteHeader(http.StatusOK)
	if c.Request().Method == http.MethodHead {
		return nil
	}
	if err := s.archive.WriteMonth(ctx, c.Response(), m); err != nil {
		s.log.Warn("a month's file stopped", "month", month, "err", err)
	}
	return nil
}

// apiDatabase lists the months through the API.
func (s *Server) apiDatabase(c echo.Context) error {
	ms, err := s.archive.Months(c.Request().Context())
	if err != nil {
		return err
	}
	type month struct {
		Month  string `json:"month"`
		Ready  bool   `json:"ready"`
		Games  int    `json:"games"`
		Rated  int    `json:"rated"`
		Bytes  int64  `json:"bytes"`
		SHA256 string `json:"sha256,omitempty"`
		URL    string `json:"url,omitempty"`
		// Remaking: a new file is being made; this one is served until then.
		Remaking bool   `json:"remaking,omitempty"`
		MadeAt   string `json:"made_at,omitempty"`
	}
	out := []month{}
	for _, m := range ms {
		x := month{Month: m.Month.Format("2006-01"), Ready: m.MadeAt != nil, Games: m.Games, Rated: m.Rated, Bytes: m.Bytes, SHA256: m.SHA256,
			Remaking: m.MadeAt != nil && m.Status == "pending"}
		if m.MadeAt != nil {
			x.URL = "/api/v1/database/" + x.Month
			x.MadeAt = m.MadeAt.UTC().Format("2006-01-02T15:04:05Z")
		}
		out = append(out, x)
	}
	return c.JSON(http.StatusOK, map[string]any{"months": out})
}
