package views

import (
	"context"
	"fmt"
	"nothanks/internal/i18n"
	"strings"

	"nothanks/internal/analysis"
)

// AnalysisView is what the replay shows of a game's analysis.
type AnalysisView struct {
	GameID int64
	// Status: none, queued, running, done or failed.
	Status  string
	Players []AccuracyRow
	// Moments are the marked decisions, in game order.
	Moments []Moment
	// Current is the decision the replay's step has just shown (nil when
	// the step is no judged decision); Deep is its deeper look, if made.
	Current *DecisionView
	Deep    *DecisionView
	Chart   *ScoreChart
}

// AccuracyRow is one player's accuracy in the game.
type AccuracyRow struct {
	Name                             string
	Accuracy                         string
	Judged                           int
	Inaccuracies, Mistakes, Blunders int
}

// Moment is a marked decision, linked to its step of the replay.
type Moment struct {
	Step int
	Mark string
	Text string
}

// DecisionView is one judged decision in words and figures.
type DecisionView struct {
	Move             int
	Name             string
	Chosen, Best     string
	Mark             string
	Card, Pot        int
	TakeWin, PassWin string
	TakeSE, PassSE   string
	Loss             string
	// Better says which choice was better and by how much, when the
	// decision is marked.
	Better   string
	Playouts int
	Good     bool
}

// ScoreChart draws each player's running score through the game, and their
// estimated win share at their own decisions, as SVG lines.
type ScoreChart struct {
	Width, Height int
	Lines         []ChartLine
	WinLines      []ChartLine
	Top, Bottom   int
	Label         string
	WinLabel      string
}

// ChartLine is one player's line.
type ChartLine struct {
	Name   string
	Points string
	Colour string
}

var chartColours = []string{"#b8322b", "#1f5fbf", "#2e7d32", "#a15c00", "#6a3d9a", "#00838f", "#555"}

// NewScoreChart lays out the running scores and win shares of a report's
// curve; nil when there is nothing to draw.
func NewScoreChart(ctx context.Context, curve []analysis.Point, names []string) *ScoreChart {
	if len(curve) < 2 || len(names) == 0 {
		return nil
	}
	const w, h, pad = 600, 180, 20
	lo, hi := 0, 0
	for _, p := range curve {
		for _, sc := range p.Score {
			lo, hi = min(lo, sc), max(hi, sc)
		}
	}
	if hi-lo < 10 {
		hi = lo + 10
	}
	c := &ScoreChart{Width: w, Height: h, Top: hi, Bottom: lo}
	x := func(i int) float64 { return pad + float64(i)*float64(w-2*pad)/float64(len(curve)-1) }
	y := func(v float64, lo, hi float64) float64 { return pad + (hi-v)/(hi-lo)*float64(h-2*pad) }
	var finals, wins []string
	for seat, name := range names {
		var pts, wpts []string
		for i, p := range curve {
			if seat < len(p.Score) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(float64(p.Score[seat]), float64(lo), float64(hi))))
			}
			if seat < len(p.Win) && p.Win[seat] >= 0 {
				wpts = append(wpts, fmt.Sprintf("%.1f,%.1f", x(i), y(p.Win[seat], 0, 1)))
			}
		}
		colour := chartColours[seat%len(chartColours)]
		c.Lines = append(c.Lines, ChartLine{Name: name, Points: strings.Join(pts, " "), Colour: colour})
		if len(wpts) > 0 {
			c.WinLines = append(c.WinLines, ChartLine{Name: name, Points: strings.Join(wpts, " "), Colour: colour})
		}
		last := curve[len(curve)-1]
		if seat < len(last.Score) {
			finals = append(finals, fmt.Sprintf("%s %d", name, last.Score[seat]))
		}
		if len(wpts) > 0 {
			wins = append(wins, name)
		}
	}
	c.Label = i18n.T(ctx, "Running scores through {{.Count}} decisions (lower is better); at the end: {{.Finals}}", "Count", len(curve), "Finals", strings.Join(finals, ", "))
	c.WinLabel = i18n.T(ctx, "Estimated win share at each of their own decisions, for {{.Names}}", "Names", strings.Join(wins, ", "))
	return c
}
