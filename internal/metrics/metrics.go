// Package metrics is the site's Prometheus metrics: requests by route and
// status, the latency of moves, open event streams, the background
// workers' backlog (outbox, due moves) and the database pool. Each App has
// its own registry, so that tests may run several in one process.
//
// It reads the backlog through the db package; it must not import the web
// layers (echo, handlers, views).
package metrics

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"nothanks/internal/db"
)

// BacklogReader is what the metrics need of the database besides the pool.
type BacklogReader interface {
	Backlog(ctx context.Context, now time.Time) (db.Backlog, error)
}

// Metrics holds the series the site updates as it runs. A nil *Metrics
// records nothing, so code under test needs none.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	moves    *prometheus.HistogramVec
	streams  prometheus.Gauge
	shed     prometheus.Counter
	handler  http.Handler
}

// New registers the series, with the pool's statistics (sql.DBStats) and
// a backlog read from the database at each scrape (bounded to two seconds,
// so that a scrape answers also when the database does not).
func New(pool *sql.DB, backlog BacklogReader, now func() time.Time, log *slog.Logger) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nothanks_http_requests_total",
			Help: "HTTP requests answered, by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "nothanks_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request (event streams not included), by route pattern.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15},
		}, []string{"route"}),
		moves: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "nothanks_move_duration_seconds",
			Help:    "Time to answer a player's move (take, pass, tiger), by way in: page, api or mail.",
			Buckets: []float64{.002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"via"}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "nothanks_open_streams",
			Help: "Event streams (server-sent events) open on this instance.",
		}),
		shed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "nothanks_requests_shed_total",
			Help: "Requests answered 503 at once because every request slot stayed busy.",
		}),
	}
	m.reg.MustRegister(
		m.requests, m.latency, m.moves, m.streams, m.shed,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(pool, "nothanks"),
		newBacklogCollector(backlog, now),
	)
	if log == nil {
		log = slog.Default()
	}
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// The site's gzip middleware compresses text responses.
		DisableCompression: true,
		ErrorHandling:      promhttp.ContinueOnError,
		ErrorLog:           logAdapter{log},
	})
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler { return m.handler }

// ObserveRequest counts an answered request. route is the route pattern
// ("/games/:id"), never the raw path, so that the series stay few.
func (m *Metrics) ObserveRequest(method, route string, status int, took time.Duration, stream bool) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	if !stream {
		m.latency.WithLabelValues(route).Observe(took.Seconds())
	}
}

// ObserveMove records how long a player's move took to answer; via is
// "page", "api" or "mail".
func (m *Metrics) ObserveMove(via string, took time.Duration) {
	if m == nil {
		return
	}
	m.moves.WithLabelValues(via).Observe(took.Seconds())
}

// StreamOpened counts an event stream as open until the returned function
// is called.
func (m *Metrics) StreamOpened() (closed func()) {
	if m == nil {
		return func() {}
	}
	m.streams.Inc()
	return m.streams.Dec
}

// Shed counts a request refused for want of a request slot.
func (m *Metrics) Shed() {
	if m == nil {
		return
	}
	m.shed.Inc()
}

// backlogCollector reads the workers' backlog at each scrape.
type backlogCollector struct {
	r                       BacklogReader
	now                     func() time.Time
	depth, mailAge, moveLag *prometheus.Desc
}

func newBacklogCollector(r BacklogReader, now func() time.Time) *backlogCollector {
	return &backlogCollector{
		r: r, now: now,
		depth:   prometheus.NewDesc("nothanks_outbox_depth", "Mails in the outbox not yet sent or given up (pending or being sent).", nil, nil),
		mailAge: prometheus.NewDesc("nothanks_outbox_oldest_due_seconds", "How long the oldest due, unsent mail has been due (0: none).", nil, nil),
		moveLag: prometheus.NewDesc("nothanks_due_move_lag_seconds", "How late the most overdue bot or timeout move is (0: none due).", nil, nil),
	}
}

func (b *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- b.depth
	ch <- b.mailAge
	ch <- b.moveLag
}

func (b *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	now := b.now()
	bl, err := b.r.Backlog(ctx, now)
	if err != nil {
		err = fmt.Errorf("metrics: backlog: %w", err)
		for _, d := range []*prometheus.Desc{b.depth, b.mailAge, b.moveLag} {
			ch <- prometheus.NewInvalidMetric(d, err)
		}
		return
	}
	ch <- prometheus.MustNewConstMetric(b.depth, prometheus.GaugeValue, float64(bl.OutboxDepth))
	ch <- prometheus.MustNewConstMetric(b.mailAge, prometheus.GaugeValue, age(now, bl.OldestDueMail))
	ch <- prometheus.MustNewConstMetric(b.moveLag, prometheus.GaugeValue, age(now, bl.OldestDueMove))
}

func age(now time.Time, since *time.Time) float64 {
	if since == nil {
		return 0
	}
	return max(now.Sub(*since).Seconds(), 0)
}

type logAdapter struct{ log *slog.Logger }

func (l logAdapter) Println(v ...any) { l.log.Warn("metrics", "err", fmt.Sprint(v...)) }
