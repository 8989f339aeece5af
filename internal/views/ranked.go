package views

import (
	"context"
	"fmt"
	"strings"
)

// ProfileView is a player's public page.
type ProfileView struct {
	Username string
	// Puzzles is the player's puzzle record (the history for the player
	// themselves only); nil for a player who never finished one.
	Puzzles *SolverView
	// Marked: the account is marked for unfair play; Refunds are the
	// rating points given back to it (in its rating history).
	Marked  bool
	Refunds []RefundView
	// CanReport: the viewer is a member who may report this player.
	CanReport   bool
	Joined      string
	Rating      int
	Rank        int
	RankedGames int
	RankedWins  int
	Provisional bool
	Chart       *Chart
	Recent      []RecentGame
	BySize      []SizeRow
	// Accuracy is the average accuracy by the post-game analysis over
	// AccuracyGames recent games ("" before any).
	Accuracy      string
	AccuracyGames int
	// Relation is how the logged-in viewer stands to this player (nil: a
	// visitor, a guest, or the player themselves).
	Relation *RelationView
	// Tournaments are the public events they played, with their places.
	Tournaments []TournamentRow
	// Bot: a bot account; its rating and rank are the bot ladder's.
	Bot bool
	// Reliability is the player's; Mine: the viewer is the player (their
	// reliability page is linked).
	Reliability *Reliability
	Mine        bool
}

// RelationView is whether the viewer follows or blocks a player.
type RelationView struct {
	Follows, Blocks bool
	// BlockedBy: the player blocks the viewer.
	BlockedBy bool
}

// RecentGame is a finished game on a profile.
type RecentGame struct {
	ID     int64
	URL    string
	Date   string
	Seats  int
	Place  int
	Total  int
	Ranked bool
	// Change is the rating change, like "+12" or "−8"; "" for casual games.
	Change string
}

// SizeRow is a player's record at one table size.
type SizeRow struct {
	Seats int
	Games int
	Wins  int
	Share string
}

// LadderView is a page of the ladder.
type LadderView struct {
	Rows        []LadderRow
	Provisional []LadderRow
	Page, Pages int
	MyRank      int
	MyPage      int
	LoggedIn    bool
	// Bots: the bot ladder (bot accounts ranked among themselves), not
	// the people's.
	Bots bool
}

// LadderRow is a line of the ladder.
type LadderRow struct {
	Rank   int
	Name   string
	Rating int
	Games  int
	Wins   int
	Me     bool
}

// QueueView is the ranked queue page.
type QueueView struct {
	Queued  bool
	Sizes   string
	Pace    string
	Waited  string
	Gap     int
	Waiting map[string]int
	Form    Form
	// Checked sizes and pace to show in the form.
	SizeChecked map[int]bool
	PaceValue   string
	// Pause: the viewer may not queue until it ends (nil: they may).
	Pause *PauseView
}

// Chart is a rating history drawn as SVG on the server.
type Chart struct {
	Width, Height int
	Points        string
	Dots          []ChartDot
	Top, Bottom   string
	TopY, BottomY int
	Games         int
	// Label says the rating in words, for the chart's accessible name.
	Label string
}

// ChartDot is one game on the chart.
type ChartDot struct {
	X, Y  string
	Title string
}

// NewChart lays out ratings (the first is the rating before any game).
func NewChart(ctx context.Context, ratings []float64, titles []string) *Chart {
	if len(ratings) < 2 {
		return nil
	}
	const w, h, pad = 600, 200, 24
	lo, hi := ratings[0], ratings[0]
	for _, r := range ratings {
		lo, hi = min(lo, r), max(hi, r)
	}
	if hi-lo < 20 {
		mid := (hi + lo) / 2
		lo, hi = mid-10, mid+10
	}
	c := &Chart{Width: w, Height: h, Top: fmt.Sprintf("%.0f", hi), Bottom: fmt.Sprintf("%.0f", lo), TopY: pad, BottomY: h - pad, Games: len(ratings) - 1}
	rlo, rhi := ratings[0], ratings[0]
	for _, r := range ratings {
		rlo, rhi = min(rlo, r), max(rhi, r)
	}
	c.Label = trn(ctx, "Rating {{.Rating}} after {{.Count}} ranked game, from {{.Start}} at the start (lowest {{.Low}}, highest {{.High}})",
		"Rating {{.Rating}} after {{.Count}} ranked games, from {{.Start}} at the start (lowest {{.Low}}, highest {{.High}})",
		len(ratings)-1, "Rating", fmt.Sprintf("%.0f", ratings[len(ratings)-1]), "Start", fmt.Sprintf("%.0f", ratings[0]),
		"Low", fmt.Sprintf("%.0f", rlo), "High", fmt.Sprintf("%.0f", rhi))
	var pts []string
	for i, r := range ratings {
		x := float64(pad*2) + float64(i)*float64(w-pad*3)/float64(len(ratings)-1)
		y := float64(pad) + (hi-r)/(hi-lo)*float64(h-2*pad)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		if i > 0 {
			c.Dots = append(c.Dots, ChartDot{X: fmt.Sprintf("%.1f", x), Y: fmt.Sprintf("%.1f", y), Title: titles[i-1]})
		}
	}
	c.Points = strings.Join(pts, " ")
	return c
}
