package live

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// serveHTTP serves h on addr (port 0: a free one) until the returned
// function is called, and returns the address it listens on.
func serveHTTP(addr string, h http.Handler) (string, func(), error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", func() {}, err
	}
	s := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := s.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "serving", l.Addr(), err)
		}
	}()
	return l.Addr().String(), func() { _ = s.Close() }, nil
}
