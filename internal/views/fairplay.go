package views

// PlayerReportView is the form to report a player.
type PlayerReportView struct {
	Target string
	// GameID is the game the report is about (0: none named).
	GameID int64
	Form   Form
}

// FairDecisionView is a moderator's decision as its pages show it.
type FairDecisionView struct {
	ID       int64
	CaseID   int64
	Account  string
	Action   string // dismiss, warn, mark, close
	Reason   string
	By       string
	When     string
	Undone   bool
	UndoWhy  string
	Refunded string // points given back to others ("" for none)
	// Appeal is the account's appeal ("" for none); Answer "upheld" or
	// "overturned" ("" for none yet) with AnswerNote.
	Appeal             string
	Answer, AnswerNote string
	CanAppeal          bool
	// AppealURL is where the appeal form posts.
	AppealURL string
	// Own: the moderator looking took this decision (they may not judge
	// its appeal).
	Own  bool
	Form Form
}

// MyReportView is a member's report and how it ended.
type MyReportView struct {
	Target  string
	GameID  int64
	Reason  string
	When    string
	Handled bool
	Outcome string // dismissed, warned, marked, closed
}

// RefundView is points given back to a player.
type RefundView struct {
	GameID int64
	Marked string
	Points string
	When   string
	Undone bool
}

// MyFairPlayView is a member's own fair-play page.
type MyFairPlayView struct {
	Marked bool
	// Closed: the page of an account closed as a second account, read
	// after a log-in that the closing refused.
	Closed    bool
	Decisions []FairDecisionView
	Reports   []MyReportView
	Refunds   []RefundView
}

// FairCaseRow is a line of the moderators' queue.
type FairCaseRow struct {
	ID      int64
	Account string
	Partner string
	Source  string
	Score   string
	Reports int
	Opened  string
}

// FairQueueView is the moderators' fair-play queue.
type FairQueueView struct {
	Cases   []FairCaseRow
	Appeals []FairDecisionView
}

// PairEvidence is a pair's figures on a case page.
type PairEvidence struct {
	A, B                     string
	Games                    int
	Expected                 string
	FromRest, BFromA, AFromB string
	FeedsAB, FeedsBA         int
	JudgedA, JudgedB         int
	Device, Network          bool
	Meet, Flow, Feed, Links  string
	Score                    string
	// AWith and the rest: each one's accuracy (a percentage, "–" for
	// none) in analysed rated games with the other and without, and how
	// many games.
	AWith, AWithout, BWith, BWithout                     string
	AWithGames, AWithoutGames, BWithGames, BWithoutGames int
	Rows                                                 []PairGameRow
}

// PairGameRow is one game of a pair on a case page.
type PairGameRow struct {
	GameID           int64
	When             string
	Players          int
	PlaceA, PlaceB   int
	FromRest         string
	BFromA, AFromB   string
	FeedsAB, FeedsBA int
}

// LinkedView is an account sharing a device or a network.
type LinkedView struct {
	Of, Name, Kind, Seen string
}

// CaseReportRow is a report on a case page.
type CaseReportRow struct {
	Reporter, Reason, Note, When string
	GameID                       int64
}

// FairCaseView is a moderator's case page.
type FairCaseView struct {
	ID        int64
	Account   string
	Partner   string
	Source    string
	Score     string
	Open      bool
	Self      bool
	Accounts  []string
	Reports   []CaseReportRow
	Pairs     []PairEvidence
	Linked    []LinkedView
	Decisions []FairDecisionView
	Form      Form
}
