package handlers

import (
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// LimitConnsPerIP wraps a listener so that one client address holds at
// most max connections at once; a connection past that is answered 503 and
// closed. Addresses in exempt (the reverse proxies, through which every
// client comes) are not limited.
func LimitConnsPerIP(ln net.Listener, max int, exempt []*net.IPNet) net.Listener {
	return &perIPListener{Listener: ln, max: max, exempt: exempt, open: map[string]int{}}
}

type perIPListener struct {
	net.Listener
	max    int
	exempt []*net.IPNet
	mu     sync.Mutex
	open   map[string]int
}

const tooManyBody = "Too many connections from your address.\n"

var tooManyConns = fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"+
	"Retry-After: %s\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", RetryAfter, len(tooManyBody), tooManyBody)

func (l *perIPListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c)
		if ip == nil || l.isExempt(ip) {
			return c, nil
		}
		key := ip.String()
		l.mu.Lock()
		if l.open[key] >= l.max {
			l.mu.Unlock()
			go refuse(c)
			continue
		}
		l.open[key]++
		l.mu.Unlock()
		return &countedConn{Conn: c, release: sync.OnceFunc(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.open[key]--; l.open[key] <= 0 {
				delete(l.open, key)
			}
		})}, nil
	}
}

func refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = io.WriteString(c, tooManyConns)
	_ = c.Close()
}

func (l *perIPListener) isExempt(ip net.IP) bool {
	for _, n := range l.exempt {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

func remoteIP(c net.Conn) net.IP {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP
	}
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return nil
	}
	return net.ParseIP(host)
}

// countedConn gives its place back when it closes.
type countedConn struct {
	net.Conn
	release func()
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// CloseWrite keeps net/http's graceful close (a FIN before the close) on
// the wrapped TCP connection.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
