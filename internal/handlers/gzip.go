package handlers

import (
	"compress/gzip"
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// gzipMinLength: a response that fits in one packet goes out as it is;
// compressing it would cost more time than the bytes it saves (a move's
// answer is about 1 KB).
const gzipMinLength = 1400

// gzipMinJSON is the same for JSON: the API's answers go to programs,
// mostly on fast links, and a move's answer in a long game (2-3 KB) cost a
// fifth of the move's CPU to compress (docs/operations.md, "Profiling a
// move"); lists and records, which run to tens of kilobytes, still are.
const gzipMinJSON = 8192

// gzipWriters keeps compressors at the fastest level for reuse: a
// response is a few kilobytes, for which level 1 compresses nearly as well
// as the default, and resetting the default level's tables alone cost more
// than a move's database work. A compressor is about 0.4 MB of tables, so
// they are kept on a free list that garbage collection leaves alone (a
// sync.Pool is emptied by every other collection, and under load that made
// nearly every compressed answer build a new one: docs/operations.md,
// "Profiling a move").
var gzipWriters = newWriterList(64)

type writerList chan *gzip.Writer

func newWriterList(n int) writerList { return make(writerList, n) }

// Get takes a kept compressor, or makes one.
func (l writerList) Get() *gzip.Writer {
	select {
	case w := <-l:
		return w
	default:
		w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
		return w
	}
}

// Put keeps a compressor for the next answer, unless enough are kept.
func (l writerList) Put(w *gzip.Writer) {
	select {
	case l <- w:
	default:
	}
}

// compress gzips text responses (HTML, CSS, JavaScript, JSON, SVG, plain
// text) for clients that accept it, saying Vary: Accept-Encoding on every
// such response so that caches keep both forms. Event streams are never
// compressed: a compressor holds back what a stream must send at once.
func compress(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method == http.MethodHead || isStream(c) {
			return next(c)
		}
		res := c.Response()
		w := &gzipWriter{ResponseWriter: res.Writer, accepts: acceptsGzip(req.Header.Get(echo.HeaderAcceptEncoding))}
		res.Writer = w
		defer func() {
			w.finish()
			res.Writer = w.ResponseWriter
		}()
		return next(c)
	}
}

func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") || strings.TrimSpace(coding) == "*" {
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

// compressible reports whether a content type is text worth compressing.
func compressible(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	switch mt {
	case "text/event-stream", ndjson:
		return false
	case "application/json", "application/javascript", "application/xml", "image/svg+xml":
		return true
	}
	return strings.HasPrefix(mt, "text/")
}

// gzipWriter holds back the start of the body until it knows enough to
// decide: the content type, and whether the body is long enough to gain.
type gzipWriter struct {
	http.ResponseWriter
	accepts bool
	status  int
	buf     []byte
	decided bool
	gz      *gzip.Writer
	min     int // minLength, once known
}

func (w *gzipWriter) WriteHeader(code int) {
	if w.decided || w.status != 0 {
		return
	}
	w.status = code
}

func (w *gzipWriter) Write(b []byte) (int, error) {
	if w.decided {
		if w.gz != nil {
			return w.gz.Write(b)
		}
		return w.ResponseWriter.Write(b)
	}
	w.buf = append(w.buf, b...)
	if len(w.buf) < w.minLength() {
		return len(b), nil
	}
	if err := w.decide(true); err != nil {
		return 0, err
	}
	return len(b), nil
}

// minLength is how long a body must be to be worth compressing.
func (w *gzipWriter) minLength() int {
	if w.min == 0 {
		w.min = gzipMinLength
		if ct := w.Header().Get(echo.HeaderContentType); strings.HasPrefix(ct, "application/json") {
			w.min = gzipMinJSON
		}
	}
	return w.min
}

// decide writes the header, compressing a long text body for a client that
// takes gzip, then what was held back.
func (w *gzipWriter) decide(long bool) error {
	w.decided = true
	h := w.Header()
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if h.Get(echo.HeaderContentEncoding) == "" && compressible(h.Get(echo.HeaderContentType)) &&
		w.status != http.StatusNoContent && w.status != http.StatusNotModified {
		h.Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
		if w.accepts && long {
			h.Set(echo.HeaderContentEncoding, "gzip")
			h.Del(echo.HeaderContentLength)
			w.gz = gzipWriters.Get()
			w.gz.Reset(w.ResponseWriter)
		}
	}
	w.ResponseWriter.WriteHeader(w.status)
	buf := w.buf
	w.buf = nil
	if len(buf) == 0 {
		return nil
	}
	var err error
	if w.gz != nil {
		_, err = w.gz.Write(buf)
	} else {
		_, err = w.ResponseWriter.Write(buf)
	}
	return err
}

// Flush sends what is written so far; a body flushed before it is known to
// be short is compressed.
func (w *gzipWriter) Flush() {
	_ = w.FlushError()
}

// FlushError is Flush for http.ResponseController.
func (w *gzipWriter) FlushError() error {
	if !w.decided {
		if err := w.decide(true); err != nil {
			return err
		}
	}
	if w.gz != nil {
		if err := w.gz.Flush(); err != nil {
			return err
		}
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the connection's writer (for read
// deadlines and flushing).
func (w *gzipWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish sends what is held back (a short body, or a header alone) and
// ends the compressed stream.
func (w *gzipWriter) finish() {
	if !w.decided && (w.status != 0 || len(w.buf) > 0) {
		_ = w.decide(false)
	}
	if w.gz != nil {
		_ = w.gz.Close()
		w.gz.Reset(nil)
		gzipWriters.Put(w.gz)
		w.gz = nil
	}
}
