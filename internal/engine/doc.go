// Package engine is the game of No Thanks!: the rules, the state of a game,
// what each seat may see of it (the projection) and the public event log.
//
// It imports the standard library only. It must not import net/http,
// database/sql, echo, templ or any other package of this module: the web
// server, the database and the bots all stand on it, never the other way.
//
// A Game is advanced only by Apply. Every illegal action returns a *RuleError
// and leaves the game untouched. Given the same Options, the same deals
// (or seed) and the same actions, a game always ends in the same state, so
// the server stores a seed and the move list and can rebuild any game.
package engine
