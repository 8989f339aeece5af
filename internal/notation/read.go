package notation

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Parse reads one finished game and checks it against the rules. A problem
// is an *Error naming its line.
func Parse(r io.Reader) (*Parsed, error) { return ParseWith(r, ParseOptions{}) }

// ParseWith reads one game as Parse does, with options. The text may be
// at most MaxText bytes.
func ParseWith(r io.Reader, o ParseOptions) (*Parsed, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxText+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxText {
		return nil, errorf(0, "the file is over 1 MiB")
	}
	rd := NewReader(bytes.NewReader(data), o)
	p, err := rd.Next()
	if errors.Is(err, io.EOF) {
		return nil, errorf(0, "the text is empty: it holds no game")
	}
	if err != nil {
		return nil, err
	}
	if rd.pending != nil {
		return nil, errorf(rd.pending.n, "a second game starts here (a tag after the moves), but the text should hold one game")
	}
	return p, nil
}

// ParseMany reads every game of a file of several (a player's download,
// a monthly database file) and stops at the first game with a problem,
// returning the games before it and the problem, whose line is counted in
// the whole file. A file with no game gives none and no error. Use a
// Reader to go on past a game with a problem or to read a file too large
// to hold in memory.
func ParseMany(r io.Reader) ([]*Parsed, error) {
	rd := NewReader(r, ParseOptions{})
	var out []*Parsed
	for {
		p, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
}

// Reader reads the games of a file one at a time. A game begins at its
// first tag line; a tag line after a game's moves begins the next game.
// Each game may be at most MaxText bytes, each line MaxLine; the file as a
// whole has no limit.
type Reader struct {
	br          *bufio.Reader
	opts        ParseOptions
	n           int      // lines read
	pending     *rawLine // the first line of the next game, read already
	pendingSize int
}

// NewReader returns a Reader of the games in r.
func NewReader(r io.Reader, o ParseOptions) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, MaxLine+2), opts: o}
}

// Next reads the next game. It returns io.EOF when there is none, and an
// *Error for a game with a problem; the Reader then goes on with the game
// after it. Any other error is the underlying reader's.
func (r *Reader) Next() (*Parsed, error) {
	var lines []rawLine
	first, size, body, over := 0, 0, false, false
	if r.pending != nil {
		lines = append(lines, *r.pending)
		first, size = r.pending.n, r.pendingSize
		r.pending = nil
	}
	for {
		l, n, err := r.readLine()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		kind := l.kind()
		if kind == tagLine && body {
			r.pending, r.pendingSize = &l, n
			break
		}
		if first == 0 && kind == blankLine {
			continue // before the game
		}
		if first == 0 {
			first = l.n
		}
		if size += n; size > MaxText {
			over, lines = true, nil
		}
		body = body || kind == bodyLine
		if kind != blankLine && !over { // blank lines and comments say nothing
			lines = append(lines, l)
		}
	}
	if first == 0 {
		return nil, io.EOF
	}
	if over {
		return nil, errorf(first, "the game that starts here is over 1 MiB")
	}
	return parseGame(lines, r.opts)
}

// rawLine is a line of the text, its line end left out.
type rawLine struct {
	n    int
	text string
	// long: the line is over MaxLine; text is its beginning.
	long bool
}

type lineKind int

const (
	blankLine lineKind = iota // empty, spaces or a comment
	tagLine
	bodyLine
)

func (l rawLine) kind() lineKind {
	for i := 0; i < len(l.text); i++ {
		switch l.text[i] {
		case ' ', '\t':
			continue
		case '#':
			if l.long {
				return bodyLine // refused, though it is a comment
			}
			return blankLine
		case '[':
			return tagLine
		}
		return bodyLine
	}
	if l.long {
		return bodyLine
	}
	return blankLine
}

// readLine reads a line and how many bytes it took, or io.EOF.
func (r *Reader) readLine() (rawLine, int, error) {
	var buf []byte
	size := 0
	for {
		chunk, err := r.br.ReadSlice('\n')
		size += len(chunk)
		if len(buf) <= MaxLine+2 {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return rawLine{}, 0, err
		}
		if size == 0 {
			return rawLine{}, 0, io.EOF
		}
		break
	}
	r.n++
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	buf = bytes.TrimSuffix(buf, []byte("\r"))
	if r.n == 1 {
		buf = bytes.TrimPrefix(buf, []byte("\ufeff")) // a byte order mark
	}
	l := rawLine{n: r.n, long: len(buf) > MaxLine}
	if l.long {
		buf = buf[:64]
	}
	l.text = string(buf)
	return l, size, nil
}
