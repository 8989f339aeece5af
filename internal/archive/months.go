package archive

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
)

// The month files' background work: a worker holds a month for Lease, and
// a month that failed MaxAttempts times waits for someone to look.
const (
	Lease       = 10 * time.Minute
	MaxAttempts = 3
	// ChunkBytes is the size of the pieces a file is stored in.
	ChunkBytes = 1 << 20
)

// MonthFile names a month's file: nothanks-2026-11.txt.gz.
func MonthFile(month time.Time) string {
	return "nothanks-" + month.UTC().Format("2006-01") + ".txt.gz"
}

// ParseMonth reads a month as written in addresses ("2026-11"); an error
// for anything else.
func ParseMonth(s string) (time.Time, error) {
	m, err := time.Parse("2006-01", s)
	if err != nil {
		return time.Time{}, apperr.E(apperr.NotFound, "No such month: write it as 2026-11.")
	}
	return m.UTC(), nil
}

// Months lists the months of the open database, newest first: those made
// with their sizes and counts, and those waiting to be made.
func (s *Service) Months(ctx context.Context) ([]db.ArchiveMonth, error) {
	ms, err := s.store.ArchiveMonths(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not list the months")
	}
	return ms, nil
}

// Month reads one month's figures; a month without a file is not found.
func (s *Service) Month(ctx context.Context, month time.Time) (db.ArchiveMonth, error) {
	m, err := s.store.ArchiveMonthOf(ctx, month)
	if errors.Is(err, db.ErrNotFound) || err == nil && m.MadeAt == nil {
		return db.ArchiveMonth{}, apperr.E(apperr.NotFound, "There is no file for %s yet: a month's file is made once the month is over.", month.Format("2006-01"))
	}
	if err != nil {
		return db.ArchiveMonth{}, apperr.Wrap(err, apperr.Internal, "could not read the month")
	}
	return m, nil
}

// WriteMonth copies a month's file to w, a chunk at a time. A file being
// made again is served as it was until the new one is saved.
func (s *Service) WriteMonth(ctx context.Context, w io.Writer, month time.Time) error {
	for seq := 0; ; seq++ {
		data, ok, err := s.store.ArchiveChunk(ctx, month, seq)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
}

// RunOnce adds the months that are over to the work, then makes every
// month waiting, one at a time, until none waits or ctx ends; it returns
// how many files it made.
func (s *Service) RunOnce(ctx context.Context) (int, error) {
	if _, err := s.store.DiscoverArchiveMonths(ctx, s.clock.Now()); err != nil {
		return 0, err
	}
	n := 0
	for ctx.Err() == nil {
		c, ok, err := s.store.ClaimArchiveMonth(ctx, s.clock.Now(), Lease, MaxAttempts)
		if err != nil || !ok {
			return n, err
		}
		start := time.Now()
		made, err := s.MakeMonth(ctx, c.Month)
		if err != nil {
			s.log.Warn("month file failed", "month", c.Month.Format("2006-01"), "err", err)
			if ferr := s.store.FailArchiveMonth(ctx, c.Month, err.Error()); ferr != nil {
				return n, ferr
			}
			continue
		}
		saved, err := s.store.SaveArchiveMonth(ctx, c, made, s.clock.Now())
		if err != nil {
			return n, err
		}
		s.log.Info("month file made", "month", c.Month.Format("2006-01"), "games", made.Games, "bytes", made.Bytes, "took", time.Since(start).Round(time.Millisecond), "saved", saved)
		if saved {
			n++
		}
	}
	return n, ctx.Err()
}

// Run makes the months' files every period until ctx ends.
func (s *Service) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := s.RunOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("month files", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// MakeMonth writes a month's file: every finished public game of the site
// that ended in the month (UTC), in the order they ended, in the notation,
// gzip-compressed, cut into chunks.
func (s *Service) MakeMonth(ctx context.Context, month time.Time) (db.MadeMonth, error) {
	from := time.Date(month.Year(), month.Month(), 1, 0, 0, 0, 0, time.UTC)
	var made db.MadeMonth
	ch := &chunker{}
	sum := sha256.New()
	zw, err := gzip.NewWriterLevel(io.MultiWriter(ch, sum), gzip.DefaultCompression)
	if err != nil {
		return made, err
	}
	bw := bufio.NewWriterSize(zw, 64<<10)
	q := db.ArchiveQuery{From: from, To: from.AddDate(0, 1, 0), Limit: 500}
	n, err := s.each(ctx, q, bw, func(g db.ArchivedGame) {
		if g.Game.Ranked {
			made.Rated++
		}
	})
	if err != nil {
		return made, fmt.Errorf("archive: month %s: %w", from.Format("2006-01"), err)
	}
	if err := bw.Flush(); err != nil {
		return made, err
	}
	if err := zw.Close(); err != nil {
		return made, err
	}
	ch.cut()
	made.Chunks, made.Games, made.Bytes, made.SHA256 = ch.chunks, n, ch.total, hex.EncodeToString(sum.Sum(nil))
	return made, nil
}

// chunker keeps what is written in pieces of ChunkBytes.
type chunker struct {
	chunks [][]byte
	cur    []byte
	total  int64
}

func (c *chunker) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	for len(p) > 0 {
		if c.cur == nil {
			c.cur = make([]byte, 0, ChunkBytes)
		}
		k := min(len(p), ChunkBytes-len(c.cur))
		c.cur = append(c.cur, p[:k]...)
		p = p[k:]
		if len(c.cur) == ChunkBytes {
			c.cut()
		}
	}
	return n, nil
}

func (c *chunker) cut() {
	if len(c.cur) > 0 {
		c.chunks = append(c.chunks, c.cur)
		c.cur = nil
	}
}
