package views

import (
	"context"
	"fmt"
	"io"

	"github.com/a-h/templ"
)

// Bot accounts (docs/bots.md) are marked "BOT" wherever their name is
// shown. Names reach the views as strings, from many view models; which of
// them are bot accounts' is told once, through the context they are drawn
// with (WithBotAccounts), and the components that show a name (Player,
// BotMark) look there, as CSRFInput looks for the form token.

type botAccountsKey struct{}

// WithBotAccounts tells the views drawn with ctx which names are bot
// accounts'.
func WithBotAccounts(ctx context.Context, isBot func(name string) bool) context.Context {
	if isBot == nil {
		return ctx
	}
	return context.WithValue(ctx, botAccountsKey{}, isBot)
}

// isBotAccount reports whether name is a bot account's, as the context
// says.
func isBotAccount(ctx context.Context, name string) bool {
	isBot, _ := ctx.Value(botAccountsKey{}).(func(string) bool)
	return isBot != nil && name != "" && isBot(name)
}

// BotAccountNames is a set of bot account names, for WithBotAccounts.
type BotAccountNames map[string]bool

// Has reports whether name is in the set.
func (b BotAccountNames) Has(name string) bool { return b[name] }

// BotAccountView is the settings page's "Bot account" section.
type BotAccountView struct {
	// Bot: the account is a bot account already.
	Bot bool
	// Form holds the refusal of an upgrade ("understand" when the box was
	// not ticked).
	Form Form
}

// withBotNames draws its children knowing names as bot accounts' too,
// besides those the context tells: a board drawn by a stream, outside any
// request, knows its own seats'.
func withBotNames(names BotAccountNames) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		children := templ.GetChildren(ctx)
		ctx = templ.ClearChildren(ctx)
		if len(names) > 0 {
			outer, _ := ctx.Value(botAccountsKey{}).(func(string) bool)
			ctx = WithBotAccounts(ctx, func(name string) bool { return names[name] || outer != nil && outer(name) })
		}
		return children.Render(ctx, w)
	})
}

// ladderPage is the address of a page of a ladder.
func ladderPage(bots bool, page int) string {
	if bots {
		return fmt.Sprintf("/ladder?pool=bots&page=%d", page)
	}
	return fmt.Sprintf("/ladder?page=%d", page)
}

// Player is a name as shown: in the reader's language for the server's
// bots and a deleted account (PlayerName), marked when it is a bot
// account's.
func Player(name string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if _, err := io.WriteString(w, templ.EscapeString(PlayerName(ctx, name))); err != nil {
			return err
		}
		return BotMark(name).Render(ctx, w)
	})
}

// strongPlayer is a name in bold, marked when it is a bot account's.
func strongPlayer(name string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if _, err := io.WriteString(w, "<strong>"+templ.EscapeString(PlayerName(ctx, name))+"</strong>"); err != nil {
			return err
		}
		return BotMark(name).Render(ctx, w)
	})
}

// playerNamesRel lists names as playerNames does, each with its
// reliability (rels in the order of names; nil or short: none).
func playerNamesRel(names []string, rels []*Reliability) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		for i, n := range names {
			if i > 0 {
				if _, err := io.WriteString(w, ", "); err != nil {
					return err
				}
			}
			if err := Player(n).Render(ctx, w); err != nil {
				return err
			}
			if i < len(rels) {
				if err := RelBadge(rels[i]).Render(ctx, w); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// playerNames lists names, each as Player shows it, separated by commas.
func playerNames(names []string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		for i, n := range names {
			if i > 0 {
				if _, err := io.WriteString(w, ", "); err != nil {
					return err
				}
			}
			if err := Player(n).Render(ctx, w); err != nil {
				return err
			}
		}
		return nil
	})
}
