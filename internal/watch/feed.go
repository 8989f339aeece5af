package watch

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// A Feed streams a page other than a game's that many people watch (a
// tournament's standings and tables), as the Hub streams games: each new
// version of the page's subject is read once per instance, drawn once per
// language, and every stream gets the same bytes. A change is announced by
// a notification; changes that come while a read is under way make one
// more read, never one each.
type Feed struct {
	load   FeedLoader
	render FeedRenderer
	log    *slog.Logger

	mu    sync.Mutex
	rooms map[int64]*feedRoom
	done  chan struct{}
	once  sync.Once

	loads, renders atomic.Int64
}

// FeedLoader reads a subject as of now: its version and what the renderer
// draws from.
type FeedLoader func(ctx context.Context, id int64) (version int, data any, err error)

// FeedRenderer draws a subject's data in a language: the events a stream
// sends (each of its own kind, which a newer one of that kind replaces).
type FeedRenderer func(ctx context.Context, id int64, data any, lang string) ([]Frame, error)

// NewFeed makes a feed; its renderer is set with SetRenderer before use
// (the handlers draw).
func NewFeed(load FeedLoader, log *slog.Logger) *Feed {
	return &Feed{load: load, log: log, rooms: map[int64]*feedRoom{}, done: make(chan struct{})}
}

// SetRenderer gives the feed its renderer.
func (f *Feed) SetRenderer(r FeedRenderer) { f.render = r }

// feedRoom is one subject watched on this instance.
type feedRoom struct {
	id    int64
	mu    sync.Mutex
	subs  map[*FeedSub]struct{}
	ready chan struct{}
	err   error
	// version and data are the last read, frames its drawings by language.
	version int
	data    any
	frames  map[string][]Frame
	drawing sync.Mutex
	// sent is the last frame of each kind the streams of a language were
	// given: a new version that draws the same bytes is not sent again.
	sent map[string]map[string][]byte

	loading, again bool
}

// FeedSub is one open stream of a feed.
type FeedSub struct {
	queue
	room *feedRoom
	lang string
}

// Subscribe opens a stream of a subject in a language and returns it with
// the frames to send first. The caller has checked that the viewer may
// see the subject.
func (f *Feed) Subscribe(ctx context.Context, id int64, lang string) (*FeedSub, []Frame, error) {
	select {
	case <-f.done:
		return nil, nil, ErrClosed
	default:
	}
	f.mu.Lock()
	r := f.rooms[id]
	fresh := r == nil
	if fresh {
		r = &feedRoom{id: id, subs: map[*FeedSub]struct{}{}, ready: make(chan struct{})}
		f.rooms[id] = r
	}
	sub := &FeedSub{queue: queue{Wake: make(chan struct{}, 1)}, room: r, lang: lang}
	r.mu.Lock()
	r.subs[sub] = struct{}{}
	r.mu.Unlock()
	f.mu.Unlock()
	if fresh {
		v, data, err := f.load(ctx, id)
		f.loads.Add(1)
		r.mu.Lock()
		r.version, r.data, r.err, r.frames = v, data, err, map[string][]Frame{}
		r.mu.Unlock()
		close(r.ready)
	}
	select {
	case <-r.ready:
	case <-ctx.Done():
		f.Unsubscribe(sub)
		return nil, nil, ctx.Err()
	}
	r.mu.Lock()
	err := r.err
	r.mu.Unlock()
	if err != nil {
		f.Unsubscribe(sub)
		return nil, nil, err
	}
	frames, err := f.framesFor(ctx, r, lang)
	if err != nil {
		f.Unsubscribe(sub)
		return nil, nil, err
	}
	return sub, frames, nil
}

// Unsubscribe closes a stream; the last one out closes its room.
func (f *Feed) Unsubscribe(s *FeedSub) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := s.room
	r.mu.Lock()
	delete(r.subs, s)
	empty := len(r.subs) == 0
	r.mu.Unlock()
	if empty && f.rooms[r.id] == r {
		delete(f.rooms, r.id)
	}
}

