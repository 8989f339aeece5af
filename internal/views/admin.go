package views

// AdminView is the moderators' page: open reports, and the tools to act on
// an account by name.
type AdminView struct {
	Reports []ReportRow
	Form    Form
	// Silences are the lengths offered, in hours with their labels.
	Silences []Choice
	// Appeals are the appeals of abandoned games waiting for an answer.
	Appeals []AppealView
}

// ReportRow is a reported message with what the moderators need to judge it.
type ReportRow struct {
	MessageID int64
	GameURL   string
	GameID    int64
	Channel   string
	Author    string
	Body      string
	SaidAt    string
	Hidden    bool
	Reports   int
	Reasons   string
	Reporters string
	// AuthorState says whether the author is silenced or disabled.
	AuthorState string
	// Around is the conversation the message was said in.
	Around []ContextLine
}

// ContextLine is a message of the conversation around a reported one.
type ContextLine struct {
	Author string
	Body   string
	// Reported: the message the report is about.
	Reported bool
	Hidden   bool
}

// ModLogView is the moderation log.
type ModLogView struct {
	Entries []ModLogRow
}

// ModLogRow is one action.
type ModLogRow struct {
	At, Admin, Action, Target, Note string
	MessageID                       int64
	// Message is the text of the message the action was about, and
	// MessageHidden whether it is hidden now.
	Message       string
	MessageHidden bool
}
