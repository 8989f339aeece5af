package views

// FollowingView is the page of the people a player follows and blocks.
type FollowingView struct {
	Following []FollowedView
	Blocked   []string
	// Name is the follow form's value and Error its problem.
	Name  string
	Error string
}

// FollowedView is one person followed.
type FollowedView struct {
	Name   string
	Online bool
	// Games are their public games in play or open, as links.
	Games []int64
}