// framesFor returns the room's current frames in a language, drawing them
// once per version and language.
func (f *Feed) framesFor(ctx context.Context, r *feedRoom, lang string) ([]Frame, error) {
	lookup := func() ([]Frame, any, int, bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		fs, ok := r.frames[lang]
		return fs, r.data, r.version, ok
	}
	if fs, _, _, ok := lookup(); ok {
		return fs, nil
	}
	r.drawing.Lock()
	defer r.drawing.Unlock()
	fs, data, version, ok := lookup()
	if ok {
		return fs, nil
	}
	fs, err := f.render(ctx, r.id, data, lang)
	if err != nil {
		return nil, err
	}
	f.renders.Add(1)
	r.mu.Lock()
	if r.version == version {
		r.frames[lang] = fs
	}
	r.mu.Unlock()
	return fs, nil
}

// Changed tells the feed a subject changed: if anyone here watches it, it
// is read once and every stream gets its language's drawing.
func (f *Feed) Changed(id int64) {
	f.mu.Lock()
	r := f.rooms[id]
	f.mu.Unlock()
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.loading {
		r.again = true
		r.mu.Unlock()
		return
	}
	r.loading = true
	r.mu.Unlock()
	go func() {
		for {
			<-r.ready
			f.reload(r)
			r.mu.Lock()
			if !r.again {
				r.loading = false
				r.mu.Unlock()
				return
			}
			r.again = false
			r.mu.Unlock()
		}
	}()
}

// ChangedAll reads every watched subject again (after notifications may
// have been lost).
func (f *Feed) ChangedAll() {
	f.mu.Lock()
	ids := make([]int64, 0, len(f.rooms))
	for id := range f.rooms {
		ids = append(ids, id)
	}
	f.mu.Unlock()
	for _, id := range ids {
		f.Changed(id)
	}
}

func (f *Feed) reload(r *feedRoom) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, data, err := f.load(ctx, r.id)
	f.loads.Add(1)
	if err != nil {
		f.log.Warn("watch: reload feed", "id", r.id, "err", err)
		return
	}
	r.mu.Lock()
	if v <= r.version {
		r.mu.Unlock()
		return // nothing new, or an older read finishing late
	}
	r.version, r.data, r.frames = v, data, map[string][]Frame{}
	subs := make([]*FeedSub, 0, len(r.subs))
	for s := range r.subs {
		subs = append(subs, s)
	}
	r.mu.Unlock()
	byLang := map[string][]*FeedSub{}
	for _, s := range subs {
		byLang[s.lang] = append(byLang[s.lang], s)
	}
	for lang, ss := range byLang {
		fs, err := f.framesFor(ctx, r, lang)
		if err != nil {
			f.log.Warn("watch: render feed", "id", r.id, "err", err)
			return
		}
		changed := r.changedFrames(lang, fs)
		for _, s := range ss {
			for _, x := range changed {
				s.deliver(x)
			}
		}
	}
}

// changedFrames keeps, of a language's new frames, those whose bytes
// differ from the last of their kind the language's streams were sent, and
// remembers them as sent.
func (r *feedRoom) changedFrames(lang string, fs []Frame) []Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sent == nil {
		r.sent = map[string]map[string][]byte{}
	}
	last := r.sent[lang]
	if last == nil {
		last = map[string][]byte{}
		r.sent[lang] = last
	}
	var out []Frame
	for _, x := range fs {
		if !bytes.Equal(last[x.Kind], x.Data) {
			out = append(out, x)
			last[x.Kind] = x.Data
		}
	}
	return out
}

// FeedStats counts a feed's reads and drawings since it started.
func (f *Feed) FeedStats() (loads, renders int64) { return f.loads.Load(), f.renders.Load() }

// Close ends every stream of the feed (at shutdown).
func (f *Feed) Close() { f.once.Do(func() { close(f.done) }) }

// Done is closed when the feed closes.
func (f *Feed) Done() <-chan struct{} { return f.done }
